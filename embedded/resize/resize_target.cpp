// The registry's resize strategy: everything but container resources comes from the stored pod.
#include "embedded/resize/pod_resize.h"
#include "embedded/resize/resource_json.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

constexpr std::string_view kLists[] = {"initContainers", "containers"};

std::string container_name(const bj::value& container) {
  const bj::value* name = member(&container, "name");
  return name && name->is_string() ? std::string(name->as_string()) : "";
}

// Same containers, same order: what the strategy needs to merge container by container.
bool same_containers(const bj::object& requested, const bj::object& stored) {
  for (std::string_view list : kLists) {
    const bj::array& wanted = container_list(requested, list);
    const bj::array& have = container_list(stored, list);
    if (wanted.size() != have.size()) return false;
    for (std::size_t i = 0; i < have.size(); ++i) {
      if (container_name(wanted[i]) != container_name(have[i])) return false;
    }
  }
  return true;
}

void take_field(bj::object& container, const bj::value& from, std::string_view key) {
  const bj::value* v = member(&from, key);
  if (v && !v->is_null()) {
    container[key] = *v;
  } else {
    container.erase(key);
  }
}

}  // namespace

bj::object resize_target(const bj::object& requested, const bj::object& stored) {
  if (!same_containers(requested, stored)) return requested;
  bj::object out = stored;
  bj::object& spec = out["spec"].as_object();
  for (std::string_view list : kLists) {
    const bj::array& wanted = container_list(requested, list);
    if (wanted.empty()) continue;
    bj::array& containers = spec[list].as_array();
    for (std::size_t i = 0; i < containers.size(); ++i) {
      if (!containers[i].is_object()) continue;
      take_field(containers[i].as_object(), wanted[i], "resources");
      take_field(containers[i].as_object(), wanted[i], "resizePolicy");
    }
  }
  // The request's resourceVersion stays a precondition; the rest of metadata is the stored one.
  std::string version = meta_string(requested, "resourceVersion");
  if (version.empty()) {
    metadata(out).erase("resourceVersion");
  } else {
    metadata(out)["resourceVersion"] = version;
  }
  return out;
}

}  // namespace tailor::embedded
