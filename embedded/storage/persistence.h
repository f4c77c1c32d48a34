// Persistence: where ObjectStore writes every change before it answers, and what it loads on
// start. Narrow on purpose: the store keeps serving reads and watches from memory; this only has
// to hold the latest revision of each object (its JSON text) and the store's resourceVersion, so
// that a restarted server has every object and continues the resourceVersion sequence.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tailor::embedded {

struct PersistedObject {
  std::string resource;  // "group/resource" ("/pods" for core)
  std::string key;       // "namespace/name" ("/name" when cluster-scoped)
  std::string json;      // the object as stored, metadata.resourceVersion included
};

struct PersistedState {
  std::uint64_t resource_version = 0;  // the last one handed out (deletes move it too)
  std::vector<PersistedObject> objects;
};

class Persistence {
 public:
  virtual ~Persistence() = default;
  // Each call is one committed transaction when it returns; it throws std::runtime_error when the
  // change could not be committed (then nothing of it is stored).
  virtual void put(std::string_view resource, std::string_view key, std::uint64_t resource_version,
                   std::string_view json) = 0;
  virtual void remove(std::string_view resource, std::string_view key,
                      std::uint64_t resource_version) = 0;
  virtual PersistedState load_all() = 0;
};

}  // namespace tailor::embedded
