// The strict decoding errors kube-apiserver's JSON decoding (sigs.k8s.io/json UnmarshalStrict)
// finds in a request body, read from its text: the parsed tree no longer shows a repeated key.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "embedded/api/known_fields.h"

namespace tailor::embedded {

// In document order: `unknown field "spec.foo"` at a field's first occurrence when `known` does
// not declare it (nothing below an unknown field is looked at), `duplicate field "spec.paused"` at
// a known field's second occurrence. known == nullptr: duplicates only (a patch decoded into a
// map). Each error starts with `prefix` ("json patch " for a JSON patch's operations). A text
// that is not JSON has none (its parse error is reported elsewhere).
std::vector<std::string> strict_decoding_errors(std::string_view json, const KnownFields* known,
                                                const std::string& prefix = "");

// The members of a JSON patch's operations (op, path, from, value), for the list of them.
const KnownFields& json_patch_operation_fields();

}  // namespace tailor::embedded
