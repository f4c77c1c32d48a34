// The usage stream as the controller takes it (controller/usage/usage_server.cpp): any bytes
// received as a UsageReport are read as the server reads them (usage_report.h) and each window
// judged by window_problem and the binding check (usage_trust.h). A window that passes carries
// only finite, non-negative, bounded values and ordered times, names a pod, and comes from the
// node its pod is bound to; the report's node, read as a certificate subject, names a node only
// when it is system:node:<name> of system:nodes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "controller/usage/usage_report.h"
#include "controller/usage/usage_server.h"
#include "controller/usage/usage_trust.h"
#include "fuzz/fuzz_check.h"

namespace {

namespace usage = tailor::controller::usage;
using tailor::fuzz::check;

constexpr std::int64_t kNow = 1'780'000'000'000;  // a fixed clock: runs are reproducible

// The informer's view: pods named "local-*" run on node-a, "remote-*" on node-b, others unknown.
std::optional<std::string> pod_node(const std::string& pod) {
  if (pod.rfind("local-", 0) == 0) return "node-a";
  if (pod.rfind("remote-", 0) == 0) return "node-b";
  return std::nullopt;
}

void check_usable(const usage::UsageWindow& w) {
  check(!w.ns.empty() && !w.pod.empty() && !w.container.empty(), "a usable window names its pod");
  check(w.samples > 0 && w.start_unix_ms > 0 && w.start_unix_ms <= w.end_unix_ms,
        "a usable window has samples in order");
  for (double v :
       {w.cpu_cores_mean, w.cpu_cores_max, w.memory_working_set_max_bytes, w.memory_peak_bytes}) {
    check(std::isfinite(v) && v >= 0, "a usable window's usage is finite and non-negative");
  }
}

void judge(const usage::Reporter& reporter, const tailor::usage::v1::UsageReport& report) {
  const std::optional<std::string> node = reporter.node_of(report);
  for (const auto& w : report.windows()) {
    const usage::UsageWindow window = usage::window_from_proto(node.value_or(""), w);
    if (!node || !usage::window_problem(window, kNow).empty()) continue;
    check_usable(window);
    if (usage::binding_problem(*node, pod_node(window.pod))) continue;
    check(pod_node(window.pod) == *node, "a used window comes from its pod's node", window.pod);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  tailor::usage::v1::UsageReport report;
  if (!report.ParseFromArray(data, static_cast<int>(size))) return 0;
  judge({.insecure = false, .node = "node-a"}, report);
  judge({.insecure = true}, report);
  if (const auto named = usage::node_of_subject(report.node())) {
    check(!named->empty(), "a subject names a non-empty node", report.node());
    check(report.node().find("system:nodes") != std::string::npos,
          "only a system:nodes subject names a node", report.node());
  }
  return 0;
}
