// Issue 15: an invalid VerticalScalingPolicy is refused by `tailor cluster up`'s API server with
// the chart CRD's x-kubernetes-validations rule (exactly one of targetRef and selector), in
// kube-apiserver 1.35's words (no value shown for a rule on an object: kubernetes#133832; before
// it, the schema type: `Invalid value: "object": ...`), through the real kubectl, and nothing is
// stored.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {
namespace {

std::string policy(const std::string& name, const std::string& spec) {
  return "apiVersion: autoscaling.tailor.dev/v1alpha1\nkind: VerticalScalingPolicy\n"
         "metadata: {name: " +
         name + "}\nspec:\n" + spec;
}

TEST(PolicyValidation, BothOrNeitherOfTargetRefAndSelectorIsRefusedWithTheCrdRulesMessage) {
  TestNamespace ns("e2e-policy-rule");
  const std::string target_ref = "  targetRef: {apiVersion: apps/v1, kind: Deployment, name: x}\n";
  const std::string selector = "  selector: {matchLabels: {app: x}}\n";
  for (const auto& [name, spec] :
       {std::pair<std::string, std::string>{"both", target_ref + selector},
        {"neither", "  updatePolicy: {mode: \"Off\"}\n"}}) {
    const CommandResult r = ns.try_apply(policy(name, spec));
    EXPECT_EQ(r.exit_code, 1) << name << ": " << r.out;
    EXPECT_EQ(r.err, "The VerticalScalingPolicy \"" + name +
                         "\" is invalid: spec: Invalid value: exactly one of targetRef and "
                         "selector must be set\n");
    const CommandResult get = ns.kubectl("get vsp " + name);
    EXPECT_NE(get.exit_code, 0) << name << " was stored: " << get.out;
    EXPECT_NE(get.err.find("NotFound"), std::string::npos) << get.err;
  }
  // A valid one is stored: the refusals were the rule's, not the API server's at large.
  const CommandResult ok = ns.try_apply(policy("one", target_ref));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ns.kubectl("get vsp -o name").out,
            "verticalscalingpolicy.autoscaling.tailor.dev/one\n");
}

}  // namespace
}  // namespace tailor::e2e
