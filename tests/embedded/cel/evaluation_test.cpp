// The CEL interpreter against tables modelled on cel-spec's conformance files
// (tests/simple/testdata): basic (literals), logic (commutative && and || over errors),
// comparisons, integer_math and fp_math (overflow as errors), string, lists, fields (maps and
// has()), macros (all, exists, exists_one, map, filter) and conversions; plus self and oldSelf.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "embedded/cel/cel.h"

namespace tailor::embedded::cel {
namespace {

// "<type> <value>" for a value, "error: <message>" for an error.
std::string render(const Value& v) {
  return v.is_error() ? to_string(v) : type_name(v) + " " + to_string(v);
}

std::string run(const std::string& expr, const std::string& self_json = "null",
                const char* old_json = nullptr) {
  Compiled c = compile(expr);
  if (!c.program) return "compile: " + c.error;
  Value self = from_json(boost::json::parse(self_json));
  if (!old_json) return render(c.program->evaluate(self, nullptr));
  Value old = from_json(boost::json::parse(old_json));
  return render(c.program->evaluate(self, &old));
}

struct Case {
  const char* section;
  const char* expr;
  const char* want;
};

class Conformance : public ::testing::TestWithParam<Case> {};

TEST_P(Conformance, EvaluatesAsCelSpecSays) {
  EXPECT_EQ(run(GetParam().expr), GetParam().want) << GetParam().section << ": " << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Basic, Conformance,
    ::testing::Values(Case{"basic", "0", "int 0"}, Case{"basic", "0u", "uint 0u"},
                      Case{"basic", "0U", "uint 0u"}, Case{"basic", "0.0", "double 0"},
                      Case{"basic", "0e+0", "double 0"}, Case{"basic", "''", "string \"\""},
                      Case{"basic", "r\"\"", "string \"\""}, Case{"basic", "false", "bool false"},
                      Case{"basic", "null", "null_type null"}, Case{"basic", "[]", "list []"},
                      Case{"basic", "{}", "map {}"},
                      Case{"basic", "-9223372036854775808", "int -9223372036854775808"},
                      Case{"basic", "0x2A", "int 42"},
                      Case{"basic", "18446744073709551615u", "uint 18446744073709551615u"},
                      Case{"basic", "1e3", "double 1000"}, Case{"basic", ".5", "double 0.5"},
                      Case{"basic", "'\\u00e9'", "string \"é\""},
                      Case{"basic", "\"\"\"a\nb\"\"\"", "string \"a\\nb\""},
                      Case{"basic", "r'\\n'", "string \"\\\\n\""},
                      Case{"basic", "'\\x41\\101'", "string \"AA\""}));

INSTANTIATE_TEST_SUITE_P(
    Logic, Conformance,
    ::testing::Values(Case{"logic", "true && false", "bool false"},
                      Case{"logic", "true || false", "bool true"},
                      Case{"logic", "false && 1/0 == 1", "bool false"},
                      Case{"logic", "1/0 == 1 && false", "bool false"},
                      Case{"logic", "1/0 == 1 || true", "bool true"},
                      Case{"logic", "true || 1/0 == 1", "bool true"},
                      Case{"logic", "1/0 == 1 && true", "error: division by zero"},
                      Case{"logic", "false || 1/0 == 1", "error: division by zero"},
                      Case{"logic", "'x' && true", "error: no such overload"},
                      Case{"logic", "!true", "bool false"}, Case{"logic", "!!false", "bool false"},
                      Case{"logic", "!0", "error: no such overload"},
                      Case{"conditional", "true ? 1 : 2", "int 1"},
                      Case{"conditional", "false ? 1/0 : 'b'", "string \"b\""},
                      Case{"conditional", "1 ? 1 : 2", "error: no such overload"},
                      Case{"conditional", "1/0 == 0 ? 1 : 2", "error: division by zero"}));

INSTANTIATE_TEST_SUITE_P(
    Comparisons, Conformance,
    ::testing::Values(
        Case{"comparisons", "1 == 1", "bool true"}, Case{"comparisons", "1 == 1u", "bool true"},
        Case{"comparisons", "1 == 1.0", "bool true"}, Case{"comparisons", "-1 < 1u", "bool true"},
        Case{"comparisons", "2u > 1.5", "bool true"}, Case{"comparisons", "'a' < 'b'", "bool true"},
        Case{"comparisons", "false < true", "bool true"},
        Case{"comparisons", "'1' == 1", "bool false"},
        Case{"comparisons", "null == null", "bool true"},
        Case{"comparisons", "[1, 2] == [1, 2.0]", "bool true"},
        Case{"comparisons", "{'a': 1} == {'a': 1u}", "bool true"},
        Case{"comparisons", "{'a': 1} != {'a': 2}", "bool true"},
        Case{"comparisons", "'a' < 1", "error: no such overload"},
        Case{"comparisons", "[1] < [2]", "error: no such overload"},
        Case{"comparisons", "0.0/0.0 == 0.0/0.0", "bool false"},
        Case{"comparisons", "0.0/0.0 < 1.0", "bool false"}, Case{"in", "2 in [1, 2]", "bool true"},
        Case{"in", "'b' in {'a': 1}", "bool false"}, Case{"in", "2u in [1, 2]", "bool true"},
        Case{"in", "1 in 'abc'", "error: no such overload"}));

INSTANTIATE_TEST_SUITE_P(
    Arithmetic, Conformance,
    ::testing::Values(
        Case{"integer_math", "40 + 2", "int 42"}, Case{"integer_math", "7 / 2", "int 3"},
        Case{"integer_math", "-7 % 2", "int -1"},
        Case{"integer_math", "2 - 5u", "error: no such overload"},
        Case{"integer_math", "9223372036854775807 + 1", "error: integer overflow"},
        Case{"integer_math", "-9223372036854775808 - 1", "error: integer overflow"},
        Case{"integer_math", "-(-9223372036854775808)", "error: integer overflow"},
        Case{"integer_math", "5000000000 * 5000000000", "error: integer overflow"},
        Case{"integer_math", "-9223372036854775808 / -1", "error: integer overflow"},
        Case{"integer_math", "1 / 0", "error: division by zero"},
        Case{"integer_math", "1 % 0", "error: modulus by zero"},
        Case{"integer_math", "1u - 2u", "error: unsigned integer overflow"},
        Case{"integer_math", "18446744073709551615u + 1u", "error: unsigned integer overflow"},
        Case{"integer_math", "7u % 4u", "uint 3u"}, Case{"fp_math", "1.5 + 2.25", "double 3.75"},
        Case{"fp_math", "1.0 / 0.0", "double inf"}, Case{"fp_math", "-(1.5)", "double -1.5"},
        Case{"fp_math", "1.5 % 1.0", "error: no such overload"},
        Case{"fp_math", "1 + 1.0", "error: no such overload"},
        Case{"string", "'ab' + 'cd'", "string \"abcd\""},
        Case{"lists", "[1] + [2, 3]", "list [1, 2, 3]"}, Case{"lists", "[1, 2][1]", "int 2"},
        Case{"lists", "[1, 2][2]", "error: index '2' out of range in list size '2'"},
        Case{"lists", "[1, 2][-1]", "error: index '-1' out of range in list size '2'"},
        Case{"lists", "size([1, 2, 3])", "int 3"}, Case{"lists", "[1, 2].size()", "int 2"}));

INSTANTIATE_TEST_SUITE_P(
    Strings, Conformance,
    ::testing::Values(Case{"string", "size('héllo')", "int 5"},
                      Case{"string", "'hello'.size()", "int 5"},
                      Case{"string", "'foobar'.startsWith('foo')", "bool true"},
                      Case{"string", "'foobar'.endsWith('bar')", "bool true"},
                      Case{"string", "'foobar'.endsWith('foo')", "bool false"},
                      Case{"string", "'foobar'.contains('oba')", "bool true"},
                      Case{"string", "'foobar'.matches('^fo+b')", "bool true"},
                      Case{"string", "matches('abc', 'd')", "bool false"},
                      Case{"string", "1.startsWith('a')", "error: no such overload"},
                      Case{"string", "'AbC'.lowerAscii()", "string \"abc\""},
                      Case{"string", "['a', 'b'].join('-')", "string \"a-b\""}));

INSTANTIATE_TEST_SUITE_P(
    Maps, Conformance,
    ::testing::Values(Case{"fields", "{'a': 1}.a", "int 1"},
                      Case{"fields", "{'a': 1}['a']", "int 1"},
                      Case{"fields", "{'a': 1}.b", "error: no such key: b"},
                      Case{"fields", "{'a': 1}['b']", "error: no such key: b"},
                      Case{"fields", "has({'a': 1}.a)", "bool true"},
                      Case{"fields", "has({'a': 1}.b)", "bool false"},
                      Case{"fields", "{1: 'x', 2u: 'y'}[2]", "string \"y\""},
                      Case{"fields", "{'a': 1, 'a': 2}", "error: Failed with repeated key"},
                      Case{"fields", "1.a", "error: type 'int' does not support field selection"},
                      Case{"fields", "size({'a': 1, 'b': 2})", "int 2"}));

INSTANTIATE_TEST_SUITE_P(
    Macros, Conformance,
    ::testing::Values(Case{"macros", "[1, 2, 3].all(x, x > 0)", "bool true"},
                      Case{"macros", "[1, 2, 3].all(x, x > 1)", "bool false"},
                      Case{"macros", "[0, 1].all(x, 1 / x > 0)", "error: division by zero"},
                      Case{"macros", "[0, -1].all(x, 1 / x > 0)", "bool false"},
                      Case{"macros", "[0, 1].exists(x, 1 / x > 0)", "bool true"},
                      Case{"macros", "[0].exists(x, 1 / x > 0)", "error: division by zero"},
                      Case{"macros", "[].exists(x, true)", "bool false"},
                      Case{"macros", "[1, 2, 3].exists_one(x, x > 2)", "bool true"},
                      Case{"macros", "[1, 2, 3].exists_one(x, x > 1)", "bool false"},
                      Case{"macros", "[1, 2, 3].map(x, x * 2)", "list [2, 4, 6]"},
                      Case{"macros", "[1, 2, 3].map(x, x > 1, x * 2)", "list [4, 6]"},
                      Case{"macros", "[1, 2, 3].filter(x, x != 2)", "list [1, 3]"},
                      Case{"macros", "{'a': 1, 'b': 2}.all(k, k.size() == 1)", "bool true"},
                      Case{"macros", "{'a': 1}.map(k, k + '!')", "list [\"a!\"]"},
                      Case{"macros", "[[1], [2, 3]].exists(l, l.exists(x, x == 3))", "bool true"},
                      Case{"macros", "1.all(x, true)", "error: no such overload"}));

INSTANTIATE_TEST_SUITE_P(
    Conversions, Conformance,
    ::testing::Values(Case{"conversions", "int('-42')", "int -42"},
                      Case{"conversions", "int(2.9)", "int 2"},
                      Case{"conversions", "int(18446744073709551615u)", "error: range error"},
                      Case{"conversions", "int(1e99)", "error: range error"},
                      Case{"conversions", "uint(-1)", "error: range error"},
                      Case{"conversions", "uint('7')", "uint 7u"},
                      Case{"conversions", "double(3)", "double 3"},
                      Case{"conversions", "string(42)", "string \"42\""},
                      Case{"conversions", "string(1.5)", "string \"1.5\""},
                      Case{"conversions", "string(true)", "string \"true\""},
                      Case{"conversions", "bool('false')", "bool false"},
                      Case{"conversions", "int('x')", "error: cannot convert \"x\" to int"},
                      Case{"conversions", "dyn(1) == 1u", "bool true"}));

TEST(CelSelf, RulesSeeSelfAndTheirOwnVariables) {
  const char* spec = R"({"targetRef": {"kind": "Deployment", "name": "web"}})";
  EXPECT_EQ(run("has(self.targetRef) != has(self.selector)", spec), "bool true");
  EXPECT_EQ(
      run("has(self.targetRef) != has(self.selector)", R"({"targetRef": {}, "selector": {}})"),
      "bool false");
  EXPECT_EQ(run("has(self.targetRef) != has(self.selector)", "{}"), "bool false");
  EXPECT_EQ(run("self.targetRef.name.startsWith('w')", spec), "bool true");
  EXPECT_EQ(run("self.selector.matchLabels", spec), "error: no such key: selector");
  EXPECT_EQ(run("self.all(k, k in ['targetRef'])", spec), "bool true");
  EXPECT_EQ(run("self.x", "[1]"), "error: type 'list' does not support field selection");
}

TEST(CelSelf, OldSelfIsBoundOnlyWhenGiven) {
  EXPECT_EQ(run("self == oldSelf", "1", "1"), "bool true");
  EXPECT_EQ(run("self >= oldSelf", "1", "2"), "bool false");
  EXPECT_EQ(run("self == oldSelf", "1"), "error: no such attribute: oldSelf");
  EXPECT_TRUE(compile("self == oldSelf").program->uses_old_self());
  EXPECT_FALSE(compile("self == 1").program->uses_old_self());
}

TEST(CelSelf, MacroVariablesShadowAndGoOutOfScope) {
  EXPECT_EQ(run("[1].all(self, self == 1) && self == 2", "2"), "bool true");
  EXPECT_EQ(compile("[1].all(x, true) && x").error,
            "ERROR: <input>:1:21: undeclared reference to 'x' (in container '')\n"
            " | [1].all(x, true) && x\n"
            " | ....................^");
}

}  // namespace
}  // namespace tailor::embedded::cel
