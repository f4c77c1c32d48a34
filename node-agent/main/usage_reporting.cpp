#include "node-agent/main/usage_reporting.h"

#include "kube/observe/log.h"
#include "node-agent/usage/usage_containers.h"
#include "node-agent/usage/usage_sampler.h"
#include "node-agent/usage/usage_stream.h"

namespace tailor::node {
namespace {

std::chrono::milliseconds millis(kube::Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d);
}

usage::UsageStreamOptions stream_options(const AgentOptions& o) {
  return {.endpoint = o.usage_endpoint,
          .node_name = o.node_name,
          .tls = {.ca_file = o.usage_ca_file,
                  .cert_file = o.usage_cert_file,
                  .key_file = o.usage_key_file,
                  .server_name = o.usage_server_name},
          .insecure = o.usage_insecure};
}

}  // namespace

struct UsageReporting::Impl {
  Impl(const AgentOptions& options, ListPods pods)
      : stream(options.usage_endpoint.empty()
                   ? nullptr
                   : std::make_unique<usage::UsageStream>(stream_options(options))),
        sampler(
            [pods = std::move(pods), driver = options.cgroup_driver] {
              const auto listed = pods();
              std::vector<const kube::Pod*> raw;
              raw.reserve(listed.size());
              for (const auto& pod : listed) raw.push_back(pod.get());
              return usage::sampled_containers(raw, driver);
            },
            [this](std::vector<usage::UsageWindow> windows) { send(windows); },
            usage::UsageSamplerOptions{
                .cgroups = {options.cgroup_root, detect_cgroup_version(options.cgroup_root)},
                .interval = millis(options.usage_sample_interval),
                .window = millis(options.usage_report_interval)}) {}

  void send(const std::vector<usage::UsageWindow>& windows) {
    if (!stream) return;
    const bool sent = stream->send(windows);
    // One line per change of state, not per window, so a long outage does not flood the log.
    if (sent != last_sent) {
      if (sent) {
        kube::log::info("Usage stream to the controller is up", {{"windows", windows.size()}});
      } else {
        kube::log::info(
            "Usage stream to the controller is down; windows are dropped until it returns",
            {{"dropped", stream->stats().dropped}});
      }
      last_sent = sent;
    }
  }

  std::unique_ptr<usage::UsageStream> stream;
  bool last_sent = true;
  usage::UsageSampler sampler;
  kube::observe::Routes* routes = nullptr;  // serving /metrics/resource from `sampler`
};

UsageReporting::UsageReporting(const AgentOptions& options, ListPods pods)
    : impl_(std::make_unique<Impl>(options, std::move(pods))) {}

UsageReporting::~UsageReporting() {
  if (impl_->routes) impl_->routes->remove(usage::kResourceMetricsPath);
  impl_->sampler.stop();
  if (impl_->stream) impl_->stream->close();
}

void UsageReporting::start() { impl_->sampler.start(); }

void UsageReporting::serve_resource_metrics(kube::observe::Routes& routes) {
  impl_->routes = &routes;
  routes.add(usage::kResourceMetricsPath, [&sampler = impl_->sampler](const auto&) {
    return kube::http::ServerResponse{
        200,
        {{"Content-Type", kube::observe::kMetricsContentType}},
        usage::resource_metrics_text(sampler.node_reading(), sampler.container_readings())};
  });
}

}  // namespace tailor::node
