// Updates: list items of `x-kubernetes-list-type: map` lists meet their old selves by key (so
// their transition rules run), and validation ratcheting (GA in 1.33): values an update leaves as
// they were are judged neither by the schema nor by rules that do not use oldSelf.
#include "embedded/crd/ratcheting.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/crd/rules.h"

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;

std::string update(const std::string& schema_json, const std::string& old_json,
                   const std::string& new_json) {
  std::vector<FieldCause> out;
  bj::object old = bj::parse(old_json).as_object();
  append_rule_violations(out, bj::parse(new_json).as_object(), &old,
                         bj::parse(schema_json).as_object());
  std::string text;
  for (const FieldCause& c : out) text += c.field + ": " + c.message + "\n";
  return text;
}

std::string list_schema(const std::string& list_type) {
  return R"({"type": "object", "properties": {"items": {"type": "array", )" + list_type +
         R"("items": {"type": "object", "properties": {
      "name": {"type": "string"}, "value": {"type": "integer"}},
    "x-kubernetes-validations": [{"rule": "self.value == oldSelf.value",
                                  "message": "value is immutable"}]}}}})";
}

TEST(CrdRatcheting, MapListItemsMeetTheirOldSelvesByKey) {
  const std::string map_list =
      list_schema(R"("x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"], )");
  const char* old = R"({"items": [{"name": "a", "value": 1}, {"name": "b", "value": 2}]})";
  // Reordered, b kept, a changed: the error is a's, at its new index.
  EXPECT_EQ(
      update(map_list, old, R"({"items": [{"name": "b", "value": 2}, {"name": "a", "value": 3}]})"),
      "items[1]: Invalid value: value is immutable\n");
  // A new key has no old self: its transition rule does not run.
  EXPECT_EQ(update(map_list, old, R"({"items": [{"name": "c", "value": 9}]})"), "");
  // Atomic lists do not correlate their items.
  EXPECT_EQ(update(list_schema(""), old, R"({"items": [{"name": "a", "value": 3}]})"), "");
}

TEST(CrdRatcheting, UnchangedValuesAreNotJudgedAgainByRulesWithoutOldSelf) {
  const char* schema = R"({"type": "object", "properties": {
      "x": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 5"}]},
      "y": {"type": "integer"}}})";
  EXPECT_EQ(update(schema, R"({"x": 1, "y": 1})", R"({"x": 1, "y": 2})"), "");
  EXPECT_EQ(update(schema, R"({"x": 1, "y": 1})", R"({"x": 2, "y": 1})"),
            "x: Invalid value: 2: failed rule: self > 5\n");
}

TEST(CrdRatcheting, SchemaViolationsAtUnchangedValuesAreDropped) {
  bj::object old = bj::parse(R"({"spec": {"a": 10, "b": {"c": 1}, "list": [1, 2]}})").as_object();
  bj::object now =
      bj::parse(R"({"spec": {"a": 10, "b": {"c": 2}, "list": [1, 2], "d": "new"}})").as_object();
  std::vector<FieldCause> causes = {
      {"FieldValueInvalid", "Invalid value: 10: spec.a in body should be less than or equal to 5",
       "spec.a"},
      {"FieldValueRequired", "Required value", "spec.b.e"},
      {"FieldValueRequired", "Required value", "spec.list[0].x"},
      {"FieldValueInvalid", "Invalid value: \"new\"", "spec.d"}};
  ratchet(causes, now, &old);
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[0].field, "spec.b.e");  // b changed
  EXPECT_EQ(causes[1].field, "spec.d");    // added
  std::vector<FieldCause> created = {{"FieldValueInvalid", "x", "spec.a"}};
  ratchet(created, now, nullptr);
  EXPECT_EQ(created.size(), 1u);
}

}  // namespace
}  // namespace tailor::embedded::crd
