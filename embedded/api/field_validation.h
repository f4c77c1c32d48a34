// fieldValidation=Strict|Warn|Ignore for unknown fields. Without full schemas the server knows
// the top-level fields of each served kind and ObjectMeta's fields; deeper levels are not checked
// yet.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::kube::embedded {

enum class FieldValidation { Ignore, Warn, Strict };

// The query parameter ("" : Warn, the server default); anything else is a 400.
FieldValidation parse_field_validation(const std::string& value);

// "unknown field \"spec\""-style paths ("foo", "metadata.nmae") of fields the kind does not have.
std::vector<std::string> unknown_fields(const ResourceInfo& resource,
                                        const boost::json::object& object);

// Strict: throws 400 with kube-apiserver's message. Warn: returns the Warning header values.
std::vector<std::string> check_unknown_fields(const ResourceInfo& resource,
                                              const boost::json::object& object,
                                              FieldValidation mode);
// The same for unknown field paths found elsewhere (a custom resource's pruned fields).
std::vector<std::string> report_unknown_fields(const ResourceInfo& resource,
                                               const std::vector<std::string>& paths,
                                               FieldValidation mode);

}  // namespace tailor::kube::embedded
