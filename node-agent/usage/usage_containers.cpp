#include "node-agent/usage/usage_containers.h"

#include "kube/model/qos.h"

namespace tailor::node::usage {
namespace {

std::string bare_container_id(const std::string& container_id) {
  const auto scheme = container_id.find("://");
  return scheme == std::string::npos ? container_id : container_id.substr(scheme + 3);
}

void add_running(const kube::Pod& pod, const std::vector<kube::ContainerStatus>& statuses,
                 const std::string& pod_path, cri::CgroupDriver driver,
                 std::vector<SampledContainer>& out) {
  for (const kube::ContainerStatus& status : statuses) {
    if (status.container_id.empty() || !status.state.running) continue;
    const std::string id = bare_container_id(status.container_id);
    out.push_back({.key = {.ns = pod.metadata.namespace_,
                           .pod = pod.metadata.name,
                           .pod_uid = pod.metadata.uid,
                           .container = status.name,
                           .container_id = id},
                   .cgroup_path = cri::container_cgroup_path(pod_path, id, driver)});
  }
}

}  // namespace

std::vector<SampledContainer> sampled_containers(const std::vector<const kube::Pod*>& pods,
                                                 cri::CgroupDriver driver) {
  std::vector<SampledContainer> out;
  for (const kube::Pod* pod : pods) {
    if (!pod->metadata.deletion_timestamp.empty() || pod->metadata.uid.empty()) continue;
    const std::string pod_path =
        cri::cgroup_path(cri::pod_cgroup_name(pod->metadata.uid, kube::pod_qos(*pod)), driver);
    add_running(*pod, pod->status.container_statuses, pod_path, driver, out);
    add_running(*pod, pod->status.init_container_statuses, pod_path, driver, out);
  }
  return out;
}

}  // namespace tailor::node::usage
