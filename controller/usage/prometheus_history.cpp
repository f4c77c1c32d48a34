#include "controller/usage/prometheus_history.h"

#include <limits>
#include <map>
#include <optional>
#include <tuple>

namespace tailor::controller::usage {
namespace {

using std::chrono::milliseconds;

struct Unit {
  std::string_view name;
  std::int64_t ms;
};
// Largest first, the order Prometheus prints them in.
constexpr Unit kUnits[] = {{"y", 365LL * 24 * 3600 * 1000},
                           {"w", 7LL * 24 * 3600 * 1000},
                           {"d", 24LL * 3600 * 1000},
                           {"h", 3600LL * 1000},
                           {"m", 60LL * 1000},
                           {"s", 1000},
                           {"ms", 1}};

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

std::string group_labels(const PrometheusHistoryOptions& o) {
  return o.namespace_label + ", " + o.pod_label + ", " + o.container_label;
}

std::string range(const PrometheusHistoryOptions& o) {
  return "[" + format_prometheus_duration(milliseconds(o.resolution_s * 1000)) + "]";
}

}  // namespace

milliseconds parse_prometheus_duration(std::string_view text) {
  const std::string original(text);
  if (text.empty()) throw std::invalid_argument("empty duration");
  std::int64_t total = 0;
  while (!text.empty()) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 12) {
      throw std::invalid_argument("not a valid duration string: \"" + original + "\"");
    }
    const std::int64_t n = std::stoll(std::string(text.substr(0, digits)));
    text.remove_prefix(digits);
    const Unit* unit = nullptr;  // the longest unit name that matches ("ms" over "m")
    for (const Unit& u : kUnits) {
      if (text.starts_with(u.name) && (!unit || u.name.size() > unit->name.size())) unit = &u;
    }
    if (!unit) throw std::invalid_argument("not a valid duration string: \"" + original + "\"");
    text.remove_prefix(unit->name.size());
    if (n > (std::numeric_limits<std::int64_t>::max() - total) / unit->ms) {
      throw std::invalid_argument("duration out of range: \"" + original + "\"");
    }
    total += n * unit->ms;
  }
  return milliseconds(total);
}

std::string format_prometheus_duration(milliseconds d) {
  std::int64_t ms = d.count();
  if (ms == 0) return "0s";
  std::string out;
  for (const Unit& u : kUnits) {
    if (ms < u.ms) continue;
    out += std::to_string(ms / u.ms) + std::string(u.name);
    ms %= u.ms;
  }
  return out;
}

std::string container_selector(const PrometheusHistoryOptions& o) {
  return "job=" + quoted(o.cadvisor_job) + ", " + o.pod_label + "=~\".+\", " + o.container_label +
         "!=\"POD\", " + o.container_label + "!=\"\"";
}

std::string cpu_history_query(const PrometheusHistoryOptions& o) {
  return "sum by (" + group_labels(o) + ") (rate(container_cpu_usage_seconds_total{" +
         container_selector(o) + "}" + range(o) + "))";
}

std::string memory_history_query(const PrometheusHistoryOptions& o) {
  return "max by (" + group_labels(o) + ") (max_over_time(container_memory_working_set_bytes{" +
         container_selector(o) + "}" + range(o) + "))";
}

std::vector<HistoryPage> history_pages(std::int64_t until_s, const PrometheusHistoryOptions& o) {
  std::vector<HistoryPage> pages;
  const std::int64_t r = o.resolution_s;
  const std::int64_t steps = o.history_length_s / r;
  if (r <= 0 || steps <= 0 || o.page_steps <= 0) return pages;
  const std::int64_t last = until_s / r * r;
  for (std::int64_t first = last - (steps - 1) * r; first <= last; first += o.page_steps * r) {
    pages.push_back({first, std::min(last, first + (o.page_steps - 1) * r)});
  }
  return pages;
}

std::vector<ContainerSeries> parse_matrix(std::string_view body,
                                          const PrometheusHistoryOptions& o) {
  std::vector<ContainerSeries> out;
  for (PrometheusSeries& s : parse_prometheus_answer(body, PrometheusResult::matrix)) {
    const auto label = [&](const std::string& name) {
      const auto it = s.labels.find(name);
      return it == s.labels.end() ? std::string() : it->second;
    };
    ContainerSeries c{.ns = label(o.namespace_label),
                      .pod = label(o.pod_label),
                      .container = label(o.container_label),
                      .points = std::move(s.points)};
    if (c.ns.empty() || c.pod.empty() || c.container.empty()) continue;
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<UsageWindow> history_windows(const std::vector<ContainerSeries>& cpu,
                                         const std::vector<ContainerSeries>& memory,
                                         std::int64_t resolution_s) {
  using Key = std::tuple<std::int64_t, std::string, std::string, std::string>;
  struct Step {
    std::optional<double> cpu, memory;
  };
  std::map<Key, Step> steps;  // time first: the windows come out oldest first
  for (const ContainerSeries& s : cpu) {
    for (auto [t, v] : s.points) steps[{t, s.ns, s.pod, s.container}].cpu = v;
  }
  for (const ContainerSeries& s : memory) {
    for (auto [t, v] : s.points) steps[{t, s.ns, s.pod, s.container}].memory = v;
  }
  std::vector<UsageWindow> out;
  for (const auto& [key, step] : steps) {
    if (!step.cpu || !step.memory) continue;
    const auto& [t, ns, pod, container] = key;
    out.push_back({.node = "",  // cAdvisor's node label is not asked for: nothing uses it
                   .ns = ns,
                   .pod = pod,
                   .pod_uid = "",
                   .container = container,
                   .start_unix_ms = t - resolution_s * 1000,
                   .end_unix_ms = t,
                   .samples = 1,
                   .cpu_cores_mean = *step.cpu,
                   .cpu_cores_max = *step.cpu,
                   .memory_working_set_max_bytes = *step.memory,
                   .memory_peak_bytes = *step.memory});
  }
  return out;
}

}  // namespace tailor::controller::usage
