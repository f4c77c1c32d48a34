// Server-side apply's typed patch object. kube-apiserver converts an apply patch to its kind's
// schema before merging it (structured-merge-diff), and a field the schema does not declare fails
// the request whatever fieldValidation says: 500 "failed to create typed patch object
// (<namespace>/<name>; <group>/<version>, Kind=<Kind>): .spec.foo: field not declared in schema".
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/api/known_fields.h"

namespace tailor::embedded {

// The undeclared fields of an apply patch, as structured-merge-diff names them: ".spec.foo",
// ".spec.containers[name=\"app\"].colour", ".spec.tolerations[0].colour"; sorted.
std::vector<std::string> undeclared_fields(const KnownFields& known,
                                           const boost::json::object& patch);

// Throws the 500 above if the patch (in the URL's version) has undeclared fields.
void check_apply_patch_fields(const KnownFields& known, const boost::json::object& patch);
// The same for a custom resource, whose undeclared fields are what its schema prunes from a copy
// of the patch ("spec.foo", "spec.items[0].foo": a list is named by index) and what ObjectMeta
// does not declare in its metadata; nothing under x-kubernetes-preserve-unknown-fields is
// undeclared.
void check_pruned_apply_fields(std::vector<std::string> pruned, const boost::json::object& patch);

// The apply handler's strict YAML check of the patch, after the typed conversion: go-yaml's
// errors for its repeated keys, "line <n>: key "<key>" already set in map" in document order
// (the line of the repeated key's value).
std::vector<std::string> repeated_key_errors(std::string_view json);
// Strict: 400 "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal
// errors:\n  line 1: key "a" already set in map"; Warn: each error as a Warning text.
std::vector<std::string> report_repeated_keys(std::string_view json, bool strict);

}  // namespace tailor::embedded
