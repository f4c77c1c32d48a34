// ResourceQuota and LimitRange admission on pod create and on pods/resize, the API's defaulting of
// LimitRanges, and quota status (hard from spec, used recomputed from the namespace's pods on
// every pod admission and quota create; refresh_quota_status for the quota controller).
#include <boost/json.hpp>

#include "embedded/api/pod_qos.h"
#include "embedded/api/resources.h"
#include "embedded/quota/limit_range.h"
#include "embedded/quota/quota.h"
#include "embedded/quota/quota_status.h"
#include "embedded/resize/resource_json.h"
#include "embedded/server/features.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

const ResourceInfo& core(const char* resource) { return *find_resource("", "v1", resource); }

bool is_core(const AdmissionRequest& r, std::string_view resource) {
  return r.resource.group.empty() && r.resource.resource == resource;
}

bool is_pod_create(const AdmissionRequest& r) {
  return is_core(r, "pods") && r.operation == AdmissionOperation::Create && r.subresource.empty();
}

bool is_pod_resize(const AdmissionRequest& r) {
  return is_core(r, "pods") && r.operation == AdmissionOperation::Update &&
         r.subresource == "resize" && r.old_object;
}

std::vector<ObjectPtr> in_namespace(ObjectStore& store, const char* resource,
                                    const std::string& ns) {
  return store.list_objects(core(resource), ns);
}

kube::ResourceList usage(const bj::object& pod) { return pod_quota_usage(decode_pod(pod)); }

// What the namespace's stored pods selected by `quota` use, without the pod named `skip`.
kube::ResourceList quota_usage(const bj::object& quota, const std::vector<ObjectPtr>& pods,
                               const std::string& skip = "") {
  kube::ResourceList total;
  for (const ObjectPtr& pod : pods) {
    if (meta_string(*pod, "name") == skip || !quota_selects(quota, *pod)) continue;
    add_resources(total, usage(*pod));
  }
  return total;
}

// The usage `pod` adds to `quota` (nothing when the quota does not select it).
kube::ResourceList selected_usage(const bj::object& quota, const bj::object* pod) {
  return pod && quota_selects(quota, *pod) ? usage(*pod) : kube::ResourceList{};
}

kube::ResourceList hard_of(const bj::object& quota) {
  return resource_list(find_path(quota, "spec.hard"), "spec.hard");
}

bj::object to_json(const kube::ResourceList& list) {
  bj::object out;
  for (const auto& [name, q] : list) out[name] = q.to_string();
  return out;
}

// status.used names every hard resource, zero when nothing uses it (as the quota controller).
bj::object quota_status(const bj::object& quota, const kube::ResourceList& namespace_total) {
  kube::ResourceList hard = hard_of(quota);
  kube::ResourceList used;
  for (const auto& [name, q] : hard) {
    const kube::Quantity* u = find_resource(namespace_total, name);
    used.insert_or_assign(name, u ? *u : kube::Quantity());
  }
  return {{"hard", to_json(hard)}, {"used", to_json(used)}};
}

void write_quota_status(ObjectStore& store, const std::string& ns, const std::string& name,
                        const kube::ResourceList& namespace_total) {
  try {
    store.modify(
        core("resourcequotas"), ns, name,
        [&](const bj::object& current) {
          bj::object next = current;
          next["status"] = quota_status(current, namespace_total);
          return next;
        },
        UpdateScope::Status);
  } catch (const StatusError& e) {
    if (e.code() != 404) throw;  // deleted meanwhile: nothing to keep up to date
  }
}

// Checks the change from `before` (null on create) to r.object against every quota of the
// namespace that selects the pod, then records each quota's new usage.
void charge(ObjectStore& store, const AdmissionRequest& r, const bj::object* before) {
  std::vector<ObjectPtr> quotas = in_namespace(store, "resourcequotas", r.ns);
  if (quotas.empty()) return;
  std::vector<ObjectPtr> pods = in_namespace(store, "pods", r.ns);
  kube::Pod pod = decode_pod(r.object);
  std::vector<kube::ResourceList> totals;
  for (const ObjectPtr& quota : quotas) {
    kube::ResourceList others = quota_usage(*quota, pods, r.name);
    kube::ResourceList old_usage = selected_usage(*quota, before);
    kube::ResourceList new_usage = selected_usage(*quota, &r.object);
    if (quota_selects(*quota, r.object)) {
      QuotaState state{meta_string(*quota, "name"), hard_of(*quota), others};
      add_resources(state.used, old_usage);
      state.used = mask(state.used, state.hard);
      if (auto missing = missing_required(pod, state.hard)) {
        throw admission_forbidden(r, "failed quota: " + state.name + ": " + *missing);
      }
      if (auto message = quota_exceeded(state, positive_delta(new_usage, old_usage))) {
        throw admission_forbidden(r, *message);
      }
    }
    add_resources(others, new_usage);
    totals.push_back(std::move(others));
  }
  if (r.dry_run) return;
  for (std::size_t i = 0; i < quotas.size(); ++i) {
    write_quota_status(store, r.ns, meta_string(*quotas[i], "name"), totals[i]);
  }
}

void admit_pod_quota(ObjectStore& store, AdmissionRequest& r) {
  if (is_pod_create(r)) charge(store, r, nullptr);
  if (is_pod_resize(r)) charge(store, r, r.old_object);
}

void default_quota_status(ObjectStore& store, AdmissionRequest& r) {
  if (!is_core(r, "resourcequotas") || r.operation != AdmissionOperation::Create) return;
  r.object["status"] =
      quota_status(r.object, quota_usage(r.object, in_namespace(store, "pods", r.ns)));
}

void default_limit_ranges(AdmissionRequest& r) {
  if (is_core(r, "limitranges") && r.subresource.empty()) default_limit_range(r.object);
}

void default_pod_resources(ObjectStore& store, AdmissionRequest& r) {
  if (!is_pod_create(r)) return;
  bool changed = false;
  for (const ObjectPtr& lr : in_namespace(store, "limitranges", r.ns)) {
    changed = apply_limit_range_defaults(r.object, *lr) || changed;
  }
  // The QoS class is recorded after admission's defaults, as PrepareForCreate does.
  if (!changed) return;
  bj::value& status = r.object["status"];
  if (!status.is_object()) status = bj::object{};
  status.as_object()["qosClass"] = pod_qos_class(r.object);
}

void validate_limit_ranges(ObjectStore& store, AdmissionRequest& r) {
  if (!is_pod_create(r) && !is_pod_resize(r)) return;
  for (const ObjectPtr& lr : in_namespace(store, "limitranges", r.ns)) {
    std::vector<std::string> violations = limit_range_violations(r.object, *lr);
    if (!violations.empty()) throw admission_forbidden(r, aggregate(violations));
  }
}

}  // namespace

void refresh_quota_status(ObjectStore& store, const std::string& ns) {
  std::vector<ObjectPtr> quotas = in_namespace(store, "resourcequotas", ns);
  if (quotas.empty()) return;
  std::vector<ObjectPtr> pods = in_namespace(store, "pods", ns);
  for (const ObjectPtr& quota : quotas) {
    write_quota_status(store, ns, meta_string(*quota, "name"), quota_usage(*quota, pods));
  }
}

void add_quota_and_limit_ranges(ApiExtensions& extensions, ObjectStore& store) {
  ObjectStore* s = &store;
  extensions.mutating.push_back(default_limit_ranges);
  extensions.mutating.push_back([s](AdmissionRequest& r) { default_pod_resources(*s, r); });
  extensions.mutating.push_back([s](AdmissionRequest& r) { default_quota_status(*s, r); });
  extensions.validating.push_back([s](AdmissionRequest& r) { validate_limit_ranges(*s, r); });
  extensions.validating.push_back([s](AdmissionRequest& r) { admit_pod_quota(*s, r); });
}

}  // namespace tailor::embedded
