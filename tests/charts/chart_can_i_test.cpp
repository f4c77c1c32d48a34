// `kubectl auth can-i --as=system:serviceaccount:kube-system:<chart ServiceAccount>` against
// tailor-cluster with the chart's RBAC applied (issue 17): yes for every call charts/api-calls.yaml
// lists for the values, no for every other verb on the same resources and for what Tailor never
// needs (Secrets, creating pods), so the chart as applied — not only as rendered — is the least
// privilege the calls need.
#include <gtest/gtest.h>

#include <map>

#include "tests/charts/api_calls.h"
#include "tests/charts/chart_files.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::charts {
namespace {

constexpr const char* kValues =
    "controller: {watchVPA: true, metricsSource: metrics-api}\nnodeAgent: {actuation: agent}\n";
const char* const kVerbs[] = {"get", "list", "watch", "create", "update", "patch", "delete"};

std::string user_of(const std::string& binary) {
  return "system:serviceaccount:kube-system:tailor-" + binary;
}

// kubectl's resource argument: "resource.group" (core: "resource"), "/name" when named.
std::string resource_arg(const std::string& group, const std::string& resource,
                         const std::string& name) {
  const std::string base = resource.substr(0, resource.find('/'));
  return (group.empty() ? base : base + "." + group) + (name.empty() ? "" : "/" + name);
}

// A CRD for a type the chart grants that no one else installs here (VPA's, metrics-server's
// PodMetrics): kubectl asks about a type discovery does not know without its group.
std::string stand_in_crd(const std::string& group, const std::string& plural,
                         const std::string& kind) {
  return "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: " +
         plural + "." + group + "}\nspec:\n  group: " + group +
         "\n  scope: Namespaced\n  names: {kind: " + kind + ", plural: " + plural +
         "}\n  versions:\n  - name: v1\n    served: true\n    storage: true\n"
         "    subresources: {status: {}}\n"
         "    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: "
         "true}}\n";
}

std::string subresource_flag(const std::string& resource) {
  const auto slash = resource.find('/');
  return slash == std::string::npos ? "" : " --subresource=" + resource.substr(slash + 1);
}

std::string scope_flag(const std::string& scope) {
  if (scope == "cluster") return " --all-namespaces";
  return " -n " + (scope == "release" ? std::string("kube-system") : scope);
}

class ChartCanITest : public embedded::testing::ApiOnlyKubectlTest {
 protected:
  void SetUp() override {
    embedded::testing::ApiOnlyKubectlTest::SetUp();
    std::string crds;
    for (const auto& file : chart_files("crds", ".yaml")) crds += "---\n" + read_file(file) + "\n";
    crds += "---\n" +
            stand_in_crd("autoscaling.k8s.io", "verticalpodautoscalers", "VerticalPodAutoscaler");
    crds += "---\n" + stand_in_crd("autoscaling.k8s.io", "verticalpodautoscalercheckpoints",
                                   "VerticalPodAutoscalerCheckpoint");
    crds += "---\n" + stand_in_crd("metrics.k8s.io", "pods", "PodMetrics");
    const auto r = kubectl("apply -f " + write("crds.yaml", crds));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto established = kubectl("wait --for=condition=Established --timeout=30s crd --all");
    ASSERT_EQ(established.exit_code, 0) << established.err;
  }

  void apply_chart_rbac(const std::string& values = kValues) {
    static const std::set<std::string> kKinds = {"ServiceAccount", "ClusterRole",
                                                 "ClusterRoleBinding", "Role", "RoleBinding"};
    std::string rbac;
    for (const auto& doc : render_documents(values)) {
      if (kKinds.count(doc.node["kind"].as<std::string>(""))) rbac += "---\n" + doc.text + "\n";
    }
    const auto r = kubectl("apply -f " + write("rbac.yaml", rbac));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  // "yes" or "no" (kubectl exits 1 for no; a warning about an unserved type goes to stderr).
  std::string can_i(const std::string& binary, const std::string& question) {
    const auto r = kubectl("auth can-i --as=" + user_of(binary) + " " + question);
    std::string out = r.out;
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return out;
  }
};

TEST_F(ChartCanITest, ServiceAccountsMayMakeExactlyTheListedCalls) {
  apply_chart_rbac();
  const auto calls = load_api_calls(chart_dir().parent_path() / "api-calls.yaml");
  const YAML::Node overrides = YAML::Load(kValues);
  int asked = 0;
  for (const ApiCall& c : calls) {
    if (!chart_grants(c, chart_values(), overrides)) continue;
    const std::string where = subresource_flag(c.resource) + scope_flag(c.scope);
    const std::string name = c.names.empty() ? "" : c.names[0];
    for (const char* verb : kVerbs) {
      const bool listed = contains(c.verbs, verb);
      // A verb another entry lists for the same resource is that entry's to check.
      bool elsewhere = false;
      for (const ApiCall& o : calls) {
        elsewhere |= &o != &c && o.binary == c.binary && o.group == c.group &&
                     o.resource == c.resource && contains(o.verbs, verb) &&
                     chart_grants(o, chart_values(), overrides);
      }
      if (!listed && elsewhere) continue;
      const std::string question =
          std::string(verb) + " " + resource_arg(c.group, c.resource, name) + where;
      EXPECT_EQ(can_i(c.binary, question), listed ? "yes" : "no") << c.binary << ": " << question;
      ++asked;
    }
  }
  EXPECT_GT(asked, 150);
}

TEST_F(ChartCanITest, NeitherMayTouchWhatTailorNeverNeeds) {
  apply_chart_rbac();
  for (const char* binary : {"controller", "node-agent"}) {
    SCOPED_TRACE(binary);
    EXPECT_EQ(can_i(binary, "list secrets --all-namespaces"), "no");
    EXPECT_EQ(can_i(binary, "create pods --all-namespaces"), "no");
    EXPECT_EQ(can_i(binary, "update pods --all-namespaces"), "no");
    EXPECT_EQ(can_i(binary, "create clusterrolebindings"), "no");
    EXPECT_EQ(can_i(binary, "patch deployments.apps --all-namespaces"), "no");
  }
  // The agent in agent actuation reads a secret a pod of its node mounts, as a kubelet does (the
  // Node authorizer's narrowing is not RBAC's to express); the controller never reads one.
  EXPECT_EQ(can_i("controller", "get secrets -n kube-system"), "no");
  EXPECT_EQ(can_i("controller", "delete pods --all-namespaces"), "no");
  EXPECT_EQ(can_i("controller", "get configmaps/other -n kube-system"), "no");
  EXPECT_EQ(can_i("node-agent", "create leases.coordination.k8s.io -n kube-system"), "no");
}

// With values.yaml as it is (kubelet actuation, no VPA objects), the agent may only watch pods
// and the controller may not patch pods (only pods/resize).
TEST_F(ChartCanITest, DefaultValuesGrantLess) {
  apply_chart_rbac("");
  EXPECT_EQ(can_i("controller", "patch pods --all-namespaces"), "no");
  EXPECT_EQ(can_i("controller", "patch pods --subresource=resize --all-namespaces"), "yes");
  EXPECT_EQ(can_i("node-agent", "watch pods --all-namespaces"), "yes");
  EXPECT_EQ(can_i("node-agent", "patch pods --subresource=status --all-namespaces"), "no");
  EXPECT_EQ(can_i("node-agent", "delete pods --all-namespaces"), "no");
  EXPECT_EQ(can_i("node-agent", "create events --all-namespaces"), "no");
}

}  // namespace
}  // namespace tailor::charts
