// The garbage collector: objects all of whose owners are gone (no object of that name, or one
// with another uid) are deleted in the background, pods gracefully; references to vanished
// owners are dropped from objects that still have a live one. Owners deleted with
// propagationPolicy Orphan ("orphan" finalizer) have their dependents' references to them dropped
// before they go; with Foreground ("foregroundDeletion") their dependents are deleted (in the
// foreground too) and they go once none is left.
#include <algorithm>
#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
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

constexpr const char* kOrphan = "orphan";
constexpr const char* kForeground = "foregroundDeletion";

bool has_finalizer(const bj::object& o, std::string_view name) {
  const bj::value* f = find_path(o, "metadata.finalizers");
  if (!f || !f->is_array()) return false;
  const bj::array& a = f->as_array();
  return std::any_of(a.begin(), a.end(),
                     [&](const bj::value& v) { return v.is_string() && v.as_string() == name; });
}

bool refers_to(const bj::value& ref, const std::string& uid) {
  return ref.is_object() && string_at(ref, "uid") == uid;
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
      std::vector<ObjectPtr> owned, finalizing;
      for (const auto& [key, o] : cached(*r)) {
        const bj::value* refs = find_path(*o, "metadata.ownerReferences");
        if (refs && refs->is_array() && !refs->as_array().empty()) owned.push_back(o);
        if (is_terminating(*o) && (has_finalizer(*o, kOrphan) || has_finalizer(*o, kForeground))) {
          finalizing.push_back(o);
        }
      }
      for (const ObjectPtr& o : owned) collect(*r, *o);
      for (const ObjectPtr& o : finalizing) finish_deletion(*r, *o);
    }
  }

 private:
  struct Dependent {
    const ResourceInfo* resource;
    ObjectPtr object;
  };

  std::vector<Dependent> dependents_of(const std::string& uid) const {
    std::vector<Dependent> out;
    for (const ResourceInfo* r : watched_) {
      for (const auto& [key, o] : cached(*r)) {
        const bj::value* refs = find_path(*o, "metadata.ownerReferences");
        if (!refs || !refs->is_array()) continue;
        const bj::array& a = refs->as_array();
        if (std::any_of(a.begin(), a.end(), [&](const bj::value& v) { return refers_to(v, uid); }))
          out.push_back({r, o});
      }
    }
    return out;
  }

  // Works off the owner's orphan or foregroundDeletion finalizer; what fails is retried on the
  // next pass, and the finalizer stays until its work is done.
  void finish_deletion(const ResourceInfo& r, const bj::object& owner) {
    std::string uid = meta_string(owner, "uid");
    std::vector<Dependent> dependents = dependents_of(uid);
    bool orphan = has_finalizer(owner, kOrphan);
    try {
      for (const Dependent& d : dependents) {
        if (orphan) {
          drop_owner(*d.resource, *d.object, uid);
        } else if (!is_terminating(*d.object)) {
          bool pod = d.resource->group.empty() && d.resource->resource == "pods";
          remove(*d.resource, *d.object, pod ? pod_grace_seconds(*d.object) : 0,
                 pod ? "" : kForeground);
        }
      }
      if (orphan || dependents.empty()) drop_finalizer(r, owner, orphan ? kOrphan : kForeground);
    } catch (const StatusError&) {
      // Changed meanwhile: the next pass sees the new state.
    }
  }

  void drop_owner(const ResourceInfo& r, const bj::object& o, const std::string& uid) {
    modify(r, o, [&](const bj::object& current) {
      bj::object next = current;
      bj::value& refs = metadata(next)["ownerReferences"];
      if (refs.is_array()) {
        bj::array& a = refs.as_array();
        a.erase(std::remove_if(a.begin(), a.end(),
                               [&](const bj::value& ref) { return refers_to(ref, uid); }),
                a.end());
        if (a.empty()) metadata(next).erase("ownerReferences");
      }
      return next;
    });
  }

  void drop_finalizer(const ResourceInfo& r, const bj::object& o, std::string_view finalizer) {
    modify(r, o, [&](const bj::object& current) {
      bj::object next = current;
      bj::value& finalizers = metadata(next)["finalizers"];
      if (finalizers.is_array()) {
        bj::array& a = finalizers.as_array();
        a.erase(std::remove_if(a.begin(), a.end(),
                               [&](const bj::value& v) {
                                 return v.is_string() && v.as_string() == finalizer;
                               }),
                a.end());
      }
      return next;
    });
  }

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

}  // namespace tailor::embedded
