// The ServiceAccount controller (kube-controller-manager's serviceaccount-controller): every
// namespace that is not terminating holds the ServiceAccount "default", made again when deleted.
// Pods that name no account run as it (service_account_admission).
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

const ResourceInfo& service_accounts() {
  static const ResourceInfo& r = resource_named("", "serviceaccounts");
  return r;
}

class ServiceAccountController : public WatchLoop {
 public:
  explicit ServiceAccountController(ObjectStore& store)
      : WatchLoop(store, {&namespaces_resource(), &service_accounts()}) {}

 protected:
  void reconcile() override {
    const ObjectMap& accounts = cached(service_accounts());
    for (const auto& [key, ns] : cached(namespaces_resource())) {
      if (find_path(*ns, "metadata.deletionTimestamp")) continue;
      const std::string name = string_at(*ns, "metadata.name");
      if (accounts.count(name + "/default")) continue;
      try {
        create(service_accounts(),
               {{"apiVersion", "v1"},
                {"kind", "ServiceAccount"},
                {"metadata", bj::object{{"name", "default"}, {"namespace", name}}}});
      } catch (const std::exception&) {
        // Tried again on the next pass (made meanwhile, or the namespace went).
      }
    }
  }
};

}  // namespace

std::unique_ptr<ControlLoop> make_service_account_controller(ObjectStore& store) {
  return std::make_unique<ServiceAccountController>(store);
}

}  // namespace tailor::embedded
