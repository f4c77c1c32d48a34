#include "embedded/storage/resource_info.h"

#include <algorithm>

namespace tailor::embedded {

bool ResourceInfo::has_subresource(const std::string& name) const {
  return std::find(subresources.begin(), subresources.end(), name) != subresources.end();
}

std::string ResourceInfo::api_version() const {
  return group.empty() ? version : group + "/" + version;
}

}  // namespace tailor::embedded
