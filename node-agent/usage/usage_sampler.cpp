#include "node-agent/usage/usage_sampler.h"

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "kube/observe/log.h"

namespace tailor::node::usage {
namespace {

struct Gauges {
  kube::metrics::Vec<prometheus::Gauge> cpu, working_set, peak;
  kube::metrics::Vec<prometheus::Counter> oom_kills;

  explicit Gauges(kube::metrics::Registry& registry)
      : cpu(registry.gauge({.subsystem = "node",
                            .name = "container_cpu_usage_cores",
                            .help = "CPU usage rate of a container over the last sample interval, "
                                    "in cores."})),
        working_set(registry.gauge(
            {.subsystem = "node",
             .name = "container_memory_working_set_bytes",
             .help = "Memory working set of a container (usage minus inactive file)."})),
        peak(registry.gauge({.subsystem = "node",
                             .name = "container_memory_peak_bytes",
                             .help = "Highest memory usage of a container since the previous "
                                     "sample."})),
        oom_kills(registry.counter({.subsystem = "node",
                                    .name = "container_oom_kills_total",
                                    .help = "OOM kills in a container's cgroup seen by the "
                                            "sampler."})) {}
};

kube::metrics::Labels labels_of(const ContainerKey& key) {
  return {{"namespace", key.ns}, {"pod", key.pod}, {"container", key.container}};
}

struct Tracked {
  std::optional<CgroupUsage> last;
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
  UsageWindow window;
};

}  // namespace

struct UsageSampler::Impl {
  Impl(ListContainers l, Sink s, UsageSamplerOptions o)
      : list(std::move(l)),
        sink(std::move(s)),
        options(o),
        gauges(o.registry ? *o.registry : kube::metrics::registry()) {}
  ListContainers list;
  Sink sink;
  UsageSamplerOptions options;
  Gauges gauges;
  mutable std::mutex mutex;  // guards tracked, window_start_ms and node
  std::map<ContainerKey, Tracked> tracked;
  std::int64_t window_start_ms = -1;
  NodeReading node;  // CPU: the sum of every container's increase since the agent started
  std::mutex loop_mutex;
  std::condition_variable wake;
  bool stopping = false;
  std::thread thread;

  void forget(const ContainerKey& key) {
    const auto labels = labels_of(key);
    gauges.cpu.family().Remove(&gauges.cpu.with(labels));
    gauges.working_set.family().Remove(&gauges.working_set.with(labels));
    gauges.peak.family().Remove(&gauges.peak.with(labels));
    gauges.oom_kills.family().Remove(&gauges.oom_kills.with(labels));
  }

  void record(Tracked& entry, const SampledContainer& container, const CgroupUsage& usage,
              std::int64_t now_ms) {
    const auto point = entry.last ? usage_point(*entry.last, entry.last_ms, usage, now_ms)
                                  : std::optional<UsagePoint>();
    // A new container's whole count is new to the node; a counter that went back restarted.
    const std::int64_t before = entry.last ? entry.last->cpu_usage_ns : 0;
    node.cpu_usage_ns +=
        usage.cpu_usage_ns >= before ? usage.cpu_usage_ns - before : usage.cpu_usage_ns;
    if (!entry.last) entry.first_ms = now_ms;
    entry.last = usage;
    entry.last_ms = now_ms;
    if (!point) return;
    const auto labels = labels_of(container.key);
    gauges.cpu.with(labels).Set(point->cpu_cores);
    gauges.working_set.with(labels).Set(static_cast<double>(point->working_set_bytes));
    gauges.peak.with(labels).Set(static_cast<double>(point->peak_bytes));
    gauges.oom_kills.with(labels).Increment(static_cast<double>(point->oom_kills));
    entry.window.container = container.key;
    add_point(entry.window, *point, now_ms);
  }

  std::vector<UsageWindow> take_windows() {
    std::vector<UsageWindow> out;
    for (auto& [key, entry] : tracked) {
      if (entry.window.samples > 0) out.push_back(entry.window);
      entry.window = UsageWindow{};
    }
    return out;
  }

  void sample(std::int64_t now_ms) {
    const auto containers = list();
    std::vector<UsageWindow> finished;
    {
      std::lock_guard lock(mutex);
      std::set<ContainerKey> seen;
      for (const auto& container : containers) {
        try {
          const CgroupUsage usage = read_cgroup_usage(options.cgroups, container.cgroup_path);
          record(tracked[container.key], container, usage, now_ms);
          seen.insert(container.key);
        } catch (const cri::CgroupError& e) {
          kube::log::v(2).info("Skipping a container whose cgroup cannot be read",
                               {{"container", container.key.container}, {"error", e.what()}});
        }
      }
      for (auto it = tracked.begin(); it != tracked.end();) {
        if (seen.contains(it->first)) {
          ++it;
          continue;
        }
        if (it->second.window.samples > 0) finished.push_back(it->second.window);
        forget(it->first);
        it = tracked.erase(it);
      }
      node.at_ms = now_ms;
      node.working_set_bytes = 0;
      for (const auto& [key, entry] : tracked)
        node.working_set_bytes += working_set_bytes(*entry.last);
      if (window_start_ms < 0) window_start_ms = now_ms;
      if (now_ms - window_start_ms >= options.window.count()) {
        auto windows = take_windows();
        finished.insert(finished.end(), windows.begin(), windows.end());
        window_start_ms = now_ms;
      }
    }
    if (!finished.empty()) sink(std::move(finished));
  }

  void loop() {
    std::unique_lock lock(loop_mutex);
    while (!wake.wait_for(lock, options.interval, [&] { return stopping; })) {
      lock.unlock();
      try {
        sample(std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count());
      } catch (const std::exception& e) {
        kube::log::error(e, "Usage sampling failed", {});
      }
      lock.lock();
    }
  }
};

UsageSampler::UsageSampler(ListContainers list, Sink sink, UsageSamplerOptions options)
    : impl_(std::make_unique<Impl>(std::move(list), std::move(sink), options)) {
  if (options.interval.count() <= 0 || options.window < options.interval) {
    throw std::invalid_argument("usage sampler: need 0 < interval <= window");
  }
}

UsageSampler::~UsageSampler() { stop(); }

void UsageSampler::sample(std::int64_t now_ms) { impl_->sample(now_ms); }

void UsageSampler::flush() {
  std::vector<UsageWindow> windows;
  {
    std::lock_guard lock(impl_->mutex);
    windows = impl_->take_windows();
  }
  if (!windows.empty()) impl_->sink(std::move(windows));
}

std::vector<ContainerReading> UsageSampler::container_readings() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<ContainerReading> out;
  for (const auto& [key, entry] : impl_->tracked) {
    out.push_back({.key = key,
                   .cpu_usage_ns = entry.last->cpu_usage_ns,
                   .working_set_bytes = working_set_bytes(*entry.last),
                   .start_ms = entry.first_ms,
                   .at_ms = entry.last_ms});
  }
  return out;
}

NodeReading UsageSampler::node_reading() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->node;
}

void UsageSampler::start() {
  if (impl_->thread.joinable()) return;
  impl_->thread = std::thread([this] { impl_->loop(); });
}

void UsageSampler::stop() {
  {
    std::lock_guard lock(impl_->loop_mutex);
    impl_->stopping = true;
  }
  impl_->wake.notify_all();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace tailor::node::usage
