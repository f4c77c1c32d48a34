// Reading container resources out of pod JSON for the resize rules and for quota / LimitRange
// admission (private to embedded/; pulls Boost.JSON).
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/storage/field_errors.h"
#include "embedded/storage/status_error.h"
#include "kube/model/pod.h"
#include "kube/model/resources.h"

namespace tailor::embedded {

namespace bj = boost::json;

// One quantity as kube-apiserver decodes it from JSON (Quantity.UnmarshalJSON): a string or a
// number, surrounding whitespace ignored. nullopt and *error set to apimachinery's parse error
// ("quantities must match the regular expression ...") when it is not a quantity.
std::optional<kube::Quantity> decode_quantity(const bj::value& value, std::string* error);
// A resource list ({"cpu": "100m", ...}); absent, null and {} are all empty. A value that is not
// a quantity is a 400, as kube-apiserver rejects it while decoding; `path` names it.
kube::ResourceList resource_list(const bj::value* list, std::string_view path);
// Semantic equality (1 == 1000m); absent, null and {} are equal, as apiequality.Semantic has it.
bool same_resource_lists(const bj::value* a, const bj::value* b);
// The members of a JSON object, or nullptr.
const bj::value* member(const bj::value* object, std::string_view key);
// spec.containers or spec.initContainers; empty when absent.
const bj::array& container_list(const bj::object& pod, std::string_view list);
// A sidecar: an init container with restartPolicy Always.
bool is_sidecar(const bj::value& init_container);
// The typed pod; a malformed one is a 400 naming the field.
kube::Pod decode_pod(const bj::object& pod);

}  // namespace tailor::embedded
