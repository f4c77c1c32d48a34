// Object validation on create, with kube-apiserver's field paths and messages (422 Invalid).
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::embedded {

// "" when valid, else Kubernetes' message for an RFC 1123 subdomain / label.
std::string dns1123_subdomain_error(std::string_view name);
std::string dns1123_label_error(std::string_view name);
// IsDNS1123SubdomainWithUnderscore: labels may start with '_' and hold '_' (pod DNS searches).
std::string dns1123_subdomain_with_underscore_error(std::string_view name);
// IsQualifiedName: Kubernetes' messages for a name with an optional DNS subdomain prefix
// ("example.com/MyName"); empty when valid.
std::vector<std::string> qualified_name_errors(std::string_view name);

// Throws StatusError 422 naming every invalid field (of a pod: its containers too, as
// ValidatePodCreate). Runs after apply_create_defaults, as kube-apiserver validates defaulted
// objects.
void validate_create(const ResourceInfo& resource, const boost::json::object& object);

}  // namespace tailor::embedded
