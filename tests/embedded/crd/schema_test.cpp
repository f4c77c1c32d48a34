// Structural schemas: the CRD checks, pruning, defaulting and kube-apiserver's validation messages.
#include "embedded/crd/schema.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;

bj::object parse(const char* text) { return bj::parse(text).as_object(); }

const char* kSchema = R"({
  "type": "object",
  "properties": {
    "spec": {
      "type": "object",
      "required": ["targetRef"],
      "properties": {
        "targetRef": {"type": "object", "required": ["name"],
                      "properties": {"name": {"type": "string"}}},
        "mode": {"type": "string", "enum": ["Auto", "Off"], "default": "Auto"},
        "minReplicas": {"type": "integer", "minimum": 1, "maximum": 10, "default": 1},
        "ratio": {"type": "number", "exclusiveMinimum": true, "minimum": 0},
        "timeout": {"type": "string", "pattern": "^[0-9]+(s|m|h)$"},
        "note": {"type": "string", "nullable": true},
        "minAllowed": {"type": "object", "additionalProperties": {
            "x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": "^[0-9]+(m|Mi|Gi)?$"}},
        "containers": {"type": "array", "items": {"type": "object",
            "properties": {"name": {"type": "string"},
                           "mode": {"type": "string", "default": "Auto"}}}},
        "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
      }
    },
    "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
  }
})";

std::vector<FieldCause> check(const char* object) {
  return violations(parse(object), parse(kSchema));
}

struct ViolationCase {
  const char* name;
  const char* object;
  const char* field;
  const char* reason;
  const char* message;
};

class Violations : public ::testing::TestWithParam<ViolationCase> {};

TEST_P(Violations, AsKubeApiserverWordsThem) {
  const ViolationCase& c = GetParam();
  std::vector<FieldCause> causes = check(c.object);
  ASSERT_EQ(causes.size(), 1u) << c.name;
  EXPECT_EQ(causes[0].field, c.field);
  EXPECT_EQ(causes[0].reason, c.reason);
  EXPECT_EQ(causes[0].message, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, Violations,
    ::testing::Values(
        ViolationCase{"required", R"({"spec":{}})", "spec.targetRef", "FieldValueRequired",
                      "Required value"},
        ViolationCase{"nested required", R"({"spec":{"targetRef":{}}})", "spec.targetRef.name",
                      "FieldValueRequired", "Required value"},
        ViolationCase{"type", R"({"spec":{"targetRef":{"name":"a"},"minReplicas":"two"}})",
                      "spec.minReplicas", "FieldValueTypeInvalid",
                      "Invalid value: \"string\": spec.minReplicas in body must be of type "
                      "integer: \"string\""},
        ViolationCase{"fraction is no integer",
                      R"({"spec":{"targetRef":{"name":"a"},"minReplicas":1.5}})",
                      "spec.minReplicas", "FieldValueTypeInvalid",
                      "Invalid value: \"number\": spec.minReplicas in body must be of type "
                      "integer: \"number\""},
        ViolationCase{"a float64 past 2^53 is no integer (kube-openapi's safe range)",
                      R"({"spec":{"targetRef":{"name":"a"},"minReplicas":8.9e25}})",
                      "spec.minReplicas", "FieldValueTypeInvalid",
                      "Invalid value: \"number\": spec.minReplicas in body must be of type "
                      "integer: \"number\""},
        ViolationCase{"nor a number past int64, which Go decodes as a float64",
                      R"({"spec":{"targetRef":{"name":"a"},"minReplicas":9223372036854775808}})",
                      "spec.minReplicas", "FieldValueTypeInvalid",
                      "Invalid value: \"number\": spec.minReplicas in body must be of type "
                      "integer: \"number\""},
        ViolationCase{"enum", R"({"spec":{"targetRef":{"name":"a"},"mode":"Sometimes"}})",
                      "spec.mode", "FieldValueNotSupported",
                      "Unsupported value: \"Sometimes\": supported values: \"Auto\", \"Off\""},
        ViolationCase{"minimum", R"({"spec":{"targetRef":{"name":"a"},"minReplicas":0}})",
                      "spec.minReplicas", "FieldValueInvalid",
                      "Invalid value: 0: spec.minReplicas in body should be greater than or "
                      "equal to 1"},
        ViolationCase{"maximum", R"({"spec":{"targetRef":{"name":"a"},"minReplicas":11}})",
                      "spec.minReplicas", "FieldValueInvalid",
                      "Invalid value: 11: spec.minReplicas in body should be less than or equal "
                      "to 10"},
        ViolationCase{"exclusive minimum", R"({"spec":{"targetRef":{"name":"a"},"ratio":0}})",
                      "spec.ratio", "FieldValueInvalid",
                      "Invalid value: 0: spec.ratio in body should be greater than 0"},
        ViolationCase{"pattern", R"({"spec":{"targetRef":{"name":"a"},"timeout":"soon"}})",
                      "spec.timeout", "FieldValueInvalid",
                      "Invalid value: \"soon\": spec.timeout in body should match "
                      "'^[0-9]+(s|m|h)$'"},
        ViolationCase{"not nullable", R"({"spec":{"targetRef":{"name":"a"},"timeout":null}})",
                      "spec.timeout", "FieldValueTypeInvalid",
                      "Invalid value: \"null\": spec.timeout in body must be of type string: "
                      "\"null\""},
        ViolationCase{"quantity pattern",
                      R"({"spec":{"targetRef":{"name":"a"},"minAllowed":{"cpu":"lots"}}})",
                      "spec.minAllowed.cpu", "FieldValueInvalid",
                      "Invalid value: \"lots\": spec.minAllowed.cpu in body should match "
                      "'^[0-9]+(m|Mi|Gi)?$'"},
        ViolationCase{"int-or-string",
                      R"({"spec":{"targetRef":{"name":"a"},"minAllowed":{"cpu":true}}})",
                      "spec.minAllowed.cpu", "FieldValueTypeInvalid",
                      "Invalid value: \"boolean\": spec.minAllowed.cpu in body must be of type "
                      "integer,string: \"boolean\""},
        ViolationCase{"array items",
                      R"({"spec":{"targetRef":{"name":"a"},"containers":[{"name":1}]}})",
                      "spec.containers[0].name", "FieldValueTypeInvalid",
                      "Invalid value: \"integer\": spec.containers[0].name in body must be of "
                      "type string: \"integer\""}));

TEST(Violations, AcceptsValidObjects) {
  EXPECT_TRUE(check(R"({"apiVersion":"x/v1","kind":"K","metadata":{"name":"n"},
      "spec":{"targetRef":{"name":"a"},"mode":"Off","minReplicas":3,"ratio":0.5,"timeout":"5m",
      "note":null,"minAllowed":{"cpu":"50m","memory":64},"containers":[{"name":"app"}],
      "extra":{"anything":[1,2]}},"status":{"free":"form"}})")
                  .empty());
}

TEST(Prune, DropsUndeclaredFieldsButKeepsPreservedOnesAndTypeMeta) {
  bj::object o = parse(R"({"apiVersion":"x/v1","kind":"K","metadata":{"name":"n"},"junk":1,
      "spec":{"targetRef":{"name":"a","typo":true},"containers":[{"name":"c","bad":1}],
              "minAllowed":{"cpu":"1"},"extra":{"kept":{"deep":1}}},
      "status":{"kept":true}})");
  prune(o, parse(kSchema));
  EXPECT_EQ(o, parse(R"({"apiVersion":"x/v1","kind":"K","metadata":{"name":"n"},
      "spec":{"targetRef":{"name":"a"},"containers":[{"name":"c"}],"minAllowed":{"cpu":"1"},
              "extra":{"kept":{"deep":1}}},"status":{"kept":true}})"));
}

TEST(Defaults, FillAbsentFieldsAndNullsOfNonNullableOnes) {
  bj::object o = parse(R"({"spec":{"targetRef":{"name":"a"},"mode":null,
      "containers":[{"name":"c"},{"name":"d","mode":"Off"}]}})");
  apply_defaults(o, parse(kSchema));
  EXPECT_EQ(o, parse(R"({"spec":{"targetRef":{"name":"a"},"mode":"Auto","minReplicas":1,
      "containers":[{"name":"c","mode":"Auto"},{"name":"d","mode":"Off"}]}})"));
}

TEST(Defaults, DoNotCreateParentsThatAreAbsent) {
  bj::object o = parse("{}");
  apply_defaults(o, parse(kSchema));
  EXPECT_EQ(o, parse("{}"));
}

TEST(Structural, AcceptsTheTestSchema) {
  EXPECT_TRUE(structural_errors(bj::parse(kSchema), "s").empty());
}

TEST(Structural, NamesEveryProblemWithItsPath) {
  std::vector<FieldCause> errors =
      structural_errors(bj::parse(R"({"properties":{"spec":{"properties":{"n":{}}},
          "list":{"type":"array"},"bad":{"type":"map"},"re":{"type":"string","pattern":"("}}})"),
                        "spec.versions[0].schema.openAPIV3Schema");
  std::vector<std::string> got;
  for (const FieldCause& e : errors) got.push_back(e.field + ": " + e.message);
  const std::string p = "spec.versions[0].schema.openAPIV3Schema";
  ASSERT_EQ(got.size(), 6u) << ::testing::PrintToString(got);
  EXPECT_EQ(got[0], p + ".type: Required value: must not be empty at the root");
  EXPECT_EQ(got[1], p + ".properties[spec].type: Required value: must not be empty for "
                        "specified object fields");
  EXPECT_EQ(got[2], p + ".properties[spec].properties[n].type: Required value: must not be "
                        "empty for specified object fields");
  EXPECT_EQ(got[3], p + ".properties[list].items: Required value: must be specified");
  EXPECT_EQ(got[4], p + ".properties[bad].type: Unsupported value: \"map\": supported values: "
                        "\"array\", \"boolean\", \"integer\", \"number\", \"object\", \"string\"");
  EXPECT_EQ(got[5], p + ".properties[re].pattern: Invalid value: \"(\": must be a valid regular "
                        "expression, but isn't: error parsing regexp: missing closing ): `(`");
}

// Found by fuzz/crd_schema: std::regex recursed once per character of the value, so one long
// string in a custom object overflowed the server's stack. Patterns are Go's regexp (RE2 here):
// linear in the text, no recursion over it.
TEST(Violations, ALongValueIsMatchedAgainstAPatternWithoutExhaustingTheStack) {
  const bj::object schema =
      parse(R"({"type":"object","properties":{"v":{"type":"string","pattern":"^(a|b)*$"}}})");
  const std::string long_value(std::size_t{1} << 20, 'a');
  EXPECT_TRUE(violations(bj::object{{"v", long_value}}, schema).empty());
  const std::vector<FieldCause> causes = violations(bj::object{{"v", long_value + "c"}}, schema);
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].field, "v");
}

TEST(Structural, PatternsAreGoRegexpSyntax) {
  auto pattern_causes = [](const char* pattern) {
    bj::object schema{{"type", "object"},
                      {"properties", {{"v", {{"type", "string"}, {"pattern", pattern}}}}}};
    return structural_errors(schema, "s").size();
  };
  EXPECT_EQ(pattern_causes("^[a-z]+(?:-[a-z]+)*$"), 0u);
  EXPECT_EQ(pattern_causes("(?P<name>x)\\d"), 0u);
  EXPECT_EQ(pattern_causes("a{2,1}"), 1u);
}

TEST(Structural, RequiresASchemaAndAnObjectRoot) {
  std::vector<FieldCause> missing = structural_errors(bj::value(), "x");
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].message, "Required value: schemas are required");
  std::vector<FieldCause> root = structural_errors(bj::parse(R"({"type":"string"})"), "x");
  ASSERT_EQ(root.size(), 1u);
  EXPECT_EQ(root[0].field, "x.type");
  EXPECT_EQ(root[0].message, "Invalid value: \"string\": must be object at the root");
}

}  // namespace
}  // namespace tailor::embedded::crd
