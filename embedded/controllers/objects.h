// Private to controllers/: reading workload objects (Boost.JSON) the way the controllers need —
// numbers with defaults, owner references, pod phase and readiness, label selectors.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "embedded/api/selectors.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/object_store.h"
#include "embedded/storage/resource_info.h"
#include "kube/model/time.h"

namespace tailor::embedded {

// The integer at a dotted path; `fallback` when absent or not a number.
std::int64_t int_at(const bj::object& object, std::string_view dotted_path,
                    std::int64_t fallback = 0);
// The object at a dotted path; an empty object when absent.
const bj::object& object_at(const bj::object& object, std::string_view dotted_path);
// The array at a dotted path; an empty array when absent or not an array.
const bj::array& array_at(const bj::object& object, std::string_view dotted_path);
// o[key] as an object, made one (replacing a non-object) when it is not: for writing into.
bj::object& object_field(bj::object& o, std::string_view key);
// Sets o[key] when it is absent or null, as SetDefaults_* functions fill unset fields.
void fill(bj::object& o, std::string_view key, bj::value value);
// metadata.annotations[key] / metadata.labels[key] (keys may hold dots); "" when absent.
std::string annotation(const bj::object& object, std::string_view key);
std::string label(const bj::object& object, std::string_view key);
// "namespace/name" of an object (as the store keys it).
std::string key_of(const bj::object& object);

struct OwnerRef {
  std::string api_version, kind, name, uid;
};
// The ownerReference with controller: true; nullopt when none.
std::optional<OwnerRef> controller_of(const bj::object& object);
bool controlled_by(const bj::object& object, const bj::object& owner);
// An ownerReference naming owner as the controller (blockOwnerDeletion set, as controllers do).
bj::object controller_reference(const ResourceInfo& owner_resource, const bj::object& owner);

bool is_terminating(const bj::object& object);  // deletionTimestamp set
// Not terminating, not Succeeded or Failed: a pod that counts towards a controller's replicas.
bool is_active_pod(const bj::object& pod);
// The Ready condition is True.
bool is_pod_ready(const bj::object& pod);
// Ready for at least min_ready_seconds (by the Ready condition's lastTransitionTime).
bool is_pod_available(const bj::object& pod, std::int64_t min_ready_seconds, kube::TimePoint now);

// metav1.LabelSelector in kube's string form ("app=web,tier in (a,b)"); "" for an empty one.
// Throws std::invalid_argument for an operator Kubernetes does not know.
std::string label_selector_string(const bj::value& selector);
// A metav1.LabelSelector parsed once for many objects; nullopt for a null or absent selector
// (it selects nothing) and an invalid one.
std::optional<LabelSelector> parse_selector(const bj::value* selector);
// Whether a metav1.LabelSelector selects these labels. A null or absent selector selects
// nothing; an empty one everything (as policy/v1 and apps/v1 define them). Invalid: nothing.
bool selector_matches(const bj::value* selector, const bj::object& object);
// metadata.labels formatted as kubectl prints a map of labels ("a=1,b=2", sorted; "<none>").
std::string format_labels(const bj::value* labels);

kube::TimePoint system_now();

}  // namespace tailor::embedded
