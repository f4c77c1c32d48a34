// Patches of the fields Tailor owns.
#include <algorithm>

#include "kube/model/encode.h"
#include "kube/model/json_writer.h"

namespace tailor::kube {
namespace {
using namespace json;

bj::array resized(const std::vector<ContainerResize>& containers) {
  bj::array a;
  for (const ContainerResize& c : containers) {
    a.emplace_back(bj::object{{"name", c.name}, {"resources", to_value(c.resources)}});
  }
  return a;
}

// JSON pointer escaping (RFC 6901) is not needed: list names and indices only.
class JsonPatch {
 public:
  void test(std::string path, bj::value value) { op("test", std::move(path), std::move(value)); }
  void add(std::string path, bj::value value) { op("add", std::move(path), std::move(value)); }
  void replace(std::string path, bj::value value) {
    op("replace", std::move(path), std::move(value));
  }
  void remove(std::string path) {
    ops_.emplace_back(bj::object{{"op", "remove"}, {"path", std::move(path)}});
  }
  std::string serialize() const { return bj::serialize(ops_); }

 private:
  void op(const char* name, std::string path, bj::value value) {
    ops_.emplace_back(
        bj::object{{"op", name}, {"path", std::move(path)}, {"value", std::move(value)}});
  }
  bj::array ops_;
};

std::string condition_path(std::size_t index) {
  return "/status/conditions/" + std::to_string(index);
}

std::optional<std::size_t> condition_index(const PodStatus& status, std::string_view type) {
  for (std::size_t i = 0; i < status.conditions.size(); ++i) {
    if (status.conditions[i].type == type) return i;
  }
  return std::nullopt;
}

// Replacements first (indices still valid), then removals from the highest index down, then
// appends at the end ("-").
void patch_conditions(JsonPatch& p, const PodStatus& observed, const PodStatusPatch& change) {
  bj::array appended;
  for (const PodCondition& c : change.set_conditions) {
    if (auto i = condition_index(observed, c.type)) {
      p.test(condition_path(*i) + "/type", bj::string(c.type));
      p.replace(condition_path(*i), to_value(c));
    } else {
      appended.emplace_back(to_value(c));
    }
  }
  std::vector<std::size_t> removed;
  for (const std::string& type : change.remove_conditions) {
    if (auto i = condition_index(observed, type)) removed.push_back(*i);
  }
  std::sort(removed.rbegin(), removed.rend());
  removed.erase(std::unique(removed.begin(), removed.end()), removed.end());
  for (std::size_t i : removed) {
    p.test(condition_path(i) + "/type", bj::string(observed.conditions[i].type));
    p.remove(condition_path(i));
  }
  if (appended.empty()) return;
  if (observed.conditions.empty()) {
    p.add("/status/conditions", std::move(appended));
  } else {
    for (auto& c : appended) p.add("/status/conditions/-", std::move(c));
  }
}

// "/status/containerStatuses/1" or "/status/initContainerStatuses/0".
std::string container_status_path(const PodStatus& observed, std::string_view name) {
  auto index_in = [&](const std::vector<ContainerStatus>& list) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (list[i].name == name) return i;
    }
    return std::nullopt;
  };
  if (auto i = index_in(observed.container_statuses)) {
    return "/status/containerStatuses/" + std::to_string(*i);
  }
  if (auto i = index_in(observed.init_container_statuses)) {
    return "/status/initContainerStatuses/" + std::to_string(*i);
  }
  throw PatchError("pod status has no container \"" + std::string(name) + "\"");
}

void patch_containers(JsonPatch& p, const PodStatus& observed, const PodStatusPatch& change) {
  for (const ContainerResourcesStatus& c : change.containers) {
    std::string path = container_status_path(observed, c.name);
    p.test(path + "/name", bj::string(c.name));
    // "add" sets an object member whether or not it exists ("replace" requires it to).
    if (c.allocated_resources)
      p.add(path + "/allocatedResources", to_value(*c.allocated_resources));
    if (c.resources) p.add(path + "/resources", to_value(*c.resources));
  }
}

}  // namespace

std::string resize_patch(const ResizePatch& patch) {
  bj::object spec;
  if (!patch.containers.empty()) spec["containers"] = resized(patch.containers);
  if (!patch.init_containers.empty()) spec["initContainers"] = resized(patch.init_containers);
  if (patch.pod_resources) spec["resources"] = to_value(*patch.pod_resources);
  return bj::serialize(bj::object{{"spec", std::move(spec)}});
}

std::string pod_status_patch(const Pod& observed, const PodStatusPatch& change) {
  JsonPatch p;
  if (change.require_resource_version) {
    if (observed.metadata.resource_version.empty()) {
      throw PatchError("require_resource_version: the observed pod has no resourceVersion");
    }
    p.test("/metadata/resourceVersion", bj::string(observed.metadata.resource_version));
  }
  patch_containers(p, observed.status, change);
  patch_conditions(p, observed.status, change);
  if (change.observed_generation) {
    p.add("/status/observedGeneration", *change.observed_generation);
  }
  return p.serialize();
}

std::string event_repeat_patch(const Event& event) {
  bj::object o{
      {"count", event.count}, {"lastTimestamp", event.last_timestamp}, {"message", event.message}};
  return bj::serialize(o);
}

std::string lease_update_patch(const Lease& lease) {
  if (lease.metadata.resource_version.empty()) {
    throw PatchError("lease update needs the resourceVersion it was read at");
  }
  bj::object spec = lease_spec(lease.spec);
  // A released lease clears its holder: send explicit nulls so a merge patch removes them.
  for (const char* key : {"holderIdentity", "acquireTime", "renewTime"}) {
    if (!spec.contains(key)) spec[key] = nullptr;
  }
  bj::object meta{{"resourceVersion", lease.metadata.resource_version}};
  return bj::serialize(bj::object{{"metadata", std::move(meta)}, {"spec", std::move(spec)}});
}

}  // namespace tailor::kube
