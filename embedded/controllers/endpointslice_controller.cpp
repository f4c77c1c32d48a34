// The EndpointSlice controller and the endpoints controller of kube-controller-manager for
// Services with a selector (endpoint_slices.h says what they hold): their slices and Endpoints
// follow the pods — created, updated when they differ, slices no longer wanted deleted, and both
// removed with the Service (slices also through their owner reference). Services without a
// selector are left to whoever writes their endpoints (default/kubernetes: the kubernetes Service
// controller; kube-system/kube-dns: `tailor cluster up`); slices of this controller's for such a
// Service go, as upstream's reconciler removes them. As upstream's endpoints controller, the
// Endpoints named as a deleted Service go with it whoever wrote them, and so, at start, do those
// whose Service is gone (deleted while tailor-cluster was down: checkLeftoverEndpoints).
#include <boost/json.hpp>
#include <iterator>
#include <map>
#include <set>
#include <string_view>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/endpoint_slices.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

// client-go's resourcelock.LeaderElectionRecordAnnotationKey.
constexpr std::string_view kLeaderElectionAnnotation = "control-plane.alpha.kubernetes.io/leader";

bool has_selector(const bj::object& service) {
  const bj::value* selector = find_path(service, "spec.selector");
  return selector && selector->is_object() && !selector->as_object().empty() &&
         string_at(service, "spec.type") != "ExternalName";
}

// `stored` with `want`'s content (labels, owner references, and the body) replacing its own.
bj::object with_content(bj::object stored, const bj::object& want) {
  bj::object& meta = object_field(stored, "metadata");
  const bj::object& want_meta = want.at("metadata").as_object();
  for (const char* key : {"labels", "ownerReferences"}) {
    if (const bj::value* v = want_meta.if_contains(key)) {
      meta[key] = *v;
    } else {
      meta.erase(key);
    }
  }
  for (const char* key : {"addressType", "endpoints", "ports", "subsets"}) {
    if (const bj::value* v = want.if_contains(key)) {
      stored[key] = *v;
    } else {
      stored.erase(key);
    }
  }
  return stored;
}

class EndpointSliceController : public WatchLoop {
 public:
  explicit EndpointSliceController(ObjectStore& store)
      : WatchLoop(store, {&services_resource(), &pods_resource(), &endpoint_slices_resource(),
                          &endpoints_resource()}) {}

 protected:
  void observe(const StoredEvent& e) override {
    if (e.resource == &services_resource() && e.type == EventType::Deleted) {
      deleted_services_.insert(object_key(e.object->ns(), e.object->name()));
    }
  }

  void reconcile() override {
    if (!leftovers_checked_) check_leftover_endpoints();
    std::map<std::string, std::vector<const bj::object*>> pods_by_namespace;
    for (const auto& [key, pod] : cached(pods_resource())) {
      pods_by_namespace[meta_string(*pod, "namespace")].push_back(pod.get());
    }
    std::set<std::string> wanted_slices;  // "ns/name"
    for (const auto& [key, service] : cached(services_resource())) {
      if (!has_selector(*service) || is_terminating(*service)) continue;
      const auto& pods = pods_by_namespace[meta_string(*service, "namespace")];
      try {
        for (const bj::object& slice : desired_endpoint_slices(*service, pods)) {
          wanted_slices.insert(key_of(slice));
          ensure(endpoint_slices_resource(), slice);
        }
        ensure(endpoints_resource(), desired_endpoints(*service, pods));
        written_endpoints_.insert(key);
      } catch (const std::exception&) {
        // Tried again on the next pass.
      }
    }
    remove_unwanted(wanted_slices);
  }

 private:
  // The first pass sees every stored object: Endpoints without their Service are taken as a
  // deleted Service's. An Endpoints holding a leader-election record is a lock, not endpoints.
  void check_leftover_endpoints() {
    const ObjectMap& services = cached(services_resource());
    for (const auto& [key, endpoints] : cached(endpoints_resource())) {
      if (!annotation(*endpoints, kLeaderElectionAnnotation).empty()) continue;
      if (!services.count(key)) deleted_services_.insert(key);
    }
    leftovers_checked_ = true;
  }

  void ensure(const ResourceInfo& r, const bj::object& want) {
    const ObjectMap& objects = cached(r);
    const auto it = objects.find(key_of(want));
    if (it == objects.end()) {
      create(r, want);
      return;
    }
    if (with_content(*it->second, want) == *it->second) return;
    modify(r, *it->second, [&](const bj::object& stored) { return with_content(stored, want); });
  }

  // This controller's slices no Service wants; the Endpoints of deleted Services (unless created
  // again meanwhile), and of its own Services that are gone or lost their selector.
  void remove_unwanted(const std::set<std::string>& wanted_slices) {
    std::vector<bj::object> doomed;
    for (const auto& [key, slice] : cached(endpoint_slices_resource())) {
      if (label(*slice, "endpointslice.kubernetes.io/managed-by") != kEndpointSliceManagedBy) {
        continue;
      }
      if (!wanted_slices.count(key)) doomed.push_back(*slice);
    }
    for (const bj::object& slice : doomed) try_remove(endpoint_slices_resource(), slice);
    const ObjectMap& live = cached(services_resource());
    for (auto it = written_endpoints_.begin(); it != written_endpoints_.end();) {
      const auto service = live.find(*it);
      if (service != live.end() && has_selector(*service->second)) {
        ++it;
        continue;
      }
      remove_endpoints(*it);
      it = written_endpoints_.erase(it);
    }
    for (auto it = deleted_services_.begin(); it != deleted_services_.end();) {
      it = live.count(*it) || remove_endpoints(*it) ? deleted_services_.erase(it) : std::next(it);
    }
  }

  // False when the Endpoints are still there (tried again on the next pass).
  bool remove_endpoints(const std::string& key) {
    const ObjectMap& endpoints = cached(endpoints_resource());
    const auto e = endpoints.find(key);
    if (e == endpoints.end()) return true;
    const bj::object object = *e->second;
    return try_remove(endpoints_resource(), object);
  }

  bool try_remove(const ResourceInfo& r, const bj::object& object) {
    try {
      remove(r, object, 0);
      return true;
    } catch (const std::exception&) {
      return false;  // gone already, or tried again on the next pass
    }
  }

  // Services whose Endpoints this controller wrote (the object carries no mark of it).
  std::set<std::string> written_endpoints_;
  // Services deleted since the last pass, and at start those Endpoints name that are not there.
  std::set<std::string> deleted_services_;
  bool leftovers_checked_ = false;
};

}  // namespace

std::unique_ptr<ControlLoop> make_endpointslice_controller(ObjectStore& store) {
  return std::make_unique<EndpointSliceController>(store);
}

}  // namespace tailor::embedded
