#include "node-agent/allocation/pod_status.h"

#include <boost/json.hpp>

#include "kube/client/rest_client.h"
#include "kube/model/decode.h"

namespace tailor::node::allocation {
namespace {

void change_condition(const kube::Pod& current, std::string_view type,
                      const std::optional<ResizeCondition>& desired, kube::TimePoint now,
                      kube::PodStatusPatch& patch) {
  const kube::PodCondition* existing = kube::find_condition(current.status, type);
  if (!desired) {
    if (existing != nullptr) patch.remove_conditions.emplace_back(type);
    return;
  }
  kube::PodCondition condition;
  condition.type = std::string(type);
  condition.status = "True";
  condition.reason = desired->reason;
  condition.message = desired->message;
  condition.observed_generation = desired->observed_generation;
  condition.last_probe_time = existing != nullptr ? existing->last_probe_time : "";
  const bool same_state =
      existing != nullptr && existing->status == "True" && existing->reason == desired->reason;
  condition.last_transition_time = same_state && !existing->last_transition_time.empty()
                                       ? existing->last_transition_time
                                       : kube::format_rfc3339(now);
  if (existing != nullptr && *existing == condition) return;
  patch.set_conditions.push_back(std::move(condition));
}

const kube::ContainerStatus* status_of(const kube::Pod& pod, const std::string& name) {
  if (const kube::ContainerStatus* s = kube::find_container_status(pod.status, name)) return s;
  for (const kube::ContainerStatus& s : pod.status.init_container_statuses) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

void change_container(const kube::Pod& current, const kube::ContainerResourcesStatus& desired,
                      kube::PodStatusPatch& patch) {
  const kube::ContainerStatus* existing = status_of(current, desired.name);
  if (existing == nullptr) return;
  kube::ContainerResourcesStatus change{desired.name, std::nullopt, std::nullopt};
  if (desired.allocated_resources &&
      existing->allocated_resources != *desired.allocated_resources) {
    change.allocated_resources = desired.allocated_resources;
  }
  if (desired.resources && existing->resources != desired.resources) {
    change.resources = desired.resources;
  }
  if (change.allocated_resources || change.resources) patch.containers.push_back(std::move(change));
}

bool is_retryable_conflict(const kube::ApiError& e) {
  // 409: resourceVersion precondition; 422: a failed "test" op of the JSON patch.
  return e.is_conflict() || e.is_invalid();
}

kube::ObjectRef pod_ref(const kube::Pod& pod, std::string subresource = "") {
  return kube::ObjectRef{kube::resources::kPods, pod.metadata.namespace_, pod.metadata.name,
                         std::move(subresource)};
}

}  // namespace

kube::PodStatusPatch resize_status_change(const kube::Pod& current,
                                          const DesiredResizeStatus& desired, kube::TimePoint now) {
  kube::PodStatusPatch patch;
  change_condition(current, kube::kPodResizePending, desired.pending, now, patch);
  change_condition(current, kube::kPodResizeInProgress, desired.in_progress, now, patch);
  for (const kube::ContainerResourcesStatus& c : desired.containers)
    change_container(current, c, patch);
  if (desired.observed_generation &&
      current.status.observed_generation != *desired.observed_generation) {
    patch.observed_generation = desired.observed_generation;
  }
  return patch;
}

bool is_empty(const kube::PodStatusPatch& patch) {
  return patch.set_conditions.empty() && patch.remove_conditions.empty() &&
         patch.containers.empty() && !patch.observed_generation;
}

std::string pod_rejection_patch(const std::string& reason, const std::string& message) {
  namespace bj = boost::json;
  return bj::serialize(bj::object{
      {"status", bj::object{{"phase", "Failed"}, {"reason", reason}, {"message", message}}}});
}

RestPodStatusWriter::RestPodStatusWriter(kube::RestClient& client, int max_attempts)
    : client_(client), max_attempts_(max_attempts) {}

void RestPodStatusWriter::update(const kube::Pod& cached, const Change& change) {
  kube::Pod current = cached;
  for (int attempt = 1;; ++attempt) {
    kube::PodStatusPatch patch = change(current);
    if (is_empty(patch)) return;
    patch.require_resource_version = true;
    try {
      client_.patch(pod_ref(current, "status"), kube::PatchType::Json,
                    kube::pod_status_patch(current, patch));
      return;
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return;
      if (!is_retryable_conflict(e) || attempt >= max_attempts_) throw;
      ++conflicts_;
    }
    try {
      current = kube::decode_pod(client_.get(pod_ref(cached)));
    } catch (const kube::ApiError& e) {
      if (e.is_not_found()) return;
      throw;
    }
    if (current.metadata.uid != cached.metadata.uid) return;  // recreated under the same name
  }
}

void RestPodStatusWriter::reject(const kube::Pod& pod, const std::string& reason,
                                 const std::string& message) {
  try {
    client_.patch(pod_ref(pod, "status"), kube::PatchType::Merge,
                  pod_rejection_patch(reason, message));
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
  }
}

}  // namespace tailor::node::allocation
