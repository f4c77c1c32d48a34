#include "embedded/controllers/api_writes.h"

#include <random>

#include "embedded/api/resources.h"
#include "embedded/api/rest.h"
#include "embedded/api/validation.h"
#include "embedded/controllers/objects.h"
#include "kube/model/time.h"

namespace tailor::embedded {

bj::object admitted_for_create(const ApiExtensions& extensions, const ResourceInfo& resource,
                               bj::object object) {
  apply_create_defaults(resource, object);
  validate_create(resource, object);
  AdmissionRequest request{
      AdmissionOperation::Create,  resource, "",     meta_string(object, "namespace"),
      meta_string(object, "name"), object,   nullptr};
  extensions.admit(request);
  return object;
}

const ResourceInfo& resource_named(const std::string& group, const std::string& resource) {
  const ResourceInfo* r = find_resource(group, "v1", resource);
  if (!r) throw std::logic_error("no built-in resource " + resource + "." + group);
  return *r;
}

const ResourceInfo& pods_resource() {
  static const ResourceInfo& r = resource_named("", "pods");
  return r;
}

const ResourceInfo& nodes_resource() {
  static const ResourceInfo& r = resource_named("", "nodes");
  return r;
}

const ResourceInfo& namespaces_resource() {
  static const ResourceInfo& r = resource_named("", "namespaces");
  return r;
}

const ResourceInfo& services_resource() {
  static const ResourceInfo& r = resource_named("", "services");
  return r;
}

const ResourceInfo& endpoints_resource() {
  static const ResourceInfo& r = resource_named("", "endpoints");
  return r;
}

const ResourceInfo& endpoint_slices_resource() {
  static const ResourceInfo& r = resource_named("discovery.k8s.io", "endpointslices");
  return r;
}

EventRecorder::EventRecorder(ObjectStore& store, std::string component)
    : store_(store), component_(std::move(component)) {}

namespace {

std::string hex_suffix() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

}  // namespace

void EventRecorder::record(const bj::object& involved, const std::string& type,
                           const std::string& reason, const std::string& message) {
  static const ResourceInfo& events = resource_named("", "events");
  std::string ns = meta_string(involved, "namespace");
  if (ns.empty()) ns = "default";
  std::string now = kube::format_rfc3339(system_now());
  std::string key = meta_string(involved, "uid") + "/" + reason + "/" + message;
  if (auto it = names_.find(key); it != names_.end()) {
    try {
      store_.modify(events, ns, it->second, [&](const bj::object& e) {
        bj::object next = e;
        next["count"] = int_at(e, "count", 1) + 1;
        next["lastTimestamp"] = now;
        return next;
      });
      return;
    } catch (const StatusError&) {
      names_.erase(it);  // gone (namespace deleted, or expired): write a new one
    }
  }
  std::string name = meta_string(involved, "name") + "." + hex_suffix();
  bj::object event{
      {"metadata", bj::object{{"name", name}, {"namespace", ns}}},
      {"involvedObject", bj::object{{"kind", string_at(involved, "kind")},
                                    {"namespace", meta_string(involved, "namespace")},
                                    {"name", meta_string(involved, "name")},
                                    {"uid", meta_string(involved, "uid")},
                                    {"apiVersion", string_at(involved, "apiVersion")},
                                    {"resourceVersion", meta_string(involved, "resourceVersion")}}},
      {"reason", reason},
      {"message", message},
      {"source", bj::object{{"component", component_}}},
      {"firstTimestamp", now},
      {"lastTimestamp", now},
      {"count", 1},
      {"type", type},
      {"reportingComponent", component_},
      {"reportingInstance", ""}};
  store_.create(events, std::move(event));
  names_[key] = name;
}

}  // namespace tailor::embedded
