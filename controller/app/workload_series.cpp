#include "controller/app/workload_series.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string_view>

#include "kube/observe/exposition.h"
#include "kube/observe/metrics.h"

namespace tailor::controller {
namespace {

using Container = WorkloadSeries::Container;
using Values = WorkloadSeries::Values;
using Workload = WorkloadSeries::Workload;
using kube::metrics::SeriesType;

Values values(const kube::ResourceList& list) {
  Values out;
  if (const kube::Quantity* q = kube::find_resource(list, "cpu")) out.cpu = q->as_double();
  if (const kube::Quantity* q = kube::find_resource(list, "memory")) out.memory = q->as_double();
  return out;
}

double largest(double held, double seen) { return std::isnan(held) || seen > held ? seen : held; }

void keep_largest(Values& into, const kube::ResourceList& list) {
  const Values seen = values(list);
  if (!std::isnan(seen.cpu)) into.cpu = largest(into.cpu, seen.cpu);
  if (!std::isnan(seen.memory)) into.memory = largest(into.memory, seen.memory);
}

Container& container(Workload& w, const std::string& name) {
  for (Container& c : w.containers) {
    if (c.name == name) return c;
  }
  return w.containers.emplace_back(Container{.name = name});
}

// The series of a cpu/memory family: `of` gives a container's values (NaN: no series).
struct ResourceFamily {
  std::string_view name, help;
  Values (*of)(const Container&);
};

// The uncapped target only where the policy's bounds moved the target: elsewhere it is the
// target's series again (the dashboard falls back to the target).
double differs(double uncapped, double target) { return uncapped == target ? NAN : uncapped; }

Values usage_mean(const Container& c) {
  const auto& a = c.activity;
  if (a.pods == 0) return {};
  return {a.cpu_mean_sum / a.pods, a.memory_sum / a.pods};
}

Values usage_peak(const Container& c) {
  if (c.activity.pods == 0) return {};
  return {c.activity.cpu_peak, c.activity.memory_peak};
}

constexpr ResourceFamily kResourceFamilies[] = {
    {"tailor_workload_recommendation_target", "Recommended requests (within the policy's bounds).",
     [](const Container& c) { return c.target; }},
    {"tailor_workload_recommendation_lowerbound", "Lower bound of the recommendation.",
     [](const Container& c) { return c.lower_bound; }},
    {"tailor_workload_recommendation_upperbound", "Upper bound of the recommendation.",
     [](const Container& c) { return c.upper_bound; }},
    {"tailor_workload_recommendation_uncappedtarget",
     "Recommended requests before the policy's bounds, where those changed them (elsewhere the "
     "target).",
     [](const Container& c) {
       return Values{differs(c.uncapped_target.cpu, c.target.cpu),
                     differs(c.uncapped_target.memory, c.target.memory)};
     }},
    {"tailor_workload_resource_requests",
     "Requests of the workload's pods (the largest; as the runtime reports them, else the spec).",
     [](const Container& c) { return c.requests; }},
    {"tailor_workload_resource_limits",
     "Limits of the workload's pods (the largest; as the runtime reports them, else the spec).",
     [](const Container& c) { return c.limits; }},
    {"tailor_workload_usage_mean",
     "Usage averaged over the pods' latest sample periods (CPU: the periods' means; memory: "
     "their peaks).",
     usage_mean},
    {"tailor_workload_usage_peak", "Highest usage over the pods' latest sample periods.",
     usage_peak},
};

struct CountFamily {
  std::string_view name, help;
  SeriesType type;
  double (*of)(const Container&);
};

constexpr CountFamily kCountFamilies[] = {
    {"tailor_workload_pods", "Pods of the workload running the container.", SeriesType::Gauge,
     [](const Container& c) { return static_cast<double>(c.pods); }},
    {"tailor_workload_oom_kills_total", "OOM kills seen (pod status or node agent, each once).",
     SeriesType::Counter,
     [](const Container& c) { return static_cast<double>(c.activity.oom_kills); }},
    {"tailor_workload_cpu_shortfall_core_seconds_total",
     "CPU used beyond the request over the sample periods seen, in core-seconds.",
     SeriesType::Counter, [](const Container& c) { return c.activity.cpu_shortfall_core_seconds; }},
    {"tailor_workload_resizes_total", "In-place resizes of the container requested and accepted.",
     SeriesType::Counter,
     [](const Container& c) { return static_cast<double>(c.activity.resizes); }},
};

constexpr std::string_view kCpu = R"(resource="cpu",unit="core")";
constexpr std::string_view kMemory = R"(resource="memory",unit="byte")";

std::string workload_labels(const Workload& w) {
  std::string labels;
  kube::metrics::append_label(labels, "namespace", w.ns);
  kube::metrics::append_label(labels, "target_kind", w.kind);
  kube::metrics::append_label(labels, "target_name", w.name);
  return labels;
}

struct Row {
  const Container* container;
  std::string labels;
};

}  // namespace

WorkloadSeries::WorkloadSeries(const std::vector<PolicyObject>& policies) {
  workloads_.reserve(policies.size());
  for (const PolicyObject& p : policies) {
    if (!p.effective || !p.effective->target_ref || !p.claimed) continue;
    const auto& ref = *p.effective->target_ref;
    Workload& w = workloads_[p.key];
    w = {.ns = p.metadata.namespace_, .kind = ref.kind, .name = ref.name, .containers = {}};
    if (!p.status.recommendation) continue;
    for (const auto& r : p.status.recommendation->container_recommendations) {
      Container& c = container(w, r.container_name);
      c.target = values(r.target);
      c.lower_bound = values(r.lower_bound);
      c.upper_bound = values(r.upper_bound);
      c.uncapped_target = values(r.uncapped_target);
    }
  }
}

void WorkloadSeries::add_pod(const std::string& policy, const actuator::PodFacts& pod) {
  auto it = workloads_.find(policy);
  if (it == workloads_.end()) return;
  Workload& w = it->second;
  const bool same = w.last_spec == pod.spec.get() && w.last_status == pod.status.get();
  w.last_spec = pod.spec.get();
  w.last_status = pod.status.get();
  for (const kube::Container& spec : pod.containers()) {
    Container& c = container(w, spec.name);
    ++c.pods;
    if (same) continue;
    const actuator::ContainerStatusFacts* s = pod.find_status(spec.name);
    const kube::ResourceRequirements& ran = s && s->actual ? *s->actual : spec.resources;
    keep_largest(c.requests, ran.requests);
    keep_largest(c.limits, ran.limits);
  }
}

void WorkloadSeries::add_model(const recommendation::ContainerModelKey& key,
                               const recommendation::ContainerActivity& activity) {
  auto it = workloads_.find(key.policy);
  if (it != workloads_.end()) container(it->second, key.container).activity = activity;
}

void WorkloadSeries::add_recreations(const std::string& policy, std::uint64_t count) {
  auto it = workloads_.find(policy);
  if (it != workloads_.end()) it->second.recreations += count;
}

void WorkloadSeries::write(std::string& out) const {
  namespace m = kube::metrics;
  // Each container's label set is built once and written into every family; each workload's
  // once, for its containers' and its recreations' series.
  std::vector<Row> rows;
  std::vector<std::pair<const Workload*, std::string>> shown;
  std::size_t label_bytes = 0;
  for (const auto& [policy, w] : workloads_) {
    if (w.containers.empty()) continue;  // nothing of it shown
    const std::string& labels = shown.emplace_back(&w, workload_labels(w)).second;
    for (const Container& c : w.containers) {
      Row& r = rows.emplace_back(Row{&c, labels});
      m::append_label(r.labels, "container", c.name);
      label_bytes += r.labels.size();
    }
  }
  // About 17 series a container, each its labels and some 80 bytes of name and value.
  out.reserve(out.size() + 17 * (label_bytes + 80 * rows.size()) + 4096);
  for (const ResourceFamily& f : kResourceFamilies) {
    m::append_family(out, f.name, f.help, SeriesType::Gauge);
    for (const Row& r : rows) {
      const Values v = f.of(*r.container);
      if (!std::isnan(v.cpu)) m::append_sample(out, f.name, r.labels, kCpu, v.cpu);
      if (!std::isnan(v.memory)) m::append_sample(out, f.name, r.labels, kMemory, v.memory);
    }
  }
  for (const CountFamily& f : kCountFamilies) {
    m::append_family(out, f.name, f.help, f.type);
    for (const Row& r : rows) m::append_sample(out, f.name, r.labels, {}, f.of(*r.container));
  }
  // A recreation replaces the whole pod: counted per workload, not per container.
  constexpr std::string_view kRecreations = "tailor_workload_recreations_total";
  m::append_family(out, kRecreations, "Pods of the workload evicted to be recreated right-sized.",
                   SeriesType::Counter);
  for (const auto& [w, labels] : shown) {
    m::append_sample(out, kRecreations, labels, {}, static_cast<double>(w->recreations));
  }
}

namespace {

struct Serving {
  std::mutex mutex;
  const void* owner = nullptr;
  std::function<void(std::string&)> write;
};

Serving& serving() {
  static Serving* s = [] {
    auto* made = new Serving();  // never destroyed, as the registry it is added to
    kube::metrics::registry().add_text_collector([made](std::string& out) {
      std::lock_guard lock(made->mutex);
      if (made->write) made->write(out);
    });
    return made;
  }();
  return *s;
}

}  // namespace

void serve_workload_series(const void* owner, std::function<void(std::string&)> write) {
  Serving& s = serving();
  std::lock_guard lock(s.mutex);
  s.owner = owner;
  s.write = std::move(write);
}

void stop_serving_workload_series(const void* owner) {
  Serving& s = serving();
  std::lock_guard lock(s.mutex);
  if (s.owner != owner) return;
  s.owner = nullptr;
  s.write = nullptr;
}

}  // namespace tailor::controller
