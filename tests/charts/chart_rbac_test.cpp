// The chart's RBAC against charts/api-calls.yaml, the calls the processes make: under each
// documented choice of values, the controller's and the agent's roles grant exactly the listed
// calls that choice turns on — a call no role grants fails (the process would get 403), and so
// does a grant no call uses (least privilege).
#include <gtest/gtest.h>

#include "tests/charts/api_calls.h"
#include "tests/charts/chart_files.h"

namespace tailor::charts {
namespace {

const std::vector<ApiCall>& calls() {
  static const std::vector<ApiCall> all =
      load_api_calls(chart_dir().parent_path() / "api-calls.yaml");
  return all;
}

// The roles rendered for a component: "ClusterRole" or "Role/<namespace>" -> what they grant.
Grants rendered_grants(const std::vector<RenderedDocument>& documents,
                       const std::string& component) {
  Grants out;
  for (const auto& doc : documents) {
    const std::string kind = doc.node["kind"].as<std::string>("");
    if (kind != "ClusterRole" && kind != "Role") continue;
    const YAML::Node meta = doc.node["metadata"];
    if (meta["labels"]["app.kubernetes.io/component"].as<std::string>("") != component) continue;
    const std::string role = kind == "Role" ? "Role/" + meta["namespace"].as<std::string>() : kind;
    for (const std::string& key : role_grants(doc.node)) out[role].insert(key);
  }
  return out;
}

// Each choice of values that turns RBAC rules on or off.
const char* const kValueChoices[] = {
    "",
    "controller: {watchVPA: true}",
    "controller: {metricsSource: metrics-api}",
    "nodeAgent: {actuation: agent}",
    "controller: {watchVPA: true, metricsSource: metrics-api, leaderElection: false}\n"
    "nodeAgent: {actuation: agent}",
};

TEST(ChartRbacTest, RolesGrantExactlyTheCallsTheValuesTurnOn) {
  ASSERT_FALSE(calls().empty());
  for (const char* values : kValueChoices) {
    SCOPED_TRACE(std::string("values: ") + values);
    const auto documents = render_documents(values);
    const YAML::Node overrides = YAML::Load(values);
    for (const char* binary : {"controller", "node-agent"}) {
      SCOPED_TRACE(binary);
      EXPECT_EQ(rendered_grants(documents, binary),
                expected_grants(calls(), binary, chart_values(), overrides, "kube-system"));
    }
  }
}

// Every role and Role the chart renders is bound to its process's ServiceAccount, in the
// namespace the role lives in.
TEST(ChartRbacTest, EveryRoleIsBoundToItsServiceAccount) {
  const auto documents = render_documents("nodeAgent: {actuation: agent}");
  int roles = 0;
  for (const auto& doc : documents) {
    const std::string kind = doc.node["kind"].as<std::string>("");
    if (kind != "ClusterRole" && kind != "Role") continue;
    ++roles;
    const YAML::Node meta = doc.node["metadata"];
    const std::string binding_kind = kind == "Role" ? "RoleBinding" : "ClusterRoleBinding";
    int bound = 0;
    for (const auto& b : documents) {
      if (b.node["kind"].as<std::string>("") != binding_kind) continue;
      if (b.node["roleRef"]["name"].as<std::string>() != meta["name"].as<std::string>()) continue;
      if (kind == "Role" && b.node["metadata"]["namespace"].as<std::string>() !=
                                meta["namespace"].as<std::string>()) {
        continue;
      }
      EXPECT_EQ(b.node["subjects"][0]["name"].as<std::string>(), meta["name"].as<std::string>());
      EXPECT_EQ(b.node["subjects"][0]["namespace"].as<std::string>(), "kube-system");
      ++bound;
    }
    EXPECT_EQ(bound, 1) << kind << " " << meta["name"].as<std::string>();
  }
  // Each process's ClusterRole, the controller's Role, the agents' lease Role and their Role
  // reading the `kubernetes` Service in default.
  EXPECT_EQ(roles, 5);
}

}  // namespace
}  // namespace tailor::charts
