// Compilation: cel-go's error report (position, source line, caret) for bad syntax, undeclared
// names and misused macros, and the limits that refuse huge or deeply nested expressions.
#include <gtest/gtest.h>

#include <string>

#include "embedded/cel/cel.h"

namespace tailor::embedded::cel {
namespace {

struct Bad {
  const char* expr;
  const char* error;  // the report's first line
};

class Refused : public ::testing::TestWithParam<Bad> {};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

TEST_P(Refused, WithAPositionedMessage) {
  Compiled c = compile(GetParam().expr);
  EXPECT_EQ(c.program, nullptr);
  EXPECT_EQ(first_line(c.error), GetParam().error) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Refused,
    ::testing::Values(
        Bad{"self.x ==", "ERROR: <input>:1:10: Syntax error: mismatched input <EOF>"},
        Bad{"self.x = 1", "ERROR: <input>:1:8: Syntax error: token recognition error at: '='"},
        Bad{"(1 + 2", "ERROR: <input>:1:7: Syntax error: mismatched input <EOF> expecting ')'"},
        Bad{"foo == 1", "ERROR: <input>:1:1: undeclared reference to 'foo' (in container '')"},
        Bad{"self.size(1, 2)",
            "ERROR: <input>:1:10: undeclared reference to 'size' (in container '')"},
        Bad{"ip(self)", "ERROR: <input>:1:3: undeclared reference to 'ip' (in container '')"},
        Bad{"has(self)", "ERROR: <input>:1:4: invalid argument to has() macro"},
        Bad{"self.all(1, true)", "ERROR: <input>:1:10: argument must be a simple name"},
        Bad{"'unterminated",
            "ERROR: <input>:1:1: Syntax error: token recognition error at: "
            "''unterminated'"},
        Bad{"'\\q'", "ERROR: <input>:1:2: Syntax error: invalid escape sequence"},
        Bad{"9223372036854775808", "ERROR: <input>:1:1: invalid int literal"},
        Bad{"self.if", "ERROR: <input>:1:6: Syntax error: reserved identifier: if"},
        Bad{"b'x'", "ERROR: <input>:1:1: Syntax error: bytes literals are not supported"},
        Bad{"self\n  && nope",
            "ERROR: <input>:2:6: undeclared reference to 'nope' (in container '')"}));

std::string repeated(const std::string& head, const std::string& link, int n) {
  std::string s = head;
  for (int i = 0; i < n; ++i) s += link;
  return s;
}

TEST(CelLimits, DeepNestingIsRefusedNotCrashed) {
  const std::string limit = "expression recursion limit exceeded: nesting deeper than 100 levels";
  for (const std::string& deep :
       {std::string(5000, '(') + "1" + std::string(5000, ')'), std::string(5000, '!') + "true",
        repeated("self", ".a", 5000), repeated("1", " + 1", 5000), repeated("x", "[0]", 5000),
        repeated("true", " && true", 5000), std::string(5000, '[') + std::string(5000, ']')}) {
    Compiled c = compile(deep);
    EXPECT_EQ(c.program, nullptr) << deep.substr(0, 20);
    EXPECT_NE(c.error.find(limit), std::string::npos) << first_line(c.error);
  }
  EXPECT_NE(compile(std::string(50, '(') + "1" + std::string(50, ')')).program, nullptr);
  EXPECT_NE(compile(repeated("1", " + 1", 90)).program, nullptr);
}

TEST(CelLimits, HugeSourceIsRefused) {
  std::string huge(200 * 1024, ' ');
  huge += "true";
  Compiled c = compile(huge);
  EXPECT_EQ(c.program, nullptr);
  EXPECT_EQ(c.error,
            "ERROR: <input>:1:1: expression code point size exceeds limit: size: 204804, limit "
            "102400");
}

TEST(CelLimits, EvaluationStopsAtTheCostLimit) {
  Limits small;
  small.cost_limit = 1000;
  Compiled c = compile(
      "[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
      "[1,2,3,4,5,6,7,8,9,10].all(c, a + b + c > 0)))",
      small);
  ASSERT_NE(c.program, nullptr) << c.error;
  Value v = c.program->evaluate(Value::null(), nullptr);
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.as<Error>().message, "operation cancelled: actual cost limit exceeded");
  EXPECT_EQ(
      to_string(compile("[1,2].all(a, a > 0)", small).program->evaluate(Value::null(), nullptr)),
      "true");
}

TEST(CelLimits, ExponentialListGrowthIsCut) {
  // 30 nested maps over two elements would build 2^30 lists; the budget stops it early.
  std::string e = "1";
  for (int i = 0; i < 30; ++i) e = "[1, 1].map(x" + std::to_string(i) + ", " + e + ")";
  Compiled c = compile(e);
  ASSERT_NE(c.program, nullptr) << c.error;
  Value v = c.program->evaluate(Value::null(), nullptr);
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.as<Error>().message, "operation cancelled: actual cost limit exceeded");
}

TEST(CelLimits, BadRegularExpressionIsAnError) {
  Value v = compile("'abc'.matches('(')").program->evaluate(Value::null(), nullptr);
  ASSERT_TRUE(v.is_error());
  EXPECT_EQ(v.as<Error>().message.rfind("invalid regular expression: ", 0), 0u)
      << v.as<Error>().message;
}

// RE2, as cel-go matches: linear in the text. libstdc++'s std::regex recursed once per character,
// so a rule's matches() over one long string in a custom object took the server's stack.
TEST(CelLimits, MatchesALongStringWithoutExhaustingTheStack) {
  Compiled c = compile("self.matches('^(a|b)*$')");
  ASSERT_NE(c.program, nullptr) << c.error;
  Value v = c.program->evaluate(Value::string(std::string(1 << 17, 'a')), nullptr);
  ASSERT_FALSE(v.is_error()) << v.as<Error>().message;
  EXPECT_TRUE(v.as<bool>());
}

}  // namespace
}  // namespace tailor::embedded::cel
