#include "embedded/resize/resource_requirements.h"

#include "embedded/api/validation.h"
#include "embedded/resize/resource_json.h"

namespace tailor::embedded {
namespace {

using Errors = std::vector<FieldCause>;

constexpr std::string_view kRequestsPrefix = "requests.";

bool has_slash(std::string_view name) { return name.find('/') != std::string_view::npos; }

// helper.IsNativeResource: no domain, or a kubernetes.io/ one.
bool native(std::string_view name) {
  return !has_slash(name) || name.find("kubernetes.io/") != std::string_view::npos;
}

// helper.IsOvercommitAllowed: native resources except hugepages.
bool overcommit_allowed(std::string_view name) {
  return native(name) && !name.starts_with(kube::kResourceHugePagesPrefix);
}

// helper.IsExtendedResourceName: a domain-prefixed name that is valid as a quota's
// "requests.<name>".
bool extended(std::string_view name) {
  if (native(name) || name.starts_with(kRequestsPrefix)) return false;
  return qualified_name_errors(std::string(kRequestsPrefix) + std::string(name)).empty();
}

// helper.IsStandardResourceName (names without a domain).
bool standard_resource(std::string_view name) {
  static constexpr std::string_view kStandard[] = {"cpu",
                                                   "memory",
                                                   "ephemeral-storage",
                                                   "requests.cpu",
                                                   "requests.memory",
                                                   "requests.ephemeral-storage",
                                                   "limits.cpu",
                                                   "limits.memory",
                                                   "limits.ephemeral-storage",
                                                   "pods",
                                                   "services",
                                                   "replicationcontrollers",
                                                   "resourcequotas",
                                                   "secrets",
                                                   "configmaps",
                                                   "persistentvolumeclaims",
                                                   "storage",
                                                   "requests.storage",
                                                   "services.nodeports",
                                                   "services.loadbalancers"};
  for (std::string_view s : kStandard) {
    if (name == s) return true;
  }
  return name.starts_with(kube::kResourceHugePagesPrefix) ||
         name.starts_with("requests.hugepages-");
}

bool standard_container_resource(std::string_view name) {
  return name == kube::kResourceCpu || name == kube::kResourceMemory ||
         name == kube::kResourceEphemeralStorage ||
         name.starts_with(kube::kResourceHugePagesPrefix);
}

// validateContainerResourceName.
Errors name_errors(const std::string& name, const std::string& path) {
  Errors errors;
  for (const std::string& why : qualified_name_errors(name)) {
    errors.push_back(invalid_value(path, name, why));
  }
  if (errors.empty() && !has_slash(name) && !standard_resource(name)) {
    errors.push_back(
        invalid_value(path, name, "must be a standard resource type or fully qualified"));
  }
  if (!has_slash(name)) {
    if (!standard_container_resource(name)) {
      errors.push_back(invalid_value(path, name, "must be a standard resource for containers"));
    }
  } else if (!native(name) && !extended(name)) {
    errors.push_back(invalid_value(path, name, "doesn't follow extended resource name standard"));
  }
  return errors;
}

// The name and ValidateResourceQuantityValue of one entry of requests or limits.
Errors entry_errors(const std::string& name, const kube::Quantity& quantity,
                    const std::string& list_path) {
  const std::string path = list_path + "[" + name + "]";
  Errors errors = name_errors(name, path);
  if (quantity.sign() < 0) {
    errors.push_back(
        invalid_value(path, quantity.to_string(), "must be greater than or equal to 0"));
  }
  if (extended(name) && quantity.milli_value() % 1000 != 0) {
    errors.push_back(invalid_value(path, quantity.to_string(), "must be an integer"));
  }
  return errors;
}

std::optional<FieldCause> request_error(const std::string& name, const kube::Quantity& request,
                                        const kube::ResourceList& limits,
                                        const std::string& limits_path,
                                        const std::string& requests_path) {
  const kube::Quantity* limit = find_resource(limits, name);
  if (!limit) {
    if (overcommit_allowed(name)) return std::nullopt;
    return required(limits_path, "Limit must be set for non overcommitable resources");
  }
  if (request != *limit && !overcommit_allowed(name)) {
    return invalid_value(requests_path, request.to_string(),
                         "must be equal to " + name + " limit of " + limit->to_string());
  }
  if (request > *limit) {
    return invalid_value(
        requests_path, request.to_string(),
        "must be less than or equal to " + name + " limit of " + limit->to_string());
  }
  return std::nullopt;
}

}  // namespace

std::vector<FieldCause> validate_resource_requirements(const bj::value* resources,
                                                       const std::string& path) {
  const std::string limits_path = path + ".limits";
  const std::string requests_path = path + ".requests";
  kube::ResourceList limits = resource_list(member(resources, "limits"), limits_path);
  kube::ResourceList requests = resource_list(member(resources, "requests"), requests_path);
  Errors errors;
  for (const auto& [name, limit] : limits) {
    Errors e = entry_errors(name, limit, limits_path);
    errors.insert(errors.end(), e.begin(), e.end());
  }
  for (const auto& [name, request] : requests) {
    Errors e = entry_errors(name, request, requests_path);
    errors.insert(errors.end(), e.begin(), e.end());
    if (auto error = request_error(name, request, limits, limits_path, requests_path)) {
      errors.push_back(*error);
    }
  }
  return errors;
}

}  // namespace tailor::embedded
