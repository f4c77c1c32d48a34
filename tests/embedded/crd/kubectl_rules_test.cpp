// x-kubernetes-validations through the real kubectl: the chart's VerticalScalingPolicy CRD and its
// rule (exactly one of targetRef and selector), a transition rule that runs only on updates, a
// CRD whose rule does not compile or type-check refused when it is written, and ratcheting.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

std::string chart_crd() {
  std::ifstream in(std::string(TAILOR_SOURCE_DIR) +
                   "/charts/tailor/crds/verticalscalingpolicies.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string policy(const std::string& name, const std::string& spec) {
  return "apiVersion: autoscaling.tailor.dev/v1alpha1\nkind: VerticalScalingPolicy\n"
         "metadata: {name: " +
         name + "}\nspec:\n" + spec;
}

const char* kTargetRef = "  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n";
const char* kSelector = "  selector: {matchLabels: {app: web}}\n";

class KubectlRulesTest : public KubectlClusterTest {
 protected:
  KubectlResult apply(const std::string& name, const std::string& yaml) {
    write(name + ".yaml", yaml);
    return kubectl("apply -f " + name + ".yaml");
  }
};

TEST_F(KubectlRulesTest, ChartRuleRefusesBothOrNeitherAndStoresOne) {
  ASSERT_FALSE(chart_crd().empty());
  write("crd.yaml", chart_crd());
  KubectlResult crd = kubectl("apply -f crd.yaml");
  ASSERT_EQ(crd.exit_code, 0) << crd.err;
  const std::string message =
      "spec: Invalid value: exactly one of targetRef and selector must be set";
  for (const auto& [name, spec] :
       {std::pair<std::string, std::string>{"both", std::string(kTargetRef) + kSelector},
        {"neither", "  updatePolicy: {mode: \"Off\"}\n"}}) {
    KubectlResult r = apply(name, policy(name, spec));
    EXPECT_NE(r.exit_code, 0) << name;
    EXPECT_EQ(r.err, "The VerticalScalingPolicy \"" + name + "\" is invalid: " + message + "\n");
    EXPECT_NE(kubectl("get vsp " + name).exit_code, 0) << name << " was stored";
  }
  for (const auto& [name, spec] :
       {std::pair<std::string, std::string>{"by-ref", kTargetRef}, {"by-labels", kSelector}}) {
    KubectlResult r = apply(name, policy(name, spec));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "verticalscalingpolicy.autoscaling.tailor.dev/" + name + " created\n");
  }
  // An update that breaks the rule is refused too, and the stored object stays as it was.
  KubectlResult broken = apply("by-ref", policy("by-ref", std::string(kTargetRef) + kSelector));
  EXPECT_NE(broken.exit_code, 0);
  EXPECT_NE(broken.err.find(message), std::string::npos) << broken.err;
  EXPECT_EQ(kubectl("get vsp by-ref -o jsonpath={.spec.selector}").out, "");
}

// startupBoost.cpu (issue 18): the chart carries VPA's union rules; the API server refuses what
// policy::validate refuses, in the same words, on the spec and in a container policy.
TEST_F(KubectlRulesTest, ChartStartupBoostRulesRefuseWhatTheControllerRefuses) {
  write("crd.yaml", chart_crd());
  ASSERT_EQ(kubectl("apply -f crd.yaml").exit_code, 0);
  const std::string factor_rule =
      "Invalid value: factor is required when type is Factor and forbidden otherwise";
  const std::string quantity_rule =
      "Invalid value: quantity is required when type is Quantity and forbidden otherwise";
  for (const auto& [name, boost, message] :
       {std::tuple<std::string, std::string, std::string>{"no-factor", "{type: Factor}",
                                                          "spec.startupBoost.cpu: " + factor_rule},
        {"both", "{type: Quantity, quantity: \"2\", factor: 2}",
         "spec.startupBoost.cpu: " + factor_rule},
        {"no-quantity", "{type: Quantity}", "spec.startupBoost.cpu: " + quantity_rule}}) {
    KubectlResult r = apply(
        name, policy(name, std::string(kTargetRef) + "  startupBoost: {cpu: " + boost + "}\n"));
    EXPECT_NE(r.exit_code, 0) << name;
    EXPECT_NE(r.err.find(message), std::string::npos) << name << ": " << r.err;
  }
  KubectlResult per_container = apply(
      "container", policy("container", std::string(kTargetRef) +
                                           "  resourcePolicy: {containerPolicies: [{containerName: "
                                           "app, startupBoost: {cpu: {type: Factor}}}]}\n"));
  EXPECT_NE(per_container.err.find("spec.resourcePolicy.containerPolicies[0].startupBoost.cpu: " +
                                   factor_rule),
            std::string::npos)
      << per_container.err;
  KubectlResult ok = apply(
      "ok",
      policy("ok", std::string(kTargetRef) + "  startupBoost: {cpu: {type: Factor, factor: 3}}\n"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  // The CRD's default: durationSeconds 0.
  EXPECT_EQ(kubectl("get vsp ok -o jsonpath={.spec.startupBoost.cpu.durationSeconds}").out, "0");
}

const char* kRulesCrd = R"yaml(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.replicas <= self.maxReplicas
              messageExpression: "'replicas ' + string(self.replicas) + ' above ' + string(self.maxReplicas)"
            - rule: self.name.startsWith('w')
              reason: FieldValueForbidden
              fieldPath: .name
            properties:
              replicas: {type: integer}
              maxReplicas: {type: integer}
              name:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: name is immutable
              tags:
                type: array
                items: {type: string}
                x-kubernetes-validations:
                - rule: self.all(t, t.size() <= 5)
)yaml";

std::string widget(const std::string& spec) {
  return "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1}\nspec: " + spec + "\n";
}

TEST_F(KubectlRulesTest, MessagesReasonsFieldPathsAndTransitionRules) {
  write("crd.yaml", kRulesCrd);
  KubectlResult crd = kubectl("apply -f crd.yaml");
  ASSERT_EQ(crd.exit_code, 0) << crd.err;
  KubectlResult bad =
      apply("w1", widget("{replicas: 5, maxReplicas: 3, name: x, tags: [toolong]}"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_EQ(bad.err,
            "The Widget \"w1\" is invalid: \n"
            "* spec: Invalid value: replicas 5 above 3\n"
            "* spec.name: Forbidden: failed rule: self.name.startsWith('w')\n"
            "* spec.tags: Invalid value: failed rule: self.all(t, t.size() <= 5)\n");
  KubectlResult good = apply("w1", widget("{replicas: 1, maxReplicas: 3, name: web}"));
  ASSERT_EQ(good.exit_code, 0) << good.err;  // the transition rule does not run on create
  KubectlResult renamed = apply("w1", widget("{replicas: 1, maxReplicas: 3, name: wheel}"));
  EXPECT_NE(renamed.exit_code, 0);
  EXPECT_EQ(renamed.err,
            "The Widget \"w1\" is invalid: spec.name: Invalid value: \"wheel\": name is "
            "immutable\n");
}

TEST_F(KubectlRulesTest, RuleThatDoesNotCompileRefusesTheCrd) {
  std::string crd = kRulesCrd;
  crd.replace(crd.find("self.replicas <= self.maxReplicas"), 33, "self.replicas <=");
  write("crd.yaml", crd);
  KubectlResult r = kubectl("apply -f crd.yaml");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("spec.versions[0].schema.openAPIV3Schema.properties[spec]"
                       ".x-kubernetes-validations[0].rule: Invalid value: "
                       "apiextensions.ValidationRule{Rule:\"self.replicas <=\", Message:\"\", "
                       "MessageExpression:"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(": compilation failed: ERROR: <input>:1:17: Syntax error: mismatched input "
                       "<EOF>"),
            std::string::npos)
      << r.err;
  EXPECT_NE(kubectl("get crd widgets.example.com").exit_code, 0);
}

// Rules are type-checked against the schema when the CRD is written, as kube-apiserver compiles
// them: a comparison of an integer with a string, a field the schema does not declare, a rule
// that is no bool.
TEST_F(KubectlRulesTest, RuleThatDoesNotTypeCheckRefusesTheCrd) {
  const std::string prefix =
      "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: "
      "Invalid value: apiextensions.ValidationRule{Rule:\"";
  for (const auto& [rule, error] : std::vector<std::pair<std::string, std::string>>{
           {"self.replicas <= 'three'",
            "compilation failed: ERROR: <input>:1:15: found no matching overload for '_<=_' "
            "applied to '(int, string)'\n | self.replicas <= 'three'\n | ..............^"},
           {"self.replicaz <= 3",
            "compilation failed: ERROR: <input>:1:5: undefined field 'replicaz'\n"
            " | self.replicaz <= 3\n | ....^"},
           {"self.replicas", "cel expression must evaluate to a bool"}}) {
    std::string crd = kRulesCrd;
    crd.replace(crd.find("self.replicas <= self.maxReplicas"), 33, rule);
    write("crd.yaml", crd);
    KubectlResult r = kubectl("apply -f crd.yaml");
    EXPECT_NE(r.exit_code, 0) << rule;
    EXPECT_NE(r.err.find(prefix + rule + "\", Message:\"\", MessageExpression:"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("OptionalOldSelf:(*bool)(nil)}: " + error), std::string::npos) << r.err;
    EXPECT_NE(kubectl("get crd widgets.example.com").exit_code, 0) << rule;
  }
}

// Validation ratcheting: a rule added to the CRD later does not refuse updates that leave the value
// it judges as it was; a change of that value is judged.
TEST_F(KubectlRulesTest, UnchangedValuesAreRatchetedWhenTheRulesTighten) {
  write("crd.yaml", kRulesCrd);
  ASSERT_EQ(kubectl("apply -f crd.yaml").exit_code, 0);
  ASSERT_EQ(apply("w1", widget("{replicas: 3, maxReplicas: 5, name: web}")).exit_code, 0);
  std::string tight = kRulesCrd;
  tight.replace(tight.find("replicas: {type: integer}"), 25,
                "replicas: {type: integer, x-kubernetes-validations: [{rule: 'self < 2', message: "
                "at most one replica}]}");
  write("crd.yaml", tight);
  KubectlResult crd = kubectl("apply -f crd.yaml");
  ASSERT_EQ(crd.exit_code, 0) << crd.err;
  KubectlResult other = apply("w1", widget("{replicas: 3, maxReplicas: 6, name: web}"));
  EXPECT_EQ(other.exit_code, 0) << other.err;
  KubectlResult changed = apply("w1", widget("{replicas: 4, maxReplicas: 6, name: web}"));
  EXPECT_NE(changed.exit_code, 0);
  EXPECT_EQ(changed.err,
            "The Widget \"w1\" is invalid: spec.replicas: Invalid value: 4: at most one replica\n");
}

}  // namespace
}  // namespace tailor::embedded::testing
