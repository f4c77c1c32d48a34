#include "embedded/api/resources.h"

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>

#include "embedded/api/hpa_conversion.h"

namespace tailor::embedded {
namespace {

std::vector<ResourceInfo> core_resources() {
  return {
      {.version = "v1",
       .resource = "namespaces",
       .singular = "namespace",
       .kind = "Namespace",
       .namespaced = false,
       .short_names = {"ns"},
       .subresources = {"status"},
       .selectable_fields = {"status.phase"}},
      {.version = "v1",
       .resource = "nodes",
       .singular = "node",
       .kind = "Node",
       .namespaced = false,
       .short_names = {"no"},
       .subresources = {"status"},
       .selectable_fields = {"spec.unschedulable"}},
      {.version = "v1",
       .resource = "pods",
       .singular = "pod",
       .kind = "Pod",
       .short_names = {"po"},
       .categories = {"all"},
       .subresources = {"status", "resize", "eviction", "binding"},
       .tracks_generation = true,
       .selectable_fields = {"spec.nodeName", "spec.restartPolicy", "spec.schedulerName",
                             "spec.serviceAccountName", "spec.hostNetwork", "status.phase",
                             "status.podIP", "status.nominatedNodeName"}},
      {.version = "v1",
       .resource = "events",
       .singular = "event",
       .kind = "Event",
       .short_names = {"ev"},
       .selectable_fields = {"involvedObject.kind", "involvedObject.namespace",
                             "involvedObject.name", "involvedObject.uid",
                             "involvedObject.apiVersion", "involvedObject.resourceVersion",
                             "involvedObject.fieldPath", "reason", "reportingComponent", "source",
                             "type"}},
      {.version = "v1",
       .resource = "configmaps",
       .singular = "configmap",
       .kind = "ConfigMap",
       .short_names = {"cm"}},
      {.version = "v1",
       .resource = "secrets",
       .singular = "secret",
       .kind = "Secret",
       .selectable_fields = {"type"}},
      {.version = "v1",
       .resource = "services",
       .singular = "service",
       .kind = "Service",
       .short_names = {"svc"},
       .categories = {"all"},
       .subresources = {"status"}},
      {.version = "v1",
       .resource = "endpoints",
       .singular = "endpoints",
       .kind = "Endpoints",
       .short_names = {"ep"}},
      {.version = "v1",
       .resource = "serviceaccounts",
       .singular = "serviceaccount",
       .kind = "ServiceAccount",
       .short_names = {"sa"},
       .subresources = {"token"}},
      {.version = "v1",
       .resource = "resourcequotas",
       .singular = "resourcequota",
       .kind = "ResourceQuota",
       .short_names = {"quota"},
       .subresources = {"status"}},
      {.version = "v1",
       .resource = "limitranges",
       .singular = "limitrange",
       .kind = "LimitRange",
       .short_names = {"limits"}},
  };
}

std::vector<ResourceInfo> group_resources() {
  return {
      {.group = "apps",
       .version = "v1",
       .resource = "deployments",
       .singular = "deployment",
       .kind = "Deployment",
       .short_names = {"deploy"},
       .categories = {"all"},
       .subresources = {"status", "scale"},
       .tracks_generation = true},
      {.group = "apps",
       .version = "v1",
       .resource = "replicasets",
       .singular = "replicaset",
       .kind = "ReplicaSet",
       .short_names = {"rs"},
       .categories = {"all"},
       .subresources = {"status", "scale"},
       .tracks_generation = true},
      {.group = "apps",
       .version = "v1",
       .resource = "statefulsets",
       .singular = "statefulset",
       .kind = "StatefulSet",
       .short_names = {"sts"},
       .categories = {"all"},
       .subresources = {"status", "scale"},
       .tracks_generation = true},
      {.group = "apps",
       .version = "v1",
       .resource = "daemonsets",
       .singular = "daemonset",
       .kind = "DaemonSet",
       .short_names = {"ds"},
       .categories = {"all"},
       .subresources = {"status"},
       .tracks_generation = true},
      {.group = "batch",
       .version = "v1",
       .resource = "jobs",
       .singular = "job",
       .kind = "Job",
       .categories = {"all"},
       .subresources = {"status"},
       .tracks_generation = true},
      {.group = "batch",
       .version = "v1",
       .resource = "cronjobs",
       .singular = "cronjob",
       .kind = "CronJob",
       .short_names = {"cj"},
       .categories = {"all"},
       .subresources = {"status"},
       .tracks_generation = true},
      {.group = "autoscaling",
       .version = "v2",
       .resource = "horizontalpodautoscalers",
       .singular = "horizontalpodautoscaler",
       .kind = "HorizontalPodAutoscaler",
       .short_names = {"hpa"},
       .categories = {"all"},
       .subresources = {"status"},
       .tracks_generation = true},
      // After v2: lookups by group and resource find the stored version, and discovery prefers
      // it, as kube-apiserver's autoscaling group does.
      {.group = "autoscaling",
       .version = "v1",
       .resource = "horizontalpodautoscalers",
       .singular = "horizontalpodautoscaler",
       .kind = "HorizontalPodAutoscaler",
       .short_names = {"hpa"},
       .categories = {"all"},
       .subresources = {"status"},
       .tracks_generation = true,
       .storage_version = "v2",
       .to_storage = hpa_v1_to_v2,
       .from_storage = hpa_v2_to_v1},
      {.group = "policy",
       .version = "v1",
       .resource = "poddisruptionbudgets",
       .singular = "poddisruptionbudget",
       .kind = "PodDisruptionBudget",
       .short_names = {"pdb"},
       .subresources = {"status"},
       .tracks_generation = true},
      // Stored and served, not enforced: no network plugin here acts on them (as on a cluster
      // whose CNI has no NetworkPolicy support).
      {.group = "networking.k8s.io",
       .version = "v1",
       .resource = "networkpolicies",
       .singular = "networkpolicy",
       .kind = "NetworkPolicy",
       .short_names = {"netpol"},
       .tracks_generation = true},
      {.group = "discovery.k8s.io",
       .version = "v1",
       .resource = "endpointslices",
       .singular = "endpointslice",
       .kind = "EndpointSlice"},
      {.group = "coordination.k8s.io",
       .version = "v1",
       .resource = "leases",
       .singular = "lease",
       .kind = "Lease"},
      // metrics.k8s.io, as metrics-server serves it (metrics/): virtual, read only.
      {.group = "metrics.k8s.io",
       .version = "v1beta1",
       .resource = "nodes",
       .kind = "NodeMetrics",
       .namespaced = false,
       .verbs = {"get", "list"}},
      {.group = "metrics.k8s.io",
       .version = "v1beta1",
       .resource = "pods",
       .kind = "PodMetrics",
       .verbs = {"get", "list"}},
      {.group = "authorization.k8s.io",
       .version = "v1",
       .resource = "selfsubjectaccessreviews",
       .singular = "selfsubjectaccessreview",
       .kind = "SelfSubjectAccessReview",
       .namespaced = false,
       .verbs = {"create"}},
      {.group = "authorization.k8s.io",
       .version = "v1",
       .resource = "selfsubjectrulesreviews",
       .singular = "selfsubjectrulesreview",
       .kind = "SelfSubjectRulesReview",
       .namespaced = false,
       .verbs = {"create"}},
      {.group = "authentication.k8s.io",
       .version = "v1",
       .resource = "selfsubjectreviews",
       .singular = "selfsubjectreview",
       .kind = "SelfSubjectReview",
       .namespaced = false,
       .verbs = {"create"}},
      {.group = "authorization.k8s.io",
       .version = "v1",
       .resource = "subjectaccessreviews",
       .singular = "subjectaccessreview",
       .kind = "SubjectAccessReview",
       .namespaced = false,
       .verbs = {"create"}},
      {.group = "rbac.authorization.k8s.io",
       .version = "v1",
       .resource = "roles",
       .singular = "role",
       .kind = "Role"},
      {.group = "rbac.authorization.k8s.io",
       .version = "v1",
       .resource = "rolebindings",
       .singular = "rolebinding",
       .kind = "RoleBinding"},
      {.group = "rbac.authorization.k8s.io",
       .version = "v1",
       .resource = "clusterroles",
       .singular = "clusterrole",
       .kind = "ClusterRole",
       .namespaced = false},
      {.group = "rbac.authorization.k8s.io",
       .version = "v1",
       .resource = "clusterrolebindings",
       .singular = "clusterrolebinding",
       .kind = "ClusterRoleBinding",
       .namespaced = false},
      {.group = "apiextensions.k8s.io",
       .version = "v1",
       .resource = "customresourcedefinitions",
       .singular = "customresourcedefinition",
       .kind = "CustomResourceDefinition",
       .namespaced = false,
       .short_names = {"crd", "crds"},
       .categories = {"api-extensions"},
       .subresources = {"status"},
       .tracks_generation = true},
      {.group = "admissionregistration.k8s.io",
       .version = "v1",
       .resource = "mutatingwebhookconfigurations",
       .singular = "mutatingwebhookconfiguration",
       .kind = "MutatingWebhookConfiguration",
       .namespaced = false,
       .categories = {"api-extensions"},
       .tracks_generation = true},
  };
}

std::vector<ResourceInfo> all_builtin() {
  std::vector<ResourceInfo> all = core_resources();
  for (ResourceInfo& r : group_resources()) all.push_back(std::move(r));
  return all;
}

// Custom resources: registrations per owner and key; ResourceInfos are pooled and never freed.
struct Registration {
  const void* owner;
  std::string key;
  std::vector<const ResourceInfo*> infos;
};

using Refresher = std::shared_ptr<const std::function<void()>>;

struct CustomRegistry {
  std::shared_mutex mu;
  std::deque<std::unique_ptr<const ResourceInfo>> pool;
  std::vector<Registration> registrations;
  std::map<const void*, Refresher> refreshers;

  const ResourceInfo* pooled(ResourceInfo info) {
    for (const auto& p : pool) {
      if (*p == info) return p.get();
    }
    pool.push_back(std::make_unique<const ResourceInfo>(std::move(info)));
    return pool.back().get();
  }
};

// Leaked on purpose: clusters may be torn down during static destruction.
CustomRegistry& custom() {
  static CustomRegistry* registry = new CustomRegistry;
  return *registry;
}

thread_local bool refreshing = false;

void refresh_custom() {
  if (refreshing) return;  // a refresher looking resources up sees the state it is building
  std::vector<Refresher> refreshers;
  {
    std::shared_lock lock(custom().mu);
    for (const auto& [owner, r] : custom().refreshers) refreshers.push_back(r);
  }
  refreshing = true;
  try {
    for (const Refresher& r : refreshers) (*r)();
  } catch (...) {
    refreshing = false;
    throw;
  }
  refreshing = false;
}

const ResourceInfo* find_builtin(const std::string& group, const std::string& version,
                                 const std::string& resource) {
  for (const ResourceInfo& r : builtin_resources()) {
    if (r.group == group && r.version == version && r.resource == resource) return &r;
  }
  return nullptr;
}

}  // namespace

const std::vector<ResourceInfo>& builtin_resources() {
  static const std::vector<ResourceInfo> kResources = all_builtin();
  return kResources;
}

bool is_builtin(const ResourceInfo& r) {
  const std::vector<ResourceInfo>& all = builtin_resources();
  return &r >= all.data() && &r < all.data() + all.size();
}

const ResourceInfo* stored_builtin(const std::string& group, const std::string& resource) {
  for (const ResourceInfo& r : builtin_resources()) {
    if (r.group == group && r.resource == resource && r.storage_version.empty()) return &r;
  }
  return nullptr;
}

const ResourceInfo* find_resource(const std::string& group, const std::string& version,
                                  const std::string& resource) {
  if (const ResourceInfo* r = find_builtin(group, version, resource)) return r;
  refresh_custom();
  std::shared_lock lock(custom().mu);
  for (const Registration& reg : custom().registrations) {
    for (const ResourceInfo* r : reg.infos) {
      if (r->group == group && r->version == version && r->resource == resource) return r;
    }
  }
  return nullptr;
}

std::vector<const ResourceInfo*> served_resources() {
  std::vector<const ResourceInfo*> out;
  for (const ResourceInfo& r : builtin_resources()) out.push_back(&r);
  refresh_custom();
  std::shared_lock lock(custom().mu);
  for (const Registration& reg : custom().registrations) {
    for (const ResourceInfo* r : reg.infos) {
      bool shadowed = std::any_of(out.begin(), out.end(), [&](const ResourceInfo* o) {
        return o->group == r->group && o->version == r->version && o->resource == r->resource;
      });
      if (!shadowed) out.push_back(r);
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> served_group_versions() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ResourceInfo* r : served_resources()) {
    std::pair<std::string, std::string> gv{r->group, r->version};
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

std::vector<const ResourceInfo*> serve_custom_resources(const void* owner, const std::string& key,
                                                        std::vector<ResourceInfo> infos) {
  CustomRegistry& reg = custom();
  std::unique_lock lock(reg.mu);
  std::erase_if(reg.registrations,
                [&](const Registration& r) { return r.owner == owner && r.key == key; });
  std::vector<const ResourceInfo*> pointers;
  for (ResourceInfo& info : infos) pointers.push_back(reg.pooled(std::move(info)));
  if (!pointers.empty()) reg.registrations.push_back({owner, key, pointers});
  return pointers;
}

void forget_custom_resources(const void* owner) {
  std::unique_lock lock(custom().mu);
  std::erase_if(custom().registrations, [&](const Registration& r) { return r.owner == owner; });
  custom().refreshers.erase(owner);
}

void set_custom_resource_refresher(const void* owner, std::function<void()> refresh) {
  std::unique_lock lock(custom().mu);
  if (refresh) {
    custom().refreshers[owner] = std::make_shared<const std::function<void()>>(std::move(refresh));
  } else {
    custom().refreshers.erase(owner);
  }
}

}  // namespace tailor::embedded
