// The pure parts of api_calls.h: which calls a choice of values turns on, and where they land.
#include "tests/charts/api_calls.h"

#include <gtest/gtest.h>

namespace tailor::charts {
namespace {

const char* const kTable = R"(
controller:
  - {group: "", resource: pods/resize, verbs: [patch], scope: cluster}
  - {group: "", resource: pods, verbs: [patch], scope: cluster, when: {controller.watchVPA: true}}
  - {group: coordination.k8s.io, resource: leases, names: [me], verbs: [get, update], scope: release}
  - {group: admissionregistration.k8s.io, resource: mutatingwebhookconfigurations, verbs: [create], scope: cluster, when: {flag: --webhook-register}, unexercised: why}
node-agent:
  - {group: coordination.k8s.io, resource: leases, verbs: [create], scope: kube-node-lease}
)";

TEST(ApiCallsTest, ParsesEveryField) {
  const auto calls = parse_api_calls(YAML::Load(kTable));
  ASSERT_EQ(calls.size(), 5u);
  EXPECT_EQ(calls[2].names, std::vector<std::string>{"me"});
  EXPECT_EQ(calls[1].when.at("controller.watchVPA"), "true");
  EXPECT_EQ(calls[3].unexercised, "why");
  EXPECT_EQ(calls[4].binary, "node-agent");
}

TEST(ApiCallsTest, UnknownKeysAreRefused) {
  EXPECT_THROW(parse_api_calls(YAML::Load(
                   "controller:\n  - {group: \"\", resource: pods, verbs: [list], scope: cluster, "
                   "code: a.cpp, b.cpp (informer)}\n")),
               std::runtime_error);
}

TEST(ApiCallsTest, ValuesOverDefaultsTurnCallsOnAndFlagsNever) {
  const auto calls = parse_api_calls(YAML::Load(kTable));
  const YAML::Node defaults = YAML::Load("controller: {watchVPA: false}");
  EXPECT_TRUE(chart_grants(calls[0], defaults, YAML::Node()));
  EXPECT_FALSE(chart_grants(calls[1], defaults, YAML::Node()));
  EXPECT_TRUE(chart_grants(calls[1], defaults, YAML::Load("controller: {watchVPA: true}")));
  EXPECT_FALSE(chart_grants(calls[3], defaults, YAML::Load("flag: --webhook-register")));
}

TEST(ApiCallsTest, GrantsLandInTheRoleOfTheirScope) {
  const auto calls = parse_api_calls(YAML::Load(kTable));
  const YAML::Node defaults = YAML::Load("controller: {watchVPA: true}");
  EXPECT_EQ(
      expected_grants(calls, "controller", defaults, YAML::Node(), "kube-system"),
      (Grants{{"ClusterRole", {"/pods/resize:patch", "/pods:patch"}},
              {"Role/kube-system",
               {"coordination.k8s.io/leases#me:get", "coordination.k8s.io/leases#me:update"}}}));
  EXPECT_EQ(expected_grants(calls, "node-agent", defaults, YAML::Node(), "tailor"),
            (Grants{{"Role/kube-node-lease", {"coordination.k8s.io/leases:create"}}}));
}

TEST(ApiCallsTest, RoleGrantsExpandEveryRule) {
  const YAML::Node role = YAML::Load(R"(
rules:
  - {apiGroups: ["", apps], resources: [pods, deployments], verbs: [list]}
  - {apiGroups: [""], resources: [configmaps], resourceNames: [a], verbs: [get]}
)");
  EXPECT_EQ(role_grants(role),
            (std::set<std::string>{"/pods:list", "/deployments:list", "apps/pods:list",
                                   "apps/deployments:list", "/configmaps#a:get"}));
}

TEST(ApiCallsTest, CoversRequestsByGroupResourceVerbScopeAndName) {
  const auto calls = parse_api_calls(YAML::Load(kTable));
  EXPECT_TRUE(covers(calls[0], {"patch", "", "pods/resize", "default", "web-1"}, "kube-system"));
  EXPECT_FALSE(covers(calls[0], {"patch", "", "pods", "default", "web-1"}, "kube-system"));
  EXPECT_FALSE(covers(calls[0], {"update", "", "pods/resize", "default", "web-1"}, "kube-system"));
  EXPECT_TRUE(covers(calls[2], {"get", "coordination.k8s.io", "leases", "tailor", "me"}, "tailor"));
  EXPECT_FALSE(
      covers(calls[2], {"get", "coordination.k8s.io", "leases", "kube-system", "me"}, "tailor"));
  EXPECT_FALSE(
      covers(calls[2], {"get", "coordination.k8s.io", "leases", "tailor", "other"}, "tailor"));
  EXPECT_TRUE(covers(calls[4], {"create", "coordination.k8s.io", "leases", "kube-node-lease", ""},
                     "kube-system"));
  EXPECT_FALSE(
      covers(calls[4], {"create", "coordination.k8s.io", "leases", "default", ""}, "kube-system"));
}

}  // namespace
}  // namespace tailor::charts
