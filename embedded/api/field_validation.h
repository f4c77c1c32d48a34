// fieldValidation=Strict|Warn|Ignore for unknown and repeated fields. Built-in kinds are checked
// against the fields known_fields.h lists, custom resources against their schema (crd/); repeated
// keys are read from the request's text (strict_decoding.h). Unknown fields are dropped whatever
// the mode, as kube-apiserver's typed decoding drops them; the mode decides whether they are an
// error (Strict), Warning headers (Warn, the default) or silent (Ignore).
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

enum class FieldValidation { Ignore, Warn, Strict };

// The query parameter ("" : Warn, the server default); anything else is a 400.
FieldValidation parse_field_validation(const std::string& value);

// A create or update body's strict decoding errors (strict_decoding.h): Strict throws 400
// "<Kind> in version "<v>" cannot be handled as a <Kind>: strict decoding error: unknown field
// "spec.foo""; Warn returns them as Warning texts.
std::vector<std::string> report_decoding_errors(const ResourceInfo& resource,
                                                const std::vector<std::string>& errors,
                                                FieldValidation mode);

// "unknown field \"<path>\"" for each path: the strict decoding errors of unknown fields.
std::vector<std::string> unknown_field_errors(const std::vector<std::string>& paths);
// A patch's strict decoding errors: Strict throws kube-apiserver's 422 on the field "patch", whose
// value is `patched` (the patched object's JSON; a strategic merge patch quotes the patch
// instead, as Go prints it: see go_printed); Warn returns them as Warning texts.
std::vector<std::string> report_patch_errors(const std::vector<std::string>& errors,
                                             FieldValidation mode, const std::string& patched);

// A decoded JSON value as Go's fmt prints an interface{} holding it ("%+v"): map[a:1 b:[x y]],
// keys sorted, strings unquoted, null as <nil>.
std::string go_printed(const boost::json::value& value);

}  // namespace tailor::embedded
