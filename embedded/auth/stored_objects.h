// Private to auth/: the objects authentication and authorization read from the store.
#pragma once

#include "embedded/storage/object_store.h"

namespace tailor::embedded {

inline constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";

// A built-in resource of version v1 ("" for core); throws std::logic_error when the table lacks it.
const ResourceInfo& builtin(const std::string& group, const std::string& resource);
// The object, or null when there is none.
ObjectPtr find_object(const ObjectStore& store, const ResourceInfo& resource, const std::string& ns,
                      const std::string& name);

}  // namespace tailor::embedded
