// The options every Tailor process takes, and what a process does with them at start-up:
// configure the global logger and serve /metrics and the health checks.
//
//   --kubeconfig FILE                  clientConnection.kubeconfig   (empty: in-cluster config)
//   --config FILE                      (see options.h)
//   --log-format text|json             logging.format
//   -v, --v N                          logging.verbosity
//   --metrics-bind-address HOST:PORT   metricsBindAddress       ("0" disables)
//   --health-probe-bind-address H:P    healthProbeBindAddress   (empty: same as metrics)
//
// A main():
//   config::Schema schema("tailor-node-agent", "Kubelet-side half of in-place resize.");
//   observe::CommonOptions common;
//   observe::add_common_options(schema, common);
//   schema.add({.flag = "node-name", .yaml_key = "nodeName", .help = "..."}, &node_name);
//   if (auto code = observe::init_process(schema, common, argc, argv, std::cout, std::cerr))
//     return *code;
//   health::Checks checks;
//   auto endpoints = observe::start_endpoints(common, metrics::registry(), checks);
#pragma once

#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kube/observe/endpoint.h"
#include "kube/observe/log.h"
#include "kube/observe/options.h"

namespace tailor::kube::observe {

// host:port to listen on. host "" means all interfaces; disabled ("0") means do not listen.
struct BindAddress {
  std::string host;
  std::uint16_t port = 0;
  bool disabled = false;
  std::string to_string() const;
  bool operator==(const BindAddress&) const = default;
};

// "127.0.0.1:8080", ":8080", "[::1]:8080", "localhost:9090", or "0". Throws
// std::invalid_argument on anything else.
BindAddress parse_bind_address(std::string_view text);

struct CommonOptions {
  std::string kubeconfig;
  log::Format log_format = log::Format::Text;
  int verbosity = 0;
  BindAddress metrics_bind_address{"127.0.0.1", 8080};
  std::optional<BindAddress> health_probe_bind_address;  // unset: served with the metrics
};

// Registers the common options bound to `options` (whose values are the defaults).
void add_common_options(config::Schema& schema, CommonOptions& options);

// Points the process-wide logger at standard error with the chosen format and verbosity.
void apply_logging(const CommonOptions& options);

// The start of every main(): parses argv with the schema and applies the logging options.
// Returns the exit code when the process should stop now: 0 after printing usage for --help or
// "<program> <version>" for --version (the chart's appVersion), 2 after printing a bad flag or
// config file error.
std::optional<int> init_process(config::Schema& schema, const CommonOptions& options, int argc,
                                const char* const argv[], std::ostream& out, std::ostream& err);

// Starts the metrics endpoint and, when separate, the health endpoint (each serves every path).
// The endpoints stop when destroyed; registry and checks must outlive them.
std::vector<std::unique_ptr<Endpoint>> start_endpoints(const CommonOptions& options,
                                                       const metrics::Registry& registry,
                                                       const health::Checks& checks,
                                                       const Routes* routes = nullptr);

}  // namespace tailor::kube::observe
