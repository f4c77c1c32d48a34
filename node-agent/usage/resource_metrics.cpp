#include "node-agent/usage/resource_metrics.h"

#include <cstdio>
#include <functional>

#include "kube/observe/exposition.h"

namespace tailor::node::usage {
namespace {

// value / 10^digits written exactly (no floating point): 1500000000 ns is "1.500000000".
std::string decimal(std::int64_t value, int digits, std::int64_t scale) {
  char buffer[48];
  std::snprintf(buffer, sizeof(buffer), "%lld.%0*lld", static_cast<long long>(value / scale),
                digits, static_cast<long long>(value % scale));
  return buffer;
}

std::string seconds_of_ns(std::int64_t ns) { return decimal(ns, 9, 1000000000); }
std::string seconds_of_ms(std::int64_t ms) { return decimal(ms, 3, 1000); }

void header(std::string& out, const char* name, const char* type, const char* help) {
  out +=
      std::string("# HELP ") + name + " [STABLE] " + help + "\n# TYPE " + name + " " + type + "\n";
}

void sample(std::string& out, const char* name, const std::string& labels, const std::string& value,
            std::int64_t at_ms) {
  out += name;
  out += labels;
  out += " " + value + " " + std::to_string(at_ms) + "\n";
}

std::string labels_of(const ContainerKey& key) {
  std::string labels;
  kube::metrics::append_label(labels, "container", key.container);
  kube::metrics::append_label(labels, "namespace", key.ns);
  kube::metrics::append_label(labels, "pod", key.pod);
  return "{" + labels + "}";
}

using ContainerValue = std::function<std::string(const ContainerReading&)>;

void container_family(std::string& out, const char* name, const char* type, const char* help,
                      const std::vector<ContainerReading>& containers,
                      const ContainerValue& value) {
  if (containers.empty()) return;
  header(out, name, type, help);
  for (const auto& c : containers) sample(out, name, labels_of(c.key), value(c), c.at_ms);
}

}  // namespace

std::string resource_metrics_text(const NodeReading& node,
                                  const std::vector<ContainerReading>& containers) {
  std::string out;
  container_family(out, "container_cpu_usage_seconds_total", "counter",
                   "Cumulative cpu time consumed by the container in core-seconds", containers,
                   [](const ContainerReading& c) { return seconds_of_ns(c.cpu_usage_ns); });
  container_family(out, "container_memory_working_set_bytes", "gauge",
                   "Current working set of the container in bytes", containers,
                   [](const ContainerReading& c) { return std::to_string(c.working_set_bytes); });
  container_family(out, "container_start_time_seconds", "gauge",
                   "Start time of the container since unix epoch in seconds", containers,
                   [](const ContainerReading& c) { return seconds_of_ms(c.start_ms); });
  if (node.at_ms > 0) {
    header(out, "node_cpu_usage_seconds_total", "counter",
           "Cumulative cpu time consumed by the node in core-seconds");
    sample(out, "node_cpu_usage_seconds_total", "", seconds_of_ns(node.cpu_usage_ns), node.at_ms);
    header(out, "node_memory_working_set_bytes", "gauge",
           "Current working set of the node in bytes");
    sample(out, "node_memory_working_set_bytes", "", std::to_string(node.working_set_bytes),
           node.at_ms);
  }
  header(out, "scrape_error", "gauge",
         "1 if there was an error while getting container metrics, 0 otherwise");
  out += "scrape_error 0\n";
  return out;
}

}  // namespace tailor::node::usage
