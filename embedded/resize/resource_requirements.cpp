#include "embedded/resize/resource_requirements.h"

#include "embedded/resize/resource_json.h"

namespace tailor::embedded {
namespace {

// helper.IsOvercommitAllowed: native resources (no domain, or kubernetes.io/) except hugepages.
bool overcommit_allowed(std::string_view name) {
  bool native = name.find('/') == std::string_view::npos || name.starts_with("kubernetes.io/");
  return native && !name.starts_with(kube::kResourceHugePagesPrefix);
}

void check_not_negative(const kube::ResourceList& list, const std::string& path,
                        std::vector<FieldCause>& errors) {
  for (const auto& [name, quantity] : list) {
    if (quantity.sign() < 0) {
      errors.push_back(invalid_value(path + "[" + name + "]", quantity.to_string(),
                                     "must be greater than or equal to 0"));
    }
  }
}

}  // namespace

std::vector<FieldCause> validate_resource_requirements(const bj::value* resources,
                                                       const std::string& path) {
  const std::string limits_path = path + ".limits";
  const std::string requests_path = path + ".requests";
  kube::ResourceList limits = resource_list(member(resources, "limits"), limits_path);
  kube::ResourceList requests = resource_list(member(resources, "requests"), requests_path);
  std::vector<FieldCause> errors;
  check_not_negative(limits, limits_path, errors);
  check_not_negative(requests, requests_path, errors);
  for (const auto& [name, request] : requests) {
    const kube::Quantity* limit = find_resource(limits, name);
    if (!limit) {
      if (!overcommit_allowed(name)) {
        errors.push_back({"FieldValueRequired",
                          "Required value: Limit must be set for non overcommitable resources",
                          limits_path});
      }
      continue;
    }
    if (request != *limit && !overcommit_allowed(name)) {
      errors.push_back(
          invalid_value(requests_path, request.to_string(),
                        "must be equal to " + name + " limit of " + limit->to_string()));
    } else if (request > *limit) {
      errors.push_back(invalid_value(
          requests_path, request.to_string(),
          "must be less than or equal to " + name + " limit of " + limit->to_string()));
    }
  }
  return errors;
}

}  // namespace tailor::embedded
