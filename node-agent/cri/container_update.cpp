#include "node-agent/cri/container_update.h"

namespace tailor::node::cri {

void update_container_resources_checked(RuntimeService& cri, const std::string& container_id,
                                        const LinuxResources& resources,
                                        const CgroupFiles& container_cgroup) {
  const std::int64_t new_limit = resources.memory_limit_in_bytes;
  if (new_limit > 0) {
    const ContainerStatus status = cri.container_status(container_id);
    const std::int64_t current =
        status.resources ? status.resources->memory_limit_in_bytes : std::int64_t{0};
    const bool decrease = current <= 0 || new_limit < current;
    if (decrease) {
      const std::int64_t usage = container_cgroup.memory_usage_bytes();
      if (auto reason = memory_limit_below_usage(new_limit, usage)) {
        throw MemoryBelowUsageError("container " + status.name + ": " + *reason, new_limit, usage);
      }
    }
  }
  cri.update_container_resources(container_id, resources);
}

}  // namespace tailor::node::cri
