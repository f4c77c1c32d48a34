#include "controller/app/workload_metrics.h"

#include <prometheus/metric_family.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "kube/observe/metrics.h"

namespace tailor::controller {
namespace {

namespace p = prometheus;

struct Labels {
  const std::string &ns, &kind, &name, &container;
};

p::ClientMetric sample(const Labels& w, double value, const char* resource = nullptr) {
  p::ClientMetric m;
  m.label = {{"namespace", w.ns},
             {"target_kind", w.kind},
             {"target_name", w.name},
             {"container", w.container}};
  if (resource) {
    m.label.push_back({"resource", resource});
    m.label.push_back({"unit", std::string(resource) == "cpu" ? "core" : "byte"});
  }
  m.gauge.value = value;
  m.counter.value = value;
  return m;
}

// The families in a fixed order; Collect fills their metrics.
struct Families {
  Families() { all.reserve(16); }  // add() hands out references into it
  std::vector<p::MetricFamily> all;
  p::MetricFamily& add(std::string name, std::string help, p::MetricType type) {
    all.push_back({"tailor_workload_" + std::move(name), "[ALPHA] " + std::move(help), type, {}});
    return all.back();
  }
};

void add_resources(p::MetricFamily& f, const Labels& w, const ResourceValues& v) {
  if (!std::isnan(v.cpu)) f.metric.push_back(sample(w, v.cpu, "cpu"));
  if (!std::isnan(v.memory)) f.metric.push_back(sample(w, v.memory, "memory"));
}

}  // namespace

void WorkloadMetrics::pass(PassWorkloads workloads) {
  std::lock_guard lock(mutex_);
  std::unordered_map<std::string, Workload> next;
  next.reserve(workloads.size());
  for (auto& [policy, facts] : workloads) {
    Workload& w = next[policy];
    auto before = workloads_.find(policy);
    const bool same = before != workloads_.end() && before->second.ns == facts.ns &&
                      before->second.kind == facts.kind && before->second.name == facts.name;
    w.ns = std::move(facts.ns);
    w.kind = std::move(facts.kind);
    w.name = std::move(facts.name);
    w.rows.reserve(facts.containers.size());
    for (ContainerFacts& c : facts.containers) {
      Row r;
      if (same) {
        auto& old = before->second.rows;
        auto it = std::find_if(old.begin(), old.end(),
                               [&](const Row& o) { return o.facts.container == c.container; });
        if (it != old.end()) r = std::move(*it);
      }
      r.facts = std::move(c);
      if (r.pending.windows > 0) r.last = r.pending;
      r.pending = {};
      w.rows.push_back(std::move(r));
    }
  }
  workloads_ = std::move(next);
}

WorkloadMetrics::Row* WorkloadMetrics::row(const std::string& policy,
                                           const std::string& container) {
  auto w = workloads_.find(policy);
  if (w == workloads_.end()) return nullptr;
  for (Row& r : w->second.rows) {
    if (r.facts.container == container) return &r;
  }
  return nullptr;
}

void WorkloadMetrics::window(const std::string& policy, const std::string& container,
                             const WorkloadWindow& w) {
  std::lock_guard lock(mutex_);
  Row* r = row(policy, container);
  if (!r) return;  // before the first pass saw the pod's container under the policy
  Usage& u = r->pending;
  u.cpu_sum += w.cpu_mean;
  u.cpu_peak = std::max(u.cpu_peak, w.cpu_peak);
  u.memory_sum += w.memory_mean;
  u.memory_peak = std::max(u.memory_peak, w.memory_peak);
  ++u.windows;
  // Core-seconds the container used beyond its request: only with a request to exceed.
  if (w.cpu_request > 0) r->shortfall += std::max(0.0, w.cpu_mean - w.cpu_request) * w.seconds;
}

void WorkloadMetrics::oom_kill(const std::string& policy, const std::string& container) {
  std::lock_guard lock(mutex_);
  if (Row* r = row(policy, container)) ++r->ooms;
}

void WorkloadMetrics::action(const std::string& policy, bool recreation) {
  std::lock_guard lock(mutex_);
  auto w = workloads_.find(policy);
  if (w == workloads_.end()) return;
  for (Row& r : w->second.rows) ++(recreation ? r.recreations : r.resizes);
}

std::size_t WorkloadMetrics::series() const {
  std::lock_guard lock(mutex_);
  std::size_t n = 0;
  for (const auto& [policy, w] : workloads_) n += w.rows.size();
  return n;
}

std::vector<p::MetricFamily> WorkloadMetrics::Collect() const {
  Families fs;
  auto& target =
      fs.add("recommendation_target", "Recommended requests (capped).", p::MetricType::Gauge);
  auto& lower = fs.add("recommendation_lowerbound", "Lower bound of the recommendation.",
                       p::MetricType::Gauge);
  auto& upper = fs.add("recommendation_upperbound", "Upper bound of the recommendation.",
                       p::MetricType::Gauge);
  auto& uncapped = fs.add("recommendation_uncappedtarget",
                          "Recommended requests before the policy's bounds.", p::MetricType::Gauge);
  auto& requests = fs.add("resource_requests",
                          "Requests of the workload's pods (largest; as the runtime reports them).",
                          p::MetricType::Gauge);
  auto& limits = fs.add("resource_limits",
                        "Limits of the workload's pods (largest; as the runtime reports them).",
                        p::MetricType::Gauge);
  auto& usage_mean = fs.add("usage_mean",
                            "Mean usage over the pods' windows of the last pass (memory: working "
                            "set at its window's highest).",
                            p::MetricType::Gauge);
  auto& usage_peak = fs.add("usage_peak", "Peak usage over the pods' windows of the last pass.",
                            p::MetricType::Gauge);
  auto& pods = fs.add("pods", "Pods of the workload running the container.", p::MetricType::Gauge);
  auto& ooms = fs.add("oom_kills_total", "OOM kills seen (pod status or node agent, each once).",
                      p::MetricType::Counter);
  auto& shortfall = fs.add("cpu_shortfall_core_seconds_total",
                           "CPU used beyond the request, in core-seconds.", p::MetricType::Counter);
  auto& resizes = fs.add("resizes_total", "In-place resizes requested of the workload's pods.",
                         p::MetricType::Counter);
  auto& recreations =
      fs.add("recreations_total", "Pods of the workload evicted to be recreated right-sized.",
             p::MetricType::Counter);
  std::lock_guard lock(mutex_);
  for (const auto& [policy, w] : workloads_) {
    for (const Row& r : w.rows) {
      const Labels l{w.ns, w.kind, w.name, r.facts.container};
      add_resources(target, l, r.facts.target);
      add_resources(lower, l, r.facts.lower_bound);
      add_resources(upper, l, r.facts.upper_bound);
      add_resources(uncapped, l, r.facts.uncapped_target);
      add_resources(requests, l, r.facts.requests);
      add_resources(limits, l, r.facts.limits);
      if (r.last.windows > 0) {
        add_resources(usage_mean, l,
                      {r.last.cpu_sum / r.last.windows, r.last.memory_sum / r.last.windows});
        add_resources(usage_peak, l, {r.last.cpu_peak, r.last.memory_peak});
      }
      pods.metric.push_back(sample(l, r.facts.pods));
      ooms.metric.push_back(sample(l, r.ooms));
      shortfall.metric.push_back(sample(l, r.shortfall));
      resizes.metric.push_back(sample(l, r.resizes));
      recreations.metric.push_back(sample(l, r.recreations));
    }
  }
  return std::move(fs.all);
}

WorkloadMetrics& workload_metrics() {
  static const std::shared_ptr<WorkloadMetrics> metrics = [] {
    auto m = std::make_shared<WorkloadMetrics>();
    kube::metrics::registry().add_collector(m);
    return m;
  }();
  return *metrics;
}

}  // namespace tailor::controller
