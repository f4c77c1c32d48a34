// Bad input of every shape: expressions glued from random CEL fragments compile or are refused
// with a message, and evaluate to a value or an error, never a crash (the unit label also runs
// this under ASan and UBSan).
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "embedded/cel/cel.h"

namespace tailor::embedded::cel {
namespace {

const std::vector<std::string> kFragments = {"self",
                                             "oldSelf",
                                             ".",
                                             "a",
                                             "b",
                                             "l",
                                             "(",
                                             ")",
                                             "[",
                                             "]",
                                             "{",
                                             "}",
                                             ",",
                                             ":",
                                             "?",
                                             "!",
                                             "-",
                                             "+",
                                             "*",
                                             "/",
                                             "%",
                                             "==",
                                             "!=",
                                             "<",
                                             "<=",
                                             ">",
                                             ">=",
                                             "&&",
                                             "||",
                                             " in ",
                                             "1",
                                             "0",
                                             "-9223372036854775808",
                                             "9223372036854775807",
                                             "1u",
                                             "0u",
                                             "1.5",
                                             "0.0",
                                             "'x'",
                                             "\"\"",
                                             "r'a'",
                                             "'''t'''",
                                             "true",
                                             "false",
                                             "null",
                                             "has(",
                                             "size(",
                                             ".size()",
                                             ".all(x,",
                                             ".exists(x,",
                                             ".exists_one(x,",
                                             ".map(x,",
                                             ".filter(x,",
                                             "x",
                                             ".startsWith(",
                                             ".matches(",
                                             "'[a-z]+'",
                                             "int(",
                                             "uint(",
                                             "double(",
                                             "string(",
                                             "bool(",
                                             "dyn(",
                                             "'\\u00e9'",
                                             " ",
                                             "'('",
                                             ".join(",
                                             ".lowerAscii()",
                                             ".trim()"};

TEST(CelRobustness, RandomExpressionsCompileOrFailCleanly) {
  std::mt19937 rng(15);
  Value self =
      from_json(boost::json::parse(R"({"a": 1, "b": "s", "l": [1, 2, 3], "m": {"k": [true]}})"));
  int compiled = 0, errors = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string e;
    for (int k = 0, n = 1 + static_cast<int>(rng() % 14); k < n; ++k)
      e += kFragments[rng() % kFragments.size()];
    Compiled c = compile(e);
    if (!c.program) {
      ASSERT_EQ(c.error.rfind("ERROR: <input>:", 0), 0u) << e << "\n" << c.error;
      continue;
    }
    ++compiled;
    Value v = c.program->evaluate(self, rng() % 2 ? &self : nullptr);
    if (v.is_error()) {
      ++errors;
      ASSERT_FALSE(v.as<Error>().message.empty()) << e;
    }
  }
  // The generator reaches both sides: programs that run and programs that fail at runtime.
  EXPECT_GT(compiled, 500);
  EXPECT_GT(errors, 50);
}

}  // namespace
}  // namespace tailor::embedded::cel
