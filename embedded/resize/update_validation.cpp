// Container resources are not among the fields a plain pod update may change (ValidatePodUpdate);
// they change only through pods/resize.
#include "embedded/resize/pod_resize.h"
#include "embedded/resize/resource_json.h"

namespace tailor::embedded {
namespace {

// kube-apiserver's list of what a pod update may change (updatablePodSpecFields, 1.33+).
constexpr const char* kUpdatableFields =
    "pod updates may not change fields other than `spec.containers[*].image`,"
    "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
    "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set "
    "to 1 if it was previously negative)";

std::string resources_text(const bj::value& container) {
  const bj::value* r = member(&container, "resources");
  return r ? bj::serialize(*r) : "{}";
}

bool resources_changed(const bj::value& wanted, const bj::value& have) {
  const bj::value* after = member(&wanted, "resources");
  const bj::value* before = member(&have, "resources");
  return !same_resource_lists(member(after, "requests"), member(before, "requests")) ||
         !same_resource_lists(member(after, "limits"), member(before, "limits"));
}

}  // namespace

std::vector<FieldCause> validate_pod_update_resources(const bj::object& updated,
                                                      const bj::object& stored) {
  // kube-apiserver appends a go-cmp diff of the spec; this names the changed resources instead.
  std::string diff;
  for (std::string_view list : {"initContainers", "containers"}) {
    const bj::array& wanted = container_list(updated, list);
    const bj::array& have = container_list(stored, list);
    for (std::size_t i = 0; i < std::min(wanted.size(), have.size()); ++i) {
      if (!resources_changed(wanted[i], have[i])) continue;
      diff += "  spec." + std::string(list) + "[" + std::to_string(i) +
              "].resources: " + resources_text(have[i]) + " -> " + resources_text(wanted[i]) + "\n";
    }
  }
  if (diff.empty()) return {};
  return {forbidden("spec", std::string(kUpdatableFields) + "\n" + diff)};
}

}  // namespace tailor::embedded
