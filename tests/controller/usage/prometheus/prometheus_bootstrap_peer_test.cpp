// The history bootstrap against the real Prometheus (Debian's `prometheus` and `promtool`): a
// known cAdvisor history is backfilled with `promtool tsdb create-blocks-from openmetrics`,
// Prometheus serves it from that data directory, and the windows the bootstrap feeds must be
// the backfilled rates and peaks — one per container and hour, none of another job's series,
// the pause container or the pod-level cgroup, and none of a container whose memory is NaN.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "controller/usage/prometheus_bootstrap.h"
#include "tests/controller/usage/prometheus/prometheus_peer.h"

namespace tailor::controller::usage {
namespace {

constexpr std::int64_t kHour = 3600;
constexpr double kMiB = 1024.0 * 1024.0;
constexpr int kHours = 6;  // --history-length 6h, --history-resolution 1h

// One backfilled container: its CPU rate (cores) and the working set of each sample.
struct Container {
  std::string job = "kubernetes-cadvisor";
  std::string pod, container;
  double cores = 0;
  // Memory of the sample `minute` minutes into hour `hour` (0 = the oldest hour).
  double (*memory)(int hour, int minute);
  int reset_at_hour = -1;  // the counter restarts from zero at :20 (a container restart)
};

double web_memory(int hour, int minute) {
  return (100 + 10 * hour + (minute == 30 ? 7 : 0)) * kMiB;
}
double sidecar_memory(int, int) { return 20 * kMiB; }
double cache_memory(int, int) { return 300 * kMiB; }
double broken_memory(int, int) { return NAN; }

// The history: samples every minute at :30 seconds (never on an hour, where Prometheus 2's
// closed range [t-1h, t] would count them in two windows), from one hour before the first
// window to the last full hour.
std::vector<Container> containers() {
  return {
      {.pod = "web-1", .container = "app", .cores = 0.25, .memory = web_memory},
      {.pod = "web-1",
       .container = "sidecar",
       .cores = 0.05,
       .memory = sidecar_memory,
       .reset_at_hour = 3},
      {.pod = "cache-0", .container = "redis", .cores = 1.5, .memory = cache_memory},
      {.pod = "cache-0", .container = "broken", .cores = 0.1, .memory = broken_memory},
      // Not the cAdvisor job, the pause container, the pod's own cgroup: all left out.
      {.job = "node-exporter",
       .pod = "web-1",
       .container = "app",
       .cores = 4,
       .memory = cache_memory},
      {.pod = "web-1", .container = "POD", .cores = 4, .memory = cache_memory},
      {.pod = "web-1", .container = "", .cores = 4, .memory = cache_memory},
  };
}

std::string labels(const Container& c) {
  return "{job=\"" + c.job + "\",namespace=\"shop\",pod=\"" + c.pod + "\",container=\"" +
         c.container + "\"}";
}

std::string openmetrics(std::int64_t first_s) {
  std::ostringstream out;
  out.precision(17);
  out << "# TYPE container_cpu_usage_seconds counter\n";
  for (const Container& c : containers()) {
    double counter = 1000;
    for (int hour = 0; hour <= kHours; ++hour) {
      for (int minute = 0; minute < 60; ++minute) {
        if (hour == c.reset_at_hour && minute == 20) counter = 0;
        counter += c.cores * 60;
        out << "container_cpu_usage_seconds_total" << labels(c) << " " << counter << " "
            << first_s + hour * kHour + minute * 60 + 30 << "\n";
      }
    }
  }
  out << "# TYPE container_memory_working_set_bytes gauge\n";
  for (const Container& c : containers()) {
    for (int hour = 0; hour <= kHours; ++hour) {
      for (int minute = 0; minute < 60; ++minute) {
        double v = c.memory(hour, minute);
        out << "container_memory_working_set_bytes" << labels(c) << " "
            << (std::isnan(v) ? std::string("NaN") : std::to_string(std::llround(v))) << " "
            << first_s + hour * kHour + minute * 60 + 30 << "\n";
      }
    }
  }
  out << "# EOF\n";
  return out.str();
}

TEST(PrometheusBootstrapPeer, FeedsTheBackfilledHistoryPerContainerAndHour) {
  const std::int64_t now_s = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  const std::int64_t until = now_s / kHour * kHour;
  const std::int64_t first = until - (kHours + 1) * kHour;  // hour 0 only feeds the first rate
  testing::PrometheusPeer peer(openmetrics(first));

  PrometheusHistoryOptions options;
  options.address = peer.url();
  options.history_length_s = kHours * kHour;
  options.page_steps = 4;  // two pages: 4 + 2 steps
  std::vector<UsageWindow> fed;
  BootstrapResult r =
      bootstrap_from_prometheus(options, until, [&](const UsageWindow& w) { fed.push_back(w); });
  ASSERT_EQ(r.error, "") << peer.log();
  EXPECT_EQ(r.pages, 2u);
  EXPECT_EQ(r.windows.fed, 3u * kHours);      // app, sidecar, redis
  EXPECT_EQ(r.windows.dropped, 1u * kHours);  // broken: NaN memory
  EXPECT_EQ(r.windows.first_problem, "memory usage is negative or absurd");

  std::map<std::string, int> per_container;
  for (const UsageWindow& w : fed) {
    const std::string name = w.pod + "/" + w.container;
    ++per_container[name];
    // The window ending one hour after hour h of the backfill holds hour h's samples.
    const int hour = static_cast<int>((w.end_unix_ms / 1000 - first) / kHour) - 1;
    ASSERT_GE(hour, 1) << name;
    ASSERT_LE(hour, kHours) << name;
    EXPECT_EQ(w.end_unix_ms - w.start_unix_ms, kHour * 1000) << name;
    EXPECT_EQ(w.ns, "shop");
    std::optional<Container> c;
    for (const Container& x : containers()) {
      if (x.job == "kubernetes-cadvisor" && x.pod == w.pod && x.container == w.container) c = x;
    }
    ASSERT_TRUE(c) << name;
    EXPECT_NEAR(w.cpu_cores_mean, c->cores, 1e-9) << name << " hour " << hour;
    double peak = 0;
    for (int minute = 0; minute < 60; ++minute) peak = std::max(peak, c->memory(hour, minute));
    EXPECT_EQ(w.memory_peak_bytes, std::round(peak)) << name << " hour " << hour;
    EXPECT_EQ(w.memory_working_set_max_bytes, w.memory_peak_bytes);
  }
  EXPECT_EQ(per_container,
            (std::map<std::string, int>{
                {"cache-0/redis", kHours}, {"web-1/app", kHours}, {"web-1/sidecar", kHours}}));
}

}  // namespace
}  // namespace tailor::controller::usage
