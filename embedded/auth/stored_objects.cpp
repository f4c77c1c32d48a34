#include "embedded/auth/stored_objects.h"

#include <stdexcept>

#include "embedded/api/resources.h"

namespace tailor::embedded {

const ResourceInfo& builtin(const std::string& group, const std::string& resource) {
  const ResourceInfo* r = find_resource(group, "v1", resource);
  if (!r) throw std::logic_error(resource + " missing from the resource table");
  return *r;
}

ObjectPtr find_object(const ObjectStore& store, const ResourceInfo& resource, const std::string& ns,
                      const std::string& name) {
  try {
    return store.get(resource, ns, name);
  } catch (const StatusError& e) {
    if (e.code() == 404) return nullptr;
    throw;
  }
}

}  // namespace tailor::embedded
