// What a CRD schema node is to its x-kubernetes-validations rules, as kube-apiserver declares it
// (SchemaDeclType): integer int, number double, boolean bool, string string, int-or-string dyn,
// arrays lists, objects with additionalProperties maps of string, other objects object types with
// only their declared properties as fields (apiVersion, kind, metadata.name and
// metadata.generateName always at a resource's root), property names escaped as Kubernetes does.
#pragma once

#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "embedded/cel/types.h"

namespace tailor::embedded::crd {

// The type of self for rules on schema (named name, "selfType" at a rule's node); nullptr when
// the node is not visible to rules (no type, an array without items). Strings with a byte,
// duration, date or date-time format are dyn here (Kubernetes types them bytes, duration and
// timestamp, which this CEL lacks).
cel::TypePtr rule_type(const boost::json::object& schema, bool resource_root,
                       const std::string& name = "selfType");

// A property's name in CEL: reserved words as __word__, "__" "." "-" "/" as __underscores__,
// __dot__, __dash__, __slash__; nullopt when it has other characters or starts with a digit.
std::optional<std::string> escaped_property(std::string_view name);

}  // namespace tailor::embedded::crd
