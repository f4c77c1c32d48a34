#include "actuator/pod_facts.h"

#include "actuator/eligibility.h"
#include "actuator/startup_boost.h"
#include "kube/model/pod_resources.h"

namespace tailor::actuator {
namespace {

// Containers as sizing reads them: names, resources and restartPolicy.
std::vector<kube::Container> sizing_containers(const std::vector<kube::Container>& containers) {
  std::vector<kube::Container> out(containers.size());
  for (std::size_t i = 0; i < containers.size(); ++i) {
    out[i].name = containers[i].name;
    out[i].resources = containers[i].resources;
    out[i].restart_policy = containers[i].restart_policy;
  }
  return out;
}

// Containers as the actuator reads them (names, resources, resize and restart policies): no image.
std::vector<kube::Container> without_images(const std::vector<kube::Container>& containers) {
  std::vector<kube::Container> out = sizing_containers(containers);
  for (std::size_t i = 0; i < containers.size(); ++i) {
    out[i].resize_policy = containers[i].resize_policy;
  }
  return out;
}

bool read_by_actuator(const kube::PodCondition& c) {
  return c.type == kube::kPodResizePending || c.type == kube::kPodResizeInProgress;
}

// What observe_resize reads of a resize condition.
kube::PodCondition read_part(const kube::PodCondition& c) {
  return {.type = c.type,
          .status = c.status,
          .reason = c.reason,
          .message = c.message,
          .observed_generation = c.observed_generation};
}

std::optional<kube::TimePoint> oom_killed_at(const kube::ContainerStatus& status) {
  const auto& terminated = status.last_state.terminated;
  if (!terminated || terminated->reason != "OOMKilled") return std::nullopt;
  return kube::try_parse_rfc3339(terminated->finished_at);
}

std::optional<std::chrono::seconds> oom_killed_after(const kube::ContainerStatus& status) {
  const std::optional<kube::TimePoint> finished = oom_killed_at(status);
  const std::optional<kube::TimePoint> started =
      finished ? kube::try_parse_rfc3339(status.last_state.terminated->started_at) : std::nullopt;
  if (!started) return std::nullopt;
  return std::chrono::duration_cast<std::chrono::seconds>(*finished - *started);
}

// Null unless a pass still acts on it (StartupBoosts::pass): most pods carry none, or one
// reverted long ago, and hold no record.
std::shared_ptr<const BoostRecord> startup_boost(const kube::ObjectMeta& meta) {
  auto it = meta.annotations.find(std::string(kStartupBoostAnnotation));
  if (it == meta.annotations.end()) return nullptr;
  std::optional<BoostRecord> record = parse_boost_record(it->second);
  if (!record || (!boost_active(*record) && record->skipped.empty())) return nullptr;
  return std::make_shared<const BoostRecord>(std::move(*record));
}

std::optional<kube::TimePoint> ready_since(const kube::Pod& pod) {
  const kube::PodCondition* ready = kube::find_condition(pod.status, "Ready");
  if (!ready || ready->status != "True") return std::nullopt;
  return kube::try_parse_rfc3339(ready->last_transition_time);
}

std::optional<kube::TimePoint> started(const kube::Pod& pod) {
  if (auto t = kube::try_parse_rfc3339(pod.status.start_time)) return t;
  return kube::try_parse_rfc3339(pod.metadata.creation_timestamp);
}

}  // namespace

const kube::Container* PodFacts::find_container(std::string_view name) const {
  for (const kube::Container& c : spec->containers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

const ContainerStatusFacts* PodFacts::find_status(std::string_view name) const {
  for (const ContainerStatusFacts& s : status->container_statuses) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

const kube::PodCondition* PodFacts::find_condition(std::string_view type) const {
  for (const kube::PodCondition& c : status->resize_conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool PodFacts::startup_boosted() const { return startup_boost && boost_active(*startup_boost); }

// Each part is allocated apart from its control block: the controller's interner keeps weak
// pointers to parts no pod holds any more until its next purge, and a make_shared block would
// keep the part's own bytes for that long too.
PodFacts pod_facts(const kube::Pod& pod) {
  std::shared_ptr<kube::ObjectMeta> meta(new kube::ObjectMeta());
  meta->namespace_ = pod.metadata.namespace_;
  meta->labels = pod.metadata.labels;
  meta->owner_references = pod.metadata.owner_references;
  std::shared_ptr<const PodSpecFacts> spec(
      new PodSpecFacts{.containers = without_images(pod.spec.containers),
                       .init_containers = without_images(pod.spec.init_containers),
                       .overhead = pod.spec.overhead,
                       .resources = pod.spec.resources,
                       .windows = pod.spec.os_name == "windows"});
  std::shared_ptr<PodStatusFacts> status(
      new PodStatusFacts{.phase = pod.status.phase,
                         .qos_class = kube::parse_qos_class(pod.status.qos_class),
                         .observed_generation = pod.status.observed_generation,
                         .legacy_resize = pod.status.resize});
  for (const kube::PodCondition& c : pod.status.conditions) {
    if (read_by_actuator(c)) status->resize_conditions.push_back(read_part(c));
  }
  const kube::PodCondition* ready = kube::find_condition(pod.status, "Ready");
  status->ready_condition = ready && ready->status == "True";
  status->container_statuses.reserve(pod.status.container_statuses.size());
  for (const kube::ContainerStatus& s : pod.status.container_statuses) {
    status->container_statuses.push_back({.name = s.name,
                                          .oom_killed_at = oom_killed_at(s),
                                          .oom_killed_after = oom_killed_after(s),
                                          .actual = s.resources});
  }
  return PodFacts{.name = pod.metadata.name,
                  .uid = pod.metadata.uid,
                  .node_name = pod.spec.node_name,
                  .resource_version = pod.metadata.resource_version,
                  .shared_meta = std::move(meta),
                  .spec = std::move(spec),
                  .status = std::move(status),
                  .generation = pod.metadata.generation,
                  .started = started(pod),
                  .startup_boost = startup_boost(pod.metadata),
                  .ready_since = ready_since(pod),
                  .deleting = !pod.metadata.deletion_timestamp.empty(),
                  .mirror = is_mirror_pod(pod.metadata)};
}

kube::Pod sizing_pod(const PodSpecFacts& spec) {
  kube::Pod out;
  out.spec.containers = sizing_containers(spec.containers);
  out.spec.init_containers = sizing_containers(spec.init_containers);
  out.spec.overhead = spec.overhead;
  out.spec.resources = spec.resources;
  return out;
}

}  // namespace tailor::actuator
