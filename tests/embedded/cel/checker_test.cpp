// The static type check against declared variables, as cel-go's checker reports it: the
// expression's type, and for each error its line:column and cel-go's wording (no matching
// overload with the argument types, undefined field, field selection on a scalar, heterogeneous
// literals, macros' bodies), all errors in source order.
#include <gtest/gtest.h>

#include <string>

#include "embedded/cel/cel.h"

namespace tailor::embedded::cel {
namespace {

TypePtr self_type() {
  static const TypePtr t = [] {
    TypePtr s = parse_type("string");
    TypePtr spec = Type::object("selfType.spec", {{"name", s}});
    return Type::object("selfType", {{"replicas", parse_type("int")},
                                     {"name", s},
                                     {"ratio", parse_type("double")},
                                     {"tags", parse_type("list(string)")},
                                     {"labels", parse_type("map(string, string)")},
                                     {"any", Type::dyn()},
                                     {"spec", spec}});
  }();
  return t;
}

Compiled checked(const std::string& expr) {
  return compile(expr, Variables{{"self", self_type()}, {"oldSelf", self_type()}});
}

struct Typed {
  const char* expr;
  const char* type;
};

class Types : public ::testing::TestWithParam<Typed> {};

TEST_P(Types, AreInferred) {
  Compiled c = checked(GetParam().expr);
  ASSERT_NE(c.program, nullptr) << c.error;
  EXPECT_EQ(format(*c.type), GetParam().type) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Table, Types,
    ::testing::Values(
        Typed{"self.replicas > 1", "bool"}, Typed{"self.replicas", "int"},
        Typed{"self.ratio > 1", "bool"},  // numeric ordering across kinds
        Typed{"self.tags.all(t, t.size() < 5)", "bool"},
        Typed{"self.tags.map(t, t.size())", "list(int)"},
        Typed{"self.tags.filter(t, t != 'a')", "list(string)"}, Typed{"self.labels.x", "string"},
        Typed{"self.labels.all(k, k != '')", "bool"},
        Typed{"self.spec.name.startsWith('a')", "bool"}, Typed{"has(self.spec.name)", "bool"},
        Typed{"self.any.whatever", "dyn"}, Typed{"self.any + 1", "int"},
        Typed{"self.tags[0]", "string"}, Typed{"self.tags + ['x']", "list(string)"},
        Typed{"self.tags == []", "bool"}, Typed{"self.spec == oldSelf.spec", "bool"},
        Typed{"self.replicas > 1 ? 'a' : 'b'", "string"},
        Typed{"self.name.split(',').join('-')", "string"},
        Typed{"type(self.any) == string", "bool"}, Typed{"type(self.replicas)", "type(int)"},
        Typed{"type(self.any) == int ? self.any < 5 : self.any.endsWith('%')", "bool"}));

struct Bad {
  const char* expr;
  const char* error;
};

class TypeRefused : public ::testing::TestWithParam<Bad> {};

TEST_P(TypeRefused, WithCelGoMessages) {
  Compiled c = checked(GetParam().expr);
  EXPECT_EQ(c.program, nullptr);
  EXPECT_EQ(c.error, GetParam().error) << GetParam().expr;
}

INSTANTIATE_TEST_SUITE_P(
    Table, TypeRefused,
    ::testing::Values(
        Bad{"self.replicas > 'a'",
            "ERROR: <input>:1:15: found no matching overload for '_>_' applied to '(int, string)'"
            "\n | self.replicas > 'a'\n | ..............^"},
        Bad{"self.nope == 1",
            "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope == 1\n | ....^"},
        Bad{"has(self.spec.nope)",
            "ERROR: <input>:1:14: undefined field 'nope'\n | has(self.spec.nope)\n | "
            ".............^"},
        Bad{"self.ratio == 1",
            "ERROR: <input>:1:12: found no matching overload for '_==_' applied to '(double, "
            "int)'\n | self.ratio == 1\n | ...........^"},
        Bad{"self.replicas == null",
            "ERROR: <input>:1:15: found no matching overload for '_==_' applied to '(int, "
            "null_type)'\n | self.replicas == null\n | ..............^"},
        Bad{"self.name.x",
            "ERROR: <input>:1:10: type 'string' does not support field selection\n"
            " | self.name.x\n | .........^"},
        Bad{"[1, 'a'].size() > 0",
            "ERROR: <input>:1:5: expected type 'int' but found 'string'\n | [1, 'a'].size() > 0\n"
            " | ....^"},
        Bad{"self.replicas.startsWith('a')",
            "ERROR: <input>:1:25: found no matching overload for 'startsWith' applied to "
            "'int.(string)'\n | self.replicas.startsWith('a')\n | ........................^"},
        Bad{"self.tags['a'] == 'b'",
            "ERROR: <input>:1:10: found no matching overload for '_[_]' applied to "
            "'(list(string), string)'\n | self.tags['a'] == 'b'\n | .........^"},
        Bad{"self.replicas > 1 ? 'a' : 1",
            "ERROR: <input>:1:19: found no matching overload for '_?_:_' applied to '(bool, "
            "string, int)'\n | self.replicas > 1 ? 'a' : 1\n | ..................^"},
        Bad{"self.tags.all(t, t.size())",
            "ERROR: <input>:1:14: found no matching overload for '_&&_' applied to '(bool, "
            "int)'\n | self.tags.all(t, t.size())\n | .............^"},
        Bad{"self.replicas.all(t, true)",
            "ERROR: <input>:1:5: expression of type 'int' cannot be range of a comprehension "
            "(must be list, map, or dynamic)\n | self.replicas.all(t, true)\n | ....^"},
        Bad{"quantity(self.name) < quantity('1')",
            "ERROR: <input>:1:21: found no matching overload for '_<_' applied to "
            "'(kubernetes.Quantity, kubernetes.Quantity)'\n | quantity(self.name) < quantity('1')\n"
            " | ....................^"},
        Bad{"sets.contains(self.tags, [1])",
            "ERROR: <input>:1:14: found no matching overload for 'sets.contains' applied to "
            "'(list(string), list(int))'\n | sets.contains(self.tags, [1])\n | .............^"},
        Bad{"self.tags.sum() == 1",
            "ERROR: <input>:1:14: found no matching overload for 'sum' applied to "
            "'list(string).()'\n | self.tags.sum() == 1\n | .............^"},
        Bad{"self.a == 1 &&\n  self.b == 2",
            "ERROR: <input>:1:5: undefined field 'a'\n | self.a == 1 &&\n | ....^\n"
            "ERROR: <input>:2:7: undefined field 'b'\n |   self.b == 2\n | ......^"}));

TEST(CelChecker, WithoutVariablesNothingIsTyped) {
  Compiled c = compile("self.replicas > 'a'");
  ASSERT_NE(c.program, nullptr) << c.error;
  EXPECT_EQ(format(*c.type), "dyn");
}

}  // namespace
}  // namespace tailor::embedded::cel
