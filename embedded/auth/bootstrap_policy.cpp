#include "embedded/auth/bootstrap_policy.h"

#include <boost/json.hpp>

#include "embedded/auth/rbac_rules.h"
#include "embedded/auth/stored_objects.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

using Labels = std::vector<std::pair<std::string, std::string>>;

const std::vector<std::string> kRead = {"get", "list", "watch"};
const std::vector<std::string> kWrite = {"create", "delete", "deletecollection", "patch", "update"};

bj::object metadata_of(const std::string& name, const Labels& labels) {
  bj::object l{{"kubernetes.io/bootstrapping", "rbac-defaults"}};
  for (const auto& [k, v] : labels) l[k] = v;
  return {{"name", name},
          {"labels", std::move(l)},
          {"annotations", bj::object{{"rbac.authorization.kubernetes.io/autoupdate", "true"}}}};
}

bj::object cluster_role(const std::string& name, const std::vector<PolicyRule>& rules,
                        const Labels& labels = {}) {
  bj::array r;
  for (const PolicyRule& rule : rules) r.push_back(rule_json(rule));
  return {{"metadata", metadata_of(name, labels)}, {"rules", std::move(r)}};
}

std::string aggregate_label(const std::string& role) {
  return "rbac.authorization.k8s.io/aggregate-to-" + role;
}

bj::object aggregated_role(const std::string& name) {
  bj::object role{{"metadata", metadata_of(name, {})}, {"rules", bj::array{}}};
  role["aggregationRule"] = bj::object{
      {"clusterRoleSelectors",
       bj::array{bj::object{{"matchLabels", bj::object{{aggregate_label(name), "true"}}}}}}};
  return role;
}

bj::object binding(const std::string& name, const std::string& role,
                   const std::vector<std::string>& groups) {
  bj::array subjects;
  for (const std::string& g : groups) {
    subjects.push_back(bj::object{{"kind", "Group"}, {"apiGroup", kRbacGroup}, {"name", g}});
  }
  return {
      {"metadata", metadata_of(name, {})},
      {"roleRef", bj::object{{"apiGroup", kRbacGroup}, {"kind", "ClusterRole"}, {"name", role}}},
      {"subjects", std::move(subjects)}};
}

PolicyRule rule(std::vector<std::string> verbs, std::string group,
                std::vector<std::string> resources) {
  return {.verbs = std::move(verbs),
          .api_groups = {std::move(group)},
          .resources = std::move(resources)};
}

// What namespaced users read and write among the resources tailor-cluster serves.
const std::vector<std::string> kCoreWorkload = {
    "pods",   "configmaps",     "services",    "serviceaccounts",        "persistentvolumeclaims",
    "events", "resourcequotas", "limitranges", "replicationcontrollers", "endpoints"};
const std::vector<std::string> kApps = {
    "deployments",       "replicasets",       "statefulsets",      "daemonsets",
    "deployments/scale", "replicasets/scale", "statefulsets/scale"};

std::vector<bj::object> cluster_roles() {
  const std::vector<std::string> status = {"pods/status", "pods/log", "namespaces/status",
                                           "resourcequotas/status"};
  std::vector<std::string> view_core = kCoreWorkload;
  view_core.insert(view_core.end(), status.begin(), status.end());
  view_core.push_back("namespaces");
  std::vector<std::string> everything = kWrite;
  everything.insert(everything.end(), kRead.begin(), kRead.end());
  return {
      cluster_role("cluster-admin",
                   {rule({"*"}, "*", {"*"}), {.verbs = {"*"}, .non_resource_urls = {"*"}}}),
      cluster_role(
          "system:discovery",
          {{.verbs = {"get"},
            .non_resource_urls = {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez",
                                  "/openapi", "/openapi/*", "/readyz", "/version", "/version/"}}}),
      cluster_role("system:basic-user",
                   {rule({"create"}, "authorization.k8s.io",
                         {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
                    rule({"create"}, "authentication.k8s.io", {"selfsubjectreviews"})}),
      cluster_role(
          "system:public-info-viewer",
          {{.verbs = {"get"},
            .non_resource_urls = {"/healthz", "/livez", "/readyz", "/version", "/version/"}}}),
      aggregated_role("admin"),
      aggregated_role("edit"),
      aggregated_role("view"),
      cluster_role("system:aggregate-to-view",
                   {rule(kRead, "", view_core), rule(kRead, "apps", kApps),
                    rule(kRead, "batch", {"jobs", "cronjobs"}),
                    rule(kRead, "autoscaling", {"horizontalpodautoscalers"}),
                    rule(kRead, "policy", {"poddisruptionbudgets"}),
                    rule(kRead, "networking.k8s.io", {"networkpolicies"})},
                   {{aggregate_label("admin"), "true"},
                    {aggregate_label("edit"), "true"},
                    {aggregate_label("view"), "true"}}),
      // What metrics-server's manifest adds (tailor-cluster serves metrics.k8s.io itself): who
      // may view pods may `kubectl top` them.
      cluster_role("system:aggregated-metrics-reader",
                   {rule(kRead, "metrics.k8s.io", {"pods", "nodes"})},
                   {{aggregate_label("admin"), "true"},
                    {aggregate_label("edit"), "true"},
                    {aggregate_label("view"), "true"}}),
      cluster_role("system:aggregate-to-edit",
                   {rule(kWrite, "", kCoreWorkload), rule(kWrite, "", {"secrets"}),
                    rule(kRead, "", {"secrets"}), rule({"create"}, "", {"pods/eviction"}),
                    rule(kWrite, "apps", kApps), rule(kWrite, "batch", {"jobs", "cronjobs"}),
                    rule(kWrite, "autoscaling", {"horizontalpodautoscalers"}),
                    rule(kWrite, "policy", {"poddisruptionbudgets"}),
                    rule(kWrite, "networking.k8s.io", {"networkpolicies"}),
                    rule({"impersonate"}, "", {"serviceaccounts"}),
                    rule({"create"}, "", {"serviceaccounts/token"})},
                   {{aggregate_label("admin"), "true"}, {aggregate_label("edit"), "true"}}),
      cluster_role("system:aggregate-to-admin",
                   {rule(everything, kRbacGroup, {"roles", "rolebindings"}),
                    rule({"create"}, "authorization.k8s.io", {"localsubjectaccessreviews"})},
                   {{aggregate_label("admin"), "true"}}),
  };
}

std::vector<bj::object> cluster_role_bindings() {
  return {binding("cluster-admin", "cluster-admin", {kSystemMasters}),
          binding("system:discovery", "system:discovery", {kAllAuthenticated}),
          binding("system:basic-user", "system:basic-user", {kAllAuthenticated}),
          binding("system:public-info-viewer", "system:public-info-viewer",
                  {kAllAuthenticated, kAllUnauthenticated})};
}

}  // namespace

void create_bootstrap_policy(ObjectStore& store) {
  for (bj::object& role : cluster_roles())
    create_if_absent(store, builtin(kRbacGroup, "clusterroles"), std::move(role));
  for (bj::object& b : cluster_role_bindings())
    create_if_absent(store, builtin(kRbacGroup, "clusterrolebindings"), std::move(b));
}

}  // namespace tailor::embedded
