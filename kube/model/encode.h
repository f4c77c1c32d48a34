// JSON documents and patches Tailor sends, built with Boost.JSON (which stays in the .cpp files).
//
// Writes to existing objects are patches of the fields Tailor owns, never a PUT of an object
// rebuilt from this partial model (that would drop every field the model does not know).
// The full-object encoders are for creating new objects (Events, Leases, and pods/nodes in tests
// and in the embedded cluster).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kube/model/list.h"

namespace tailor::kube {

// Full documents with apiVersion and kind; empty/unset fields are omitted.
std::string to_json(const Pod& pod);
std::string to_json(const Node& node);
std::string to_json(const Event& event);
std::string to_json(const Lease& lease);
std::string to_json(const ResourceList& list);
std::string to_json(const ResourceRequirements& resources);

// ---- pods/{name}/resize: strategic merge patch (Content-Type
// application/strategic-merge-patch+json). Containers merge by name and requests/limits merge
// by resource name, so resources not named keep their values and other containers are
// untouched. Only cpu and memory may change through /resize; the API server rejects others.
struct ContainerResize {
  std::string name{};
  ResourceRequirements resources{};  // the new values; empty maps are left out
};

struct ResizePatch {
  std::vector<ContainerResize> containers{};
  std::vector<ContainerResize> init_containers{};  // restartable (sidecar) init containers only
  std::optional<ResourceRequirements> pod_resources{};  // pod-level spec.resources
};

std::string resize_patch(const ResizePatch& patch);

// ---- pods/{name}/status: JSON patch (application/json-patch+json).
// containerStatuses has no merge key (a strategic merge patch would replace the whole list with
// this partial model), so every change addresses its list index and is guarded by a "test" of
// the element's name/type: if the pod changed since it was read, the patch fails instead of
// writing to the wrong element. Re-read and rebuild on failure.
struct ContainerResourcesStatus {
  std::string name{};                                 // a container or init container status
  std::optional<ResourceList> allocated_resources{};  // allocated
  std::optional<ResourceRequirements> resources{};    // actual
};

struct PodStatusPatch {
  std::vector<PodCondition> set_conditions{};    // replaces the condition of that type, or adds it
  std::vector<std::string> remove_conditions{};  // by type; absent types are ignored
  std::vector<ContainerResourcesStatus> containers{};
  // status.observedGeneration: the pod generation this status reflects (kubelet sets it with
  // PodObservedGenerationTracking).
  std::optional<std::int64_t> observed_generation{};
  // Also fail if anything in the pod changed (test metadata.resourceVersion).
  bool require_resource_version = false;
};

class PatchError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// `observed` is the pod as last read. Throws PatchError if a named container has no status.
// An empty change gives "[]".
std::string pod_status_patch(const Pod& observed, const PodStatusPatch& change);

// ---- Events: the merge patch that records a repeat (count, lastTimestamp, message), as
// client-go's recorder sends it.
std::string event_repeat_patch(const Event& event);

// ---- Leases: a merge patch of the whole spec, guarded by metadata.resourceVersion so that
// two candidates cannot both take the lease (the loser gets 409 Conflict). Unset holder and
// times are sent as null (removed). Throws PatchError without a resourceVersion.
std::string lease_update_patch(const Lease& lease);

}  // namespace tailor::kube
