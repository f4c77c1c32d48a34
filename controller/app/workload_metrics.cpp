#include "controller/app/workload_metrics.h"

#include <prometheus/metric_family.h>

#include <algorithm>

#include "kube/observe/metrics.h"

namespace tailor::controller {
namespace {

namespace p = prometheus;

const char* unit_of(const std::string& resource) { return resource == "cpu" ? "core" : "byte"; }

p::ClientMetric sample(const WorkloadContainer& w, double value, const std::string& resource = "") {
  p::ClientMetric m;
  m.label = {{"namespace", w.ns},
             {"target_kind", w.kind},
             {"target_name", w.name},
             {"container", w.container}};
  if (!resource.empty()) {
    m.label.push_back({"resource", resource});
    m.label.push_back({"unit", unit_of(resource)});
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

void add_resources(p::MetricFamily& f, const WorkloadContainer& w, const ResourceValues& values) {
  for (const auto& [resource, value] : values) f.metric.push_back(sample(w, value, resource));
}

}  // namespace

void WorkloadMetrics::pass(
    std::map<WorkloadContainer, WorkloadFacts> facts,
    const std::map<std::string, std::tuple<std::string, std::string, std::string>>&
        workload_of_policy) {
  std::lock_guard lock(mutex_);
  std::erase_if(rows_, [&](const auto& kv) { return !facts.contains(kv.first); });
  for (auto& [key, f] : facts) {
    Row& r = rows_[key];
    r.facts = std::move(f);
    if (auto it = pending_.find(key); it != pending_.end()) r.last = it->second;
  }
  pending_.clear();
  workload_of_policy_ = workload_of_policy;
}

WorkloadMetrics::Row* WorkloadMetrics::row(const std::string& policy,
                                           const std::string& container) {
  auto w = workload_of_policy_.find(policy);
  if (w == workload_of_policy_.end()) return nullptr;
  const auto& [ns, kind, name] = w->second;
  auto it = rows_.find({ns, kind, name, container});
  return it == rows_.end() ? nullptr : &it->second;
}

void WorkloadMetrics::window(const std::string& policy, const std::string& container,
                             const WorkloadWindow& w) {
  std::lock_guard lock(mutex_);
  auto wl = workload_of_policy_.find(policy);
  if (wl == workload_of_policy_.end()) return;  // before the first pass saw the policy
  const auto& [ns, kind, name] = wl->second;
  const WorkloadContainer key{ns, kind, name, container};
  Usage& u = pending_[key];
  u.cpu_sum += w.cpu_mean;
  u.cpu_peak = std::max(u.cpu_peak, w.cpu_peak);
  u.memory_sum += w.memory_mean;
  u.memory_peak = std::max(u.memory_peak, w.memory_peak);
  ++u.windows;
  // Core-seconds the container used beyond its request: only with a request to exceed.
  if (Row* r = row(policy, container); r && w.cpu_request > 0) {
    r->shortfall += std::max(0.0, w.cpu_mean - w.cpu_request) * w.seconds;
  }
}

void WorkloadMetrics::oom_kill(const std::string& policy, const std::string& container) {
  std::lock_guard lock(mutex_);
  if (Row* r = row(policy, container)) ++r->ooms;
}

void WorkloadMetrics::action(const std::string& policy, bool recreation) {
  std::lock_guard lock(mutex_);
  auto w = workload_of_policy_.find(policy);
  if (w == workload_of_policy_.end()) return;
  const auto& [ns, kind, name] = w->second;
  for (auto it = rows_.lower_bound({ns, kind, name, ""});
       it != rows_.end() && it->first.ns == ns && it->first.kind == kind && it->first.name == name;
       ++it) {
    ++(recreation ? it->second.recreations : it->second.resizes);
  }
}

std::size_t WorkloadMetrics::series() const {
  std::lock_guard lock(mutex_);
  return rows_.size();
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
  for (const auto& [w, r] : rows_) {
    add_resources(target, w, r.facts.target);
    add_resources(lower, w, r.facts.lower_bound);
    add_resources(upper, w, r.facts.upper_bound);
    add_resources(uncapped, w, r.facts.uncapped_target);
    add_resources(requests, w, r.facts.requests);
    add_resources(limits, w, r.facts.limits);
    if (r.last.windows > 0) {
      add_resources(usage_mean, w,
                    {{"cpu", r.last.cpu_sum / r.last.windows},
                     {"memory", r.last.memory_sum / r.last.windows}});
      add_resources(usage_peak, w, {{"cpu", r.last.cpu_peak}, {"memory", r.last.memory_peak}});
    }
    pods.metric.push_back(sample(w, r.facts.pods));
    ooms.metric.push_back(sample(w, r.ooms));
    shortfall.metric.push_back(sample(w, r.shortfall));
    resizes.metric.push_back(sample(w, r.resizes));
    recreations.metric.push_back(sample(w, r.recreations));
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
