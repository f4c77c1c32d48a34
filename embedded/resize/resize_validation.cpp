// ValidatePodResize (Kubernetes 1.35): field paths and messages as kube-apiserver returns them.
#include <optional>

#include "embedded/api/pod_qos.h"
#include "embedded/resize/pod_resize.h"
#include "embedded/resize/resource_json.h"
#include "embedded/resize/resource_requirements.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

using Errors = std::vector<FieldCause>;

std::string name_of(const bj::value& container) {
  const bj::value* name = member(&container, "name");
  return name && name->is_string() ? std::string(name->as_string()) : "";
}

std::string indexed(std::string_view list, std::size_t i) {
  return "spec." + std::string(list) + "[" + std::to_string(i) + "]";
}

// Containers may not be added, removed, renamed or reordered; the rest of the rules compare
// containers index by index, so nothing else is checked when this fails.
Errors ordering_errors(const bj::object& resized, const bj::object& stored) {
  Errors errors;
  for (std::string_view list : {"containers", "initContainers"}) {
    const bj::array& wanted = container_list(resized, list);
    const bj::array& have = container_list(stored, list);
    if (wanted.size() != have.size()) {
      errors.push_back(forbidden("spec." + std::string(list),
                                 std::string(list) + " may not be added or removed on resize"));
      continue;
    }
    for (std::size_t i = 0; i < have.size(); ++i) {
      if (name_of(wanted[i]) != name_of(have[i])) {
        errors.push_back(
            forbidden(indexed(list, i) + ".name",
                      std::string(list) + " may not be renamed or reordered on resize"));
      }
    }
  }
  return errors;
}

Errors requirement_errors(const bj::object& pod) {
  Errors errors;
  for (std::string_view list : {"initContainers", "containers"}) {
    const bj::array& containers = container_list(pod, list);
    for (std::size_t i = 0; i < containers.size(); ++i) {
      Errors e = validate_resource_requirements(member(&containers[i], "resources"),
                                                indexed(list, i) + ".resources");
      errors.insert(errors.end(), e.begin(), e.end());
    }
  }
  return errors;
}

bool has_pod_level_resources(const bj::object& pod) {
  const bj::value* resources = find_path(pod, "spec.resources");
  for (std::string_view key : {"requests", "limits"}) {
    const bj::value* list = member(resources, key);
    if (list && list->is_object() && !list->as_object().empty()) return true;
  }
  return false;
}

// Pods whose resize the node could never carry out.
std::optional<FieldCause> unresizable(const bj::object& resized, const bj::object& stored) {
  if (has_pod_level_resources(stored) || has_pod_level_resources(resized)) {
    return forbidden("", "pods with pod-level resources cannot be resized");
  }
  const bj::value* annotations = find_path(stored, "metadata.annotations");
  if (member(annotations, "kubernetes.io/config.mirror")) {
    return forbidden("", "static pods cannot be resized");
  }
  if (string_at(stored, "spec.os.name") == "windows") {
    return forbidden("", "windows pods cannot be resized");
  }
  return std::nullopt;
}

// The version-skew guard: a running container whose status has no resources runs on a node
// without in-place resize. The first running container decides.
bool node_supports_resize(const bj::object& stored) {
  const bj::value* statuses = find_path(stored, "status.containerStatuses");
  if (!statuses || !statuses->is_array()) return true;
  for (const bj::value& status : statuses->as_array()) {
    if (member(member(&status, "state"), "running")) return member(&status, "resources") != nullptr;
  }
  return true;
}

// Removing a request or a limit is not a resize (1.35 allows decreasing memory limits: the
// node checks usage).
Errors removal_errors(const bj::value& wanted, const bj::value& have, const std::string& path) {
  Errors errors;
  for (std::string_view kind : {"requests", "limits"}) {
    std::string field = path + "." + std::string(kind);
    kube::ResourceList after = resource_list(member(member(&wanted, "resources"), kind), field);
    kube::ResourceList before = resource_list(member(member(&have, "resources"), kind), field);
    for (const auto& [name, quantity] : before) {
      if (after.contains(name)) continue;
      errors.push_back(forbidden(field, "resource " + std::string(kind) + " cannot be removed"));
      break;
    }
  }
  return errors;
}

// A resource list with the stored cpu and memory put back (dropCPUMemoryResourcesFromContainer):
// what must be unchanged. A list the stored container did not have stays absent.
std::optional<kube::ResourceList> without_cpu_memory(const bj::value& wanted, const bj::value& have,
                                                     std::string_view kind) {
  const bj::value* old_list = member(member(&have, "resources"), kind);
  if (!old_list || old_list->is_null()) return std::nullopt;
  kube::ResourceList list = resource_list(member(member(&wanted, "resources"), kind), kind);
  kube::ResourceList old = resource_list(old_list, kind);
  for (std::string_view r : {kube::kResourceCpu, kube::kResourceMemory}) {
    list.erase(r);
    if (const kube::Quantity* q = find_resource(old, r)) list.insert_or_assign(r, *q);
  }
  return list;
}

bool only_cpu_memory_changed(const bj::value& wanted, const bj::value& have) {
  for (std::string_view kind : {"requests", "limits"}) {
    std::optional<kube::ResourceList> munged = without_cpu_memory(wanted, have, kind);
    kube::ResourceList old = resource_list(member(member(&have, "resources"), kind), kind);
    if (munged ? *munged != old : false) return false;
  }
  const bj::value* policy = member(&wanted, "resizePolicy");
  const bj::value* old_policy = member(&have, "resizePolicy");
  auto empty = [](const bj::value* v) {
    return !v || v->is_null() || (v->is_array() && v->as_array().empty());
  };
  return empty(policy) ? empty(old_policy) : (old_policy && *policy == *old_policy);
}

bool same_resources(const bj::value& wanted, const bj::value& have) {
  return same_resource_lists(member(member(&wanted, "resources"), "requests"),
                             member(member(&have, "resources"), "requests")) &&
         same_resource_lists(member(member(&wanted, "resources"), "limits"),
                             member(member(&have, "resources"), "limits")) &&
         only_cpu_memory_changed(wanted, have);
}

Errors container_errors(const bj::object& resized, const bj::object& stored) {
  Errors errors;
  const bj::array& inits = container_list(resized, "initContainers");
  const bj::array& old_inits = container_list(stored, "initContainers");
  for (std::size_t i = 0; i < old_inits.size(); ++i) {
    if (!is_sidecar(old_inits[i])) continue;
    Errors e = removal_errors(inits[i], old_inits[i], indexed("initContainers", i) + ".resources");
    errors.insert(errors.end(), e.begin(), e.end());
  }
  const bj::array& containers = container_list(resized, "containers");
  const bj::array& old_containers = container_list(stored, "containers");
  for (std::size_t i = 0; i < old_containers.size(); ++i) {
    Errors e =
        removal_errors(containers[i], old_containers[i], indexed("containers", i) + ".resources");
    errors.insert(errors.end(), e.begin(), e.end());
  }
  for (std::size_t i = 0; i < old_containers.size(); ++i) {
    if (!only_cpu_memory_changed(containers[i], old_containers[i])) {
      errors.push_back(forbidden("spec", "only cpu and memory resources are mutable"));
    }
  }
  for (std::size_t i = 0; i < old_inits.size(); ++i) {
    if (is_sidecar(old_inits[i])) {
      if (!only_cpu_memory_changed(inits[i], old_inits[i])) {
        errors.push_back(
            forbidden("spec", "only cpu and memory resources for sidecar containers are mutable"));
      }
    } else if (!same_resources(inits[i], old_inits[i])) {
      errors.push_back(
          forbidden("spec", "resources for non-sidecar init containers are immutable"));
    }
  }
  return errors;
}

// GetPodQOS: the class recorded at creation; computed only when the status has none.
std::string stored_qos_class(const bj::object& stored) {
  std::string recorded = string_at(stored, "status.qosClass");
  return recorded.empty() ? pod_qos_class(stored) : recorded;
}

}  // namespace

std::vector<FieldCause> validate_pod_resize(const bj::object& resized, const bj::object& stored) {
  Errors errors = ordering_errors(resized, stored);
  if (!errors.empty()) return errors;
  errors = requirement_errors(resized);
  if (std::optional<FieldCause> refusal = unresizable(resized, stored)) return {*refusal};
  if (stored_qos_class(stored) != pod_qos_class(resized)) {
    errors.push_back(invalid_value("spec", string_at(stored, "status.qosClass"),
                                   "Pod QOS Class may not change as a result of resizing"));
  }
  if (!node_supports_resize(stored)) {
    errors.push_back(forbidden("spec", "Pod running on node without support for resize"));
  }
  Errors e = container_errors(resized, stored);
  errors.insert(errors.end(), e.begin(), e.end());
  return errors;
}

}  // namespace tailor::embedded
