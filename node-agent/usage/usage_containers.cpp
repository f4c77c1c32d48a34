#include "node-agent/usage/usage_containers.h"

#include "kube/model/qos.h"

namespace tailor::kube::node {
namespace {

std::string bare_container_id(const std::string& container_id) {
  const auto scheme = container_id.find("://");
  return scheme == std::string::npos ? container_id : container_id.substr(scheme + 3);
}

void add_running(const Pod& pod, const std::vector<ContainerStatus>& statuses,
                 const std::string& pod_path, CgroupDriver driver,
                 std::vector<SampledContainer>& out) {
  for (const ContainerStatus& status : statuses) {
    if (status.container_id.empty() || !status.state.running) continue;
    const std::string id = bare_container_id(status.container_id);
    out.push_back({.key = {.ns = pod.metadata.namespace_,
                           .pod = pod.metadata.name,
                           .pod_uid = pod.metadata.uid,
                           .container = status.name,
                           .container_id = id},
                   .cgroup_path = container_cgroup_path(pod_path, id, driver)});
  }
}

}  // namespace

std::vector<SampledContainer> sampled_containers(const std::vector<const Pod*>& pods,
                                                 CgroupDriver driver) {
  std::vector<SampledContainer> out;
  for (const Pod* pod : pods) {
    if (!pod->metadata.deletion_timestamp.empty() || pod->metadata.uid.empty()) continue;
    const std::string pod_path =
        cgroup_path(pod_cgroup_name(pod->metadata.uid, pod_qos(*pod)), driver);
    add_running(*pod, pod->status.container_statuses, pod_path, driver, out);
    add_running(*pod, pod->status.init_container_statuses, pod_path, driver, out);
  }
  return out;
}

}  // namespace tailor::kube::node
