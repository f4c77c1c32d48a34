#include "kube/observe/common_options.h"

#include <arpa/inet.h>

#include <charconv>
#include <ostream>
#include <stdexcept>

#include "kube/observe/version.h"

namespace tailor::kube::observe {
namespace {

[[noreturn]] void bad_address(std::string_view text, const std::string& why) {
  throw std::invalid_argument("invalid bind address \"" + std::string(text) + "\": " + why);
}

bool is_ip(const std::string& host, bool v6) {
  unsigned char buf[16];
  return ::inet_pton(v6 ? AF_INET6 : AF_INET, host.c_str(), buf) == 1;
}

}  // namespace

std::string BindAddress::to_string() const {
  if (disabled) return "0";
  std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
  return h + ":" + std::to_string(port);
}

BindAddress parse_bind_address(std::string_view text) {
  if (text == "0") return BindAddress{"", 0, true};
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos) bad_address(text, "want host:port, or 0 to disable");
  std::string host(text.substr(0, colon));
  std::string_view port_text = text.substr(colon + 1);
  unsigned port = 0;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (port_text.empty() || ec != std::errc() || end != port_text.data() + port_text.size() ||
      port > 65535) {
    bad_address(text, "port must be a number from 0 to 65535");
  }
  bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) {
    host = host.substr(1, host.size() - 2);
    if (!is_ip(host, true)) bad_address(text, "not an IPv6 address");
  } else if (host == "localhost") {
    host = "127.0.0.1";
  } else if (!host.empty() && !is_ip(host, false)) {
    bad_address(text, "host must be an IP address, localhost or empty (all interfaces)");
  }
  return BindAddress{host, static_cast<std::uint16_t>(port), false};
}

void add_common_options(config::Schema& schema, CommonOptions& o) {
  schema.add({.flag = "kubeconfig",
              .yaml_key = "clientConnection.kubeconfig",
              .help = "Path to a kubeconfig file; empty means the in-cluster configuration."},
             &o.kubeconfig);
  schema.add<log::Format>(
      {.flag = "log-format", .yaml_key = "logging.format", .help = "Log format: text or json."},
      &o.log_format, [](std::string_view s) { return log::parse_format(s); },
      [](const log::Format& f) { return "\"" + std::string(log::format_name(f)) + "\""; },
      "string");
  schema.add({.flag = "v",
              .short_flag = 'v',
              .yaml_key = "logging.verbosity",
              .help = "Log verbosity: V(n) messages are logged when n <= this number."},
             &o.verbosity, 0);
  schema.add<BindAddress>(
      {.flag = "metrics-bind-address",
       .yaml_key = "metricsBindAddress",
       .help = "host:port serving /metrics, /livez, /readyz and /healthz; 0 disables."},
      &o.metrics_bind_address, parse_bind_address,
      [](const BindAddress& a) { return a.to_string(); }, "host:port");
  schema.add<std::optional<BindAddress>>(
      {.flag = "health-probe-bind-address",
       .yaml_key = "healthProbeBindAddress",
       .help = "host:port serving the health checks separately; empty: on the metrics address."},
      &o.health_probe_bind_address,
      [](std::string_view s) -> std::optional<BindAddress> {
        if (s.empty()) return std::nullopt;
        return parse_bind_address(s);
      },
      [](const std::optional<BindAddress>& a) { return a ? a->to_string() : std::string(); },
      "host:port");
}

void apply_logging(const CommonOptions& o) {
  log::Options lo;
  lo.format = o.log_format;
  lo.verbosity = o.verbosity;
  log::configure(std::move(lo));
}

std::optional<int> init_process(config::Schema& schema, const CommonOptions& options, int argc,
                                const char* const argv[], std::ostream& out, std::ostream& err) {
  schema.version(std::string(tailor_version()));
  try {
    switch (schema.parse(argc, argv)) {
      case config::ParseResult::Help:
        out << schema.usage();
        return 0;
      case config::ParseResult::Version:
        out << schema.version_text() << "\n";
        return 0;
      case config::ParseResult::Run:
        break;
    }
  } catch (const config::ConfigError& e) {
    err << "error: " << e.what() << "\nRun with --help for usage.\n";
    return 2;
  }
  apply_logging(options);
  return std::nullopt;
}

std::vector<std::unique_ptr<Endpoint>> start_endpoints(const CommonOptions& o,
                                                       const metrics::Registry& registry,
                                                       const health::Checks& checks,
                                                       const Routes* routes) {
  std::vector<BindAddress> addresses{o.metrics_bind_address};
  if (o.health_probe_bind_address && *o.health_probe_bind_address != o.metrics_bind_address) {
    addresses.push_back(*o.health_probe_bind_address);
  }
  std::vector<std::unique_ptr<Endpoint>> out;
  for (const auto& a : addresses) {
    if (a.disabled) continue;
    auto e = std::make_unique<Endpoint>(a.host, a.port, registry, checks, routes);
    e->start();
    log::info("Serving metrics and health checks", {{"address", e->url()}});
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace tailor::kube::observe
