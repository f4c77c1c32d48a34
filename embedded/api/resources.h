// The built-in resource types tailor-cluster serves.
#pragma once

#include <string>
#include <vector>

#include "embedded/storage/resource_info.h"

namespace tailor::kube::embedded {

const std::vector<ResourceInfo>& builtin_resources();
// nullptr when the group/version does not serve that resource.
const ResourceInfo* find_resource(const std::string& group, const std::string& version,
                                  const std::string& resource);
// The group versions served, core ("", "v1") first.
std::vector<std::pair<std::string, std::string>> served_group_versions();

}  // namespace tailor::kube::embedded
