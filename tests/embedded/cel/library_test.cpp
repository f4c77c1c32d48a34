// The extension libraries Kubernetes' CEL environment offers CRD rules: cel-go's strings
// extension (code-point indices, its range errors), Kubernetes' regex library (find, findAll) and
// lists library (isSorted, sum, min, max, indexOf, lastIndexOf), type() and the quantity library,
// as their tests state them.
#include <gtest/gtest.h>

#include <string>

#include "embedded/cel/cel.h"

namespace tailor::embedded::cel {
namespace {

std::string run(const std::string& expr) {
  Compiled c = compile(expr);
  if (!c.program) return "compile: " + c.error;
  Value v = c.program->evaluate(Value::null(), nullptr);
  return v.is_error() ? to_string(v) : type_name(v) + " " + to_string(v);
}

struct Case {
  const char* expr;
  const char* want;
};

class Library : public ::testing::TestWithParam<Case> {};

TEST_P(Library, EvaluatesAsUpstream) {
  EXPECT_EQ(run(GetParam().expr), GetParam().want) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Strings, Library,
    ::testing::Values(
        Case{"'héllo'.charAt(1)", "string \"é\""}, Case{"'hello'.charAt(5)", "string \"\""},
        Case{"'hello'.charAt(6)", "error: index out of range: 6"},
        Case{"'hello mellow'.indexOf('ello')", "int 1"},
        Case{"'hello mellow'.indexOf('ello', 6)", "int 7"}, Case{"'héllo'.indexOf('l')", "int 2"},
        Case{"'hello'.indexOf('x')", "int -1"},
        Case{"'hello'.indexOf('l', 6)", "error: index out of range: 6"},
        Case{"'hello mellow'.lastIndexOf('ello')", "int 7"},
        Case{"'hello mellow'.lastIndexOf('ello', 6)", "int 1"},
        Case{"'tacocat'.substring(4)", "string \"cat\""},
        Case{"'tacocat'.substring(0, 4)", "string \"taco\""},
        Case{"'tacocat'.substring(4, 3)", "error: invalid substring range. start: 4, end: 3"},
        Case{"'ta'.substring(3)", "error: index out of range: 3"},
        Case{"'hello hello'.replace('he', 'we')", "string \"wello wello\""},
        Case{"'hello hello'.replace('he', 'we', 1)", "string \"wello hello\""},
        Case{"'a,b,c'.split(',')", "list [\"a\", \"b\", \"c\"]"},
        Case{"'a,b,c'.split(',', 2)", "list [\"a\", \"b,c\"]"},
        Case{"'a,b'.split(',', 0)", "list []"}, Case{"'ab'.split('')", "list [\"a\", \"b\"]"},
        Case{"['a', 'b'].join('-')", "string \"a-b\""},
        Case{"'  x '.trim().upperAscii()", "string \"X\""}));

INSTANTIATE_TEST_SUITE_P(
    Regex, Library,
    ::testing::Values(Case{"'abc 123 def 456'.find('[0-9]+')", "string \"123\""},
                      Case{"'abc'.find('[0-9]+')", "string \"\""},
                      Case{"'abc 123 def 456'.findAll('[0-9]+')", "list [\"123\", \"456\"]"},
                      Case{"'abc 123 def 456'.findAll('[0-9]+', 1)", "list [\"123\"]"},
                      Case{"'abc'.find('(')",
                           "error: error parsing regexp: missing closing ): `(`"}));

INSTANTIATE_TEST_SUITE_P(
    Lists, Library,
    ::testing::Values(Case{"[1, 2, 3].isSorted()", "bool true"},
                      Case{"['b', 'a'].isSorted()", "bool false"}, Case{"[1, 2, 3].sum()", "int 6"},
                      Case{"[].sum()", "int 0"}, Case{"[1.5, 2.5].sum()", "double 4"},
                      Case{"[3, 1, 2].min()", "int 1"}, Case{"[3, 1, 2].max()", "int 3"},
                      Case{"[].min()", "error: min(list) argument must not be empty"},
                      Case{"[9223372036854775807, 1].sum()", "error: integer overflow"},
                      Case{"[1, 2, 1].indexOf(1)", "int 0"},
                      Case{"[1, 2, 1].lastIndexOf(1)", "int 2"},
                      Case{"[1, 2].indexOf(5)", "int -1"}));

// type() and the type names, as rules on x-kubernetes-int-or-string fields use them.
INSTANTIATE_TEST_SUITE_P(
    TypeValues, Library,
    ::testing::Values(Case{"type(1) == int", "bool true"}, Case{"type('a') == int", "bool false"},
                      Case{"type([1]) == list", "bool true"}, Case{"type({}) == map", "bool true"},
                      Case{"type(null) == null_type", "bool true"},
                      Case{"type(int) == type", "bool true"}, Case{"type(1u)", "type uint"},
                      Case{"type(1) == int ? 1 < 5 : false", "bool true"}));

// Kubernetes' quantity library, as rules on VPA's int-or-string quantities (minAllowed,
// maxAllowed) would use it.
INSTANTIATE_TEST_SUITE_P(
    Quantities, Library,
    ::testing::Values(
        Case{"isQuantity('1Gi')", "bool true"}, Case{"isQuantity('1 Gi')", "bool false"},
        Case{"quantity('1Ki') == quantity('1024')", "bool true"},
        Case{"quantity('500m').isLessThan(quantity('1'))", "bool true"},
        Case{"quantity('2Gi').isGreaterThan(quantity('1G'))", "bool true"},
        Case{"quantity('1').compareTo(quantity('1000m'))", "int 0"},
        Case{"quantity('1.5').add(quantity('500m'))", "kubernetes.Quantity quantity(2)"},
        Case{"quantity('1Gi').sub(1)", "kubernetes.Quantity quantity(1073741823)"},
        Case{"quantity('-3').sign()", "int -1"}, Case{"quantity('500m').isInteger()", "bool false"},
        Case{"quantity('2k').asInteger()", "int 2000"},
        Case{"quantity('500m').asInteger()", "error: cannot convert value to integer"},
        Case{"quantity('250m').asApproximateFloat()", "double 0.25"},
        Case{"quantity('x')",
             "error: quantities must match the regular expression "
             "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"}));

INSTANTIATE_TEST_SUITE_P(Sets, Library,
                         ::testing::Values(Case{"sets.contains([1, 2, 3], [3, 1])", "bool true"},
                                           Case{"sets.contains([1, 2], [4])", "bool false"},
                                           Case{"sets.equivalent([1, 2, 2], [2, 1])", "bool true"},
                                           Case{"sets.intersects(['a'], ['b', 'a'])", "bool true"},
                                           Case{"sets.intersects([], [1])", "bool false"}));

}  // namespace
}  // namespace tailor::embedded::cel
