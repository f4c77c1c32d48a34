// The garbage collector: objects all of whose owners are gone (no object of that name, or one
// with another uid) are deleted in the background, pods gracefully; references to vanished
// owners are dropped from objects that still have a live one.
#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::kube::embedded {
namespace {

// The kinds that commonly carry owner references.
std::vector<const ResourceInfo*> dependents() {
  std::vector<const ResourceInfo*> out;
  for (auto [group, resource] : std::initializer_list<std::pair<const char*, const char*>>{
           {"", "pods"},
           {"apps", "replicasets"},
           {"apps", "deployments"},
           {"apps", "statefulsets"},
           {"apps", "daemonsets"},
           {"batch", "jobs"},
           {"batch", "cronjobs"},
           {"", "configmaps"},
           {"", "secrets"},
           {"", "services"},
           {"", "serviceaccounts"},
           {"policy", "poddisruptionbudgets"}}) {
    out.push_back(&resource_named(group, resource));
  }
  return out;
}

const ResourceInfo* owner_resource(const std::string& api_version, const std::string& kind) {
  for (const ResourceInfo& r : builtin_resources()) {
    if (r.api_version() == api_version && r.kind == kind) return &r;
  }
  return nullptr;
}

class GarbageCollector : public WatchLoop {
 public:
  explicit GarbageCollector(ObjectStore& store)
      : WatchLoop(store, dependents()), watched_(dependents()) {}

 protected:
  void reconcile() override {
    for (const ResourceInfo* r : watched_) {
      std::vector<ObjectPtr> owned;
      for (const auto& [key, o] : cached(*r)) {
        const bj::value* refs = find_path(*o, "metadata.ownerReferences");
        if (refs && refs->is_array() && !refs->as_array().empty()) owned.push_back(o);
      }
      for (const ObjectPtr& o : owned) collect(*r, *o);
    }
  }

 private:
  enum class Owner { Alive, Gone, Unknown };

  Owner owner_state(const bj::object& dependent, const bj::object& ref) const {
    const ResourceInfo* r = owner_resource(string_at(ref, "apiVersion"), string_at(ref, "kind"));
    if (!r) return Owner::Unknown;  // a custom resource: its absence cannot be judged here
    std::string ns = r->namespaced ? meta_string(dependent, "namespace") : "";
    try {
      ObjectPtr owner = store_.get(*r, ns, string_at(ref, "name"));
      return meta_string(*owner, "uid") == string_at(ref, "uid") ? Owner::Alive : Owner::Gone;
    } catch (const StatusError&) {
      return Owner::Gone;
    }
  }

  void collect(const ResourceInfo& r, const bj::object& o) {
    if (is_terminating(o)) return;
    bj::array alive;
    std::size_t gone = 0;
    for (const bj::value& ref : find_path(o, "metadata.ownerReferences")->as_array()) {
      if (ref.is_object() && owner_state(o, ref.as_object()) == Owner::Gone) {
        ++gone;
      } else {
        alive.push_back(ref);
      }
    }
    if (gone == 0) return;
    try {
      if (alive.empty()) {
        bool pod = r.group.empty() && r.resource == "pods";
        remove(r, o, pod ? pod_grace_seconds(o) : 0);
      } else {
        modify(r, o, [&](const bj::object& current) {
          bj::object next = current;
          metadata(next)["ownerReferences"] = alive;
          return next;
        });
      }
    } catch (const StatusError&) {
      // Changed or deleted meanwhile: looked at again on the next pass.
    }
  }

  std::vector<const ResourceInfo*> watched_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_garbage_collector(ObjectStore& store) {
  return std::make_unique<GarbageCollector>(store);
}

}  // namespace tailor::kube::embedded
