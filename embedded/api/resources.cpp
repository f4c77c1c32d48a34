#include "embedded/api/resources.h"

#include <algorithm>

namespace tailor::kube::embedded {

const std::vector<ResourceInfo>& builtin_resources() {
  static const std::vector<ResourceInfo> kResources = {
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
       .subresources = {"status"},
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
      {.group = "coordination.k8s.io",
       .version = "v1",
       .resource = "leases",
       .singular = "lease",
       .kind = "Lease"},
  };
  return kResources;
}

const ResourceInfo* find_resource(const std::string& group, const std::string& version,
                                  const std::string& resource) {
  for (const ResourceInfo& r : builtin_resources()) {
    if (r.group == group && r.version == version && r.resource == resource) return &r;
  }
  return nullptr;
}

std::vector<std::pair<std::string, std::string>> served_group_versions() {
  std::vector<std::pair<std::string, std::string>> out;
  for (const ResourceInfo& r : builtin_resources()) {
    std::pair<std::string, std::string> gv{r.group, r.version};
    if (std::find(out.begin(), out.end(), gv) == out.end()) out.push_back(gv);
  }
  return out;
}

}  // namespace tailor::kube::embedded
