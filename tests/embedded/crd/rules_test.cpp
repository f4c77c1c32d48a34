// x-kubernetes-validations without a cluster: the field errors of rules that fail, err, exceed
// their cost or meet an object with type errors, and the checks of rules when a CRD is written.
#include "embedded/crd/rules.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/crd/schema.h"

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

std::vector<FieldCause> checked(const std::string& node_json, bool root = false) {
  std::vector<FieldCause> out;
  check_rules(bj::parse(node_json).as_object(), "p", out, root);
  return out;
}

TEST(CrdRules, RuleFieldsAreCheckedBeforeAnyRuleIsCompiled) {
  std::vector<FieldCause> out = checked(R"({"type": "object", "x-kubernetes-validations": [
      {"rule": " "},
      {"rule": "true", "messageExpression": "'a' +", "reason": "FieldValueBogus"},
      {"rule": "true", "message": " "},
      {"rule": "true", "message": "two\nlines"},
      {"rule": "true ==\ntrue"},
      {"rule": "true", "messageExpression": "  "},
      {"rule": "true", "fieldPath": ".nope"},
      {"rule": "true", "fieldPath": " "}]})");
  std::vector<std::pair<std::string, std::string>> want = {
      {"p.x-kubernetes-validations[0].rule", "Required value: rule is not specified"},
      {"p.x-kubernetes-validations[1].reason",
       "Unsupported value: \"FieldValueBogus\": supported values: \"FieldValueDuplicate\", "
       "\"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\""},
      {"p.x-kubernetes-validations[2].message",
       "Invalid value: \" \": message must be non-empty if specified"},
      {"p.x-kubernetes-validations[3].message",
       "Invalid value: \"two\\nlines\": message must not contain line breaks"},
      {"p.x-kubernetes-validations[4].message",
       "Required value: message must be specified if rule contains line breaks"},
      {"p.x-kubernetes-validations[5].messageExpression",
       "Required value: messageExpression must be non-empty if specified"},
      {"p.x-kubernetes-validations[6].fieldPath",
       "Invalid value: \".nope\": fieldPath must be a valid path"},
      {"p.x-kubernetes-validations[7].fieldPath",
       "Invalid value: \" \": fieldPath must be non-empty if specified"},
      {"p.x-kubernetes-validations[7].fieldPath",
       "Invalid value: \" \": fieldPath must be a valid path"}};
  ASSERT_EQ(out.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(out[i].field, want[i].first) << i;
    EXPECT_EQ(out[i].message, want[i].second) << i;
  }
}

const char* kTyped = R"({"type": "object", "properties": {
    "replicas": {"type": "integer"}, "ratio": {"type": "number"},
    "tags": {"type": "array", "items": {"type": "string"}},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "port": {"x-kubernetes-int-or-string": true},
    "x-name": {"type": "string"}, "namespace": {"type": "string"},
    "spec": {"type": "object", "properties": {"name": {"type": "string"}}}},
  "x-kubernetes-validations": [{"rule": "RULE", "messageExpression": "MESSAGE",
                                "fieldPath": ".spec.name"}]})";

std::vector<FieldCause> typed_check(const std::string& rule, const std::string& message = "'m'",
                                    bool root = false) {
  std::string node = kTyped;
  node.replace(node.find("RULE"), 4, rule);
  node.replace(node.find("MESSAGE"), 7, message);
  return checked(node, root);
}

std::string go_rule(const std::string& rule, const std::string& message) {
  return "apiextensions.ValidationRule{Rule:\"" + rule + "\", Message:\"\", MessageExpression:\"" +
         message +
         "\", Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:\".spec.name\", "
         "OptionalOldSelf:(*bool)(nil)}";
}

TEST(CrdRules, RulesAreTypeCheckedAgainstTheSchema) {
  for (const char* ok :
       {"self.replicas > 1", "self.ratio > 0.5", "self.tags.all(t, t.size() < 5)",
        "self.labels.x == 'y'", "self.port == 80 || self.port == 'http'",
        "self.x__dash__name.startsWith('a')", "self.__namespace__ == 'n'", "has(self.spec.name)",
        "self.tags.isSorted() && self.tags.indexOf('a') < 1",
        "type(self.port) == string ? self.port.endsWith('%') : self.port < 100",
        "type(self.port) != string || quantity(self.port).isLessThan(quantity('1Gi'))"}) {
    EXPECT_TRUE(typed_check(ok).empty()) << ok << ": " << typed_check(ok)[0].message;
  }
  std::vector<FieldCause> out = typed_check("self.replicas > 'a'");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].field, "p.x-kubernetes-validations[0].rule");
  EXPECT_EQ(out[0].message,
            "Invalid value: " + go_rule("self.replicas > 'a'", "'m'") +
                ": compilation failed: ERROR: <input>:1:15: found no matching overload for '_>_' "
                "applied to '(int, string)'\n | self.replicas > 'a'\n | ..............^");
  for (const auto& [rule, error] : std::vector<std::pair<std::string, std::string>>{
           {"self.nope == 1", "ERROR: <input>:1:5: undefined field 'nope'"},
           {"self.ratio == 1",
            "ERROR: <input>:1:12: found no matching overload for '_==_' applied to '(double, "
            "int)'"},
           {"self.metadata.name == 'a'", "ERROR: <input>:1:5: undefined field 'metadata'"}}) {
    out = typed_check(rule);
    ASSERT_EQ(out.size(), 1u) << rule;
    EXPECT_NE(out[0].message.find(": compilation failed: " + error + "\n"), std::string::npos)
        << out[0].message;
  }
  // At a resource's root apiVersion, kind and metadata.name are there whatever the schema says.
  EXPECT_TRUE(
      typed_check("self.metadata.name.startsWith('a') && self.kind != ''", "'m'", true).empty());
  out = typed_check("self.replicas");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "Invalid value: " + go_rule("self.replicas", "'m'") +
                                ": cel expression must evaluate to a bool");
  out = typed_check("true", "self.replicas");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].field, "p.x-kubernetes-validations[0].messageExpression");
  EXPECT_EQ(out[0].message, "Invalid value: " + go_rule("true", "self.replicas") +
                                ": messageExpression must evaluate to a string");
  out = typed_check("true", "'a' +");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message.rfind("Invalid value: " + go_rule("true", "'a' +") +
                                     ": messageExpression compilation failed: ERROR: <input>:1:6: "
                                     "Syntax error: mismatched input <EOF>",
                                 0),
            0u)
      << out[0].message;
}

TEST(CrdRules, EscapedPropertyNamesReachTheirValues) {
  bj::object schema = bj::parse(R"({"type": "object", "properties": {
      "x-name": {"type": "string"}, "namespace": {"type": "string"}},
    "x-kubernetes-validations": [{"rule": "self.x__dash__name == self.__namespace__"}]})")
                          .as_object();
  std::vector<FieldCause> out;
  append_rule_violations(out, bj::parse(R"({"x-name": "a", "namespace": "a"})").as_object(),
                         nullptr, schema);
  EXPECT_TRUE(out.empty());
  append_rule_violations(out, bj::parse(R"({"x-name": "a", "namespace": "b"})").as_object(),
                         nullptr, schema);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "Invalid value: failed rule: self.x__dash__name == self.__namespace__");
}

// Items of atomic and set lists have no old value: a transition rule under them is refused when
// the CRD is written (the outermost such list named); under map lists it is allowed.
TEST(CrdRules, TransitionRulesUnderUncorrelatableListItemsAreRefused) {
  auto schema = [](const std::string& list_type) {
    return bj::parse(R"({"type": "object", "properties": {"tags": {"type": "array", )" + list_type +
                     R"("items": {"type": "object", "properties": {"name": {"type": "string"}},
          "x-kubernetes-validations": [{"rule": "self.name == oldSelf.name"}]}}}})");
  };
  std::vector<FieldCause> out = structural_errors(schema(""), "s");
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].field, "s.properties[tags].items.x-kubernetes-validations[0].rule");
  EXPECT_EQ(out[0].message,
            "Invalid value: \"self.name == oldSelf.name\": oldSelf cannot be used on the "
            "uncorrelatable portion of the schema within s.properties[tags]");
  EXPECT_TRUE(structural_errors(schema(R"("x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"], )"),
                                "s")
                  .empty());
}

// As kube-apiserver: the schema's errors first, then the rules' compilation errors, and a node's
// rules are not compiled when the node or anything under it has a schema error.
TEST(CrdRules, RulesAreCompiledOnlyWhereTheSchemaIsSound) {
  std::vector<FieldCause> out = structural_errors(bj::parse(R"({"type": "object",
      "x-kubernetes-validations": [{"rule": "self.nope"}],
      "properties": {
        "b": {"type": "integer", "x-kubernetes-validations": [{"rule": "self > 'x'"}]},
        "a": {"type": "strin"}}})"),
                                                  "s");
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].field, "s.properties[a].type");
  EXPECT_EQ(out[0].reason, "FieldValueNotSupported");
  EXPECT_EQ(out[1].field, "s.properties[b].x-kubernetes-validations[0].rule");
  EXPECT_NE(out[1].message.find("found no matching overload for '_>_' applied to '(int, string)'"),
            std::string::npos)
      << out[1].message;
}

}  // namespace
}  // namespace tailor::embedded::crd
