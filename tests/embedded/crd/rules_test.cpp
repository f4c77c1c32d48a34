// x-kubernetes-validations without a cluster: the field errors of rules that fail, err, exceed
// their cost or meet an object with type errors, and the checks of rules when a CRD is written.
#include "embedded/crd/rules.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;

std::vector<FieldCause> run(const std::string& rule, const std::string& spec_json,
                            const std::string& spec_props = "{}",
                            std::vector<FieldCause> existing = {}) {
  bj::object schema = bj::parse(R"({"type": "object", "properties": {"spec": {"type": "object",
      "properties": )" + spec_props +
                                R"(, "x-kubernetes-validations": [{"rule": )" +
                                bj::serialize(bj::value(rule)) + "}]}}}")
                          .as_object();
  bj::object object = bj::parse(R"({"spec": )" + spec_json + "}").as_object();
  append_rule_violations(existing, object, nullptr, schema);
  return existing;
}

std::string messages(const std::vector<FieldCause>& causes) {
  std::string out;
  for (const FieldCause& c : causes) out += c.field + ": " + c.message + "\n";
  return out;
}

TEST(CrdRules, EvaluationErrorsAreFieldErrorsNamingTheRule) {
  EXPECT_EQ(messages(run("self.x == 1", "{}")),
            "spec: Invalid value: \"object\": no such key: x evaluating rule: self.x == 1\n");
  EXPECT_EQ(messages(run("self.a + 1 == 2", R"({"a": "s"})")),
            "spec: Invalid value: \"object\": 'no such overload': call arguments did not match a "
            "supported operator, function or macro signature for rule: self.a + 1 == 2\n");
  EXPECT_EQ(messages(run("self.size()", "{}")),
            "spec: Invalid value: \"object\": rule did not evaluate to a bool (int) for rule: "
            "self.size()\n");
}

// Upstream VPA's startupBoost.cpu rules: (self.type == 'Factor') == has(self.factor), and the
// same for Quantity.
TEST(CrdRules, UpstreamVpaStartupBoostRules) {
  bj::object schema = bj::parse(R"json({"type": "object", "properties": {"spec": {"type": "object",
      "properties": {"cpu": {"type": "object",
        "properties": {"type": {"type": "string"}, "factor": {"type": "integer"},
                       "quantity": {"x-kubernetes-int-or-string": true}},
        "x-kubernetes-validations": [
          {"rule": "(self.type == 'Factor') == has(self.factor)",
           "message": "factor is required when type is Factor and forbidden otherwise"},
          {"rule": "(self.type == 'Quantity') == has(self.quantity)",
           "message": "quantity is required when type is Quantity and forbidden otherwise"}]
}
}
}
}
})json")
                          .as_object();
  auto check = [&](const std::string& cpu) {
    std::vector<FieldCause> out;
    append_rule_violations(out, bj::parse(R"({"spec": {"cpu": )" + cpu + "}}").as_object(), nullptr,
                           schema);
    return messages(out);
  };
  EXPECT_EQ(check(R"({"type": "Factor", "factor": 2})"), "");
  EXPECT_EQ(check(R"({"type": "Quantity", "quantity": "500m"})"), "");
  EXPECT_EQ(check(R"({"type": "Factor"})"),
            "spec.cpu: Invalid value: factor is required when type is Factor and forbidden "
            "otherwise\n");
  EXPECT_EQ(check(R"({"type": "Factor", "factor": 2, "quantity": 1})"),
            "spec.cpu: Invalid value: quantity is required when type is Quantity and forbidden "
            "otherwise\n");
}

TEST(CrdRules, RootRulesSeeTheWholeObjectAtTheNilPath) {
  bj::object schema = bj::parse(R"json({"type": "object",
      "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('a')"},
                                   {"rule": "has(self.spec)", "fieldPath": ".spec"}],
      "properties": {"spec": {"type": "object"}}})json")
                          .as_object();
  std::vector<FieldCause> out;
  append_rule_violations(out, bj::parse(R"({"metadata": {"name": "b"}})").as_object(), nullptr,
                         schema);
  EXPECT_EQ(messages(out),
            "<nil>: Invalid value: failed rule: self.metadata.name.startsWith('a')\n"
            "spec: Invalid value: failed rule: has(self.spec)\n");
}

TEST(CrdRules, NumbersAreDoublesAsTheSchemaTypesThem) {
  std::string props = R"({"ratio": {"type": "number"}, "count": {"type": "integer"}})";
  EXPECT_EQ(messages(run("self.ratio / 2.0 == 0.5 && self.count / 2 == 1",
                         R"({"ratio": 1, "count": 3})", props)),
            "");
}

TEST(CrdRules, CostLimitStopsAllFurtherRules) {
  std::string big = "[";
  for (int i = 0; i < 200; ++i) big += (i ? ",1" : "1");
  big += "]";
  std::vector<FieldCause> causes =
      run("self.l.all(a, self.l.all(b, self.l.all(c, true)))", R"({"l": )" + big + "}");
  ASSERT_EQ(causes.size(), 1u);
  EXPECT_EQ(causes[0].message,
            "Invalid value: \"object\": 'operation cancelled: actual cost limit exceeded': no "
            "further validation rules will be run due to call cost exceeds limit for rule: "
            "self.l.all(a, self.l.all(b, self.l.all(c, true)))");
}

TEST(CrdRules, TheWritesBudgetIsSharedByAllRules) {
  bj::object schema = bj::parse(R"json({"type": "object", "properties": {"items": {"type": "array",
      "items": {"type": "integer", "x-kubernetes-validations": [{"rule": "self + 1 > self"}]}}}})json")
                          .as_object();
  bj::object object = bj::parse(R"({"items": [1, 2, 3, 4, 5]})").as_object();
  std::vector<FieldCause> out;
  append_rule_violations(out, object, nullptr, schema, 1000);
  EXPECT_EQ(messages(out), "");
  append_rule_violations(out, object, nullptr, schema, 12);  // about 5 steps a rule
  EXPECT_EQ(messages(out),
            "items[2]: Invalid value: \"integer\": validation failed due to running out of cost "
            "budget, no further validation rules will be run\n");
}

TEST(CrdRules, TypeErrorsBlockTheRules) {
  std::vector<FieldCause> causes =
      run("false", "{}", "{}", {{"FieldValueTypeInvalid", "Invalid value: ...", "spec.x"}});
  ASSERT_EQ(causes.size(), 2u);
  EXPECT_EQ(causes[1].field, "<nil>");
  EXPECT_EQ(causes[1].message,
            "Invalid value: \"null\": some validation rules were not checked because the object "
            "was invalid; correct the existing errors to complete validation");
  EXPECT_EQ(run("false", "{}", "{}", {{"FieldValueRequired", "Required value", "spec.y"}}).size(),
            2u);  // other errors do not block: the rule runs and fails
}

TEST(CrdRules, RulesAreCheckedWhenTheCrdIsWritten) {
  bj::object node = bj::parse(R"({"type": "object", "x-kubernetes-validations": [
      {"rule": " "},
      {"rule": "true", "messageExpression": "'a' +", "reason": "FieldValueBogus"}]})")
                        .as_object();
  std::vector<FieldCause> out;
  check_rules(node, "p", out);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].field, "p.x-kubernetes-validations[0].rule");
  EXPECT_EQ(out[0].message, "Required value");
  EXPECT_EQ(out[1].field, "p.x-kubernetes-validations[1].messageExpression");
  EXPECT_EQ(out[1].message.rfind(
                "Invalid value: apiextensions.ValidationRule{Rule:\"true\", Message:\"\", "
                "MessageExpression:\"'a' +\", Reason:(*apiextensions.FieldValueErrorReason)("
                "\"FieldValueBogus\"), FieldPath:\"\", OptionalOldSelf:(*bool)(nil)}: "
                "messageExpression compilation failed: ERROR: <input>:1:6: Syntax error: "
                "mismatched input <EOF>",
                0),
            0u)
      << out[1].message;
  EXPECT_EQ(out[2].message,
            "Unsupported value: \"FieldValueBogus\": supported values: \"FieldValueDuplicate\", "
            "\"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"");
}

}  // namespace
}  // namespace tailor::embedded::crd
