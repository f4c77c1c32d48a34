// One cluster's CustomResourceDefinitions brought to life: what the CRDs in its store define is
// served (resources registered for discovery and REST, printer columns), their status conditions
// kept (NamesAccepted, Established, acceptedNames, storedVersions), and the objects of a deleted
// CRD removed. sync() reconciles with the store; it runs on every CRD change (a watch on a thread
// of its own) and before custom resources are looked up, so a CRD is served as soon as its write
// has been answered.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>

#include "embedded/crd/definition.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded::crd {

class CustomResources {
 public:
  explicit CustomResources(ObjectStore& store);
  ~CustomResources();  // stops serving this cluster's custom resources
  CustomResources(const CustomResources&) = delete;
  CustomResources& operator=(const CustomResources&) = delete;

  // Watches the store's CRDs and registers the refresher; self is this object.
  void start(const std::weak_ptr<CustomResources>& self);
  void sync();
  // The definition serving resource (group and plural); null for other resources.
  std::shared_ptr<const Definition> definition(const ResourceInfo& resource) const;

 private:
  struct Served {
    std::string resource_version;
    std::shared_ptr<const Definition> definition;
    bool accepted = false;
    const ResourceInfo* any_info = nullptr;  // to remove the objects when the CRD goes
  };

  void reconcile(const boost::json::object& crd);
  std::string name_conflict(const Definition& d) const;
  void write_status(const boost::json::object& crd, const Definition& d,
                    const std::string& conflict);
  void remove_objects(const ResourceInfo& resource);
  void forget(const std::string& name);
  void run();

  ObjectStore& store_;
  std::mutex sync_mu_;
  std::map<std::string, Served> served_;  // by CRD name
  mutable std::shared_mutex defs_mu_;
  std::map<std::string, std::shared_ptr<const Definition>> by_resource_;  // "group/plural"
  std::shared_ptr<Watch> watch_;
  std::thread thread_;
};

}  // namespace tailor::embedded::crd
