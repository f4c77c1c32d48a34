// The quota controller's part that admission cannot do: when pods are deleted or end, the
// quotas of their namespace get status.used recounted (a write only when the usage changed).
#include <set>

#include "embedded/api/resources.h"
#include "embedded/controllers/watch_loop.h"
#include "embedded/quota/quota_status.h"
#include "embedded/server/features.h"

namespace tailor::embedded {
namespace {

const ResourceInfo& pods() { return *find_resource("", "v1", "pods"); }

class QuotaController : public WatchLoop {
 public:
  explicit QuotaController(ObjectStore& store) : WatchLoop(store, {&pods()}) {}

 protected:
  // Deletions and phase changes give usage back; creates and resizes are charged by admission.
  void observe(const StoredEvent& e) override {
    if (e.type != EventType::Added) changed_.insert(e.object->ns());
  }

  void reconcile() override {
    std::set<std::string> namespaces;
    namespaces.swap(changed_);
    for (const std::string& ns : namespaces) {
      try {
        refresh_quota_status(store_, ns);
      } catch (const std::exception&) {
        changed_.insert(ns);  // a racing write: counted again on the next pass
      }
    }
  }

 private:
  std::set<std::string> changed_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_quota_controller(ObjectStore& store) {
  return std::make_unique<QuotaController>(store);
}

}  // namespace tailor::embedded
