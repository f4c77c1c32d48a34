#include "controller/usage/usage_source_options.h"

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

namespace tailor::controller::usage {
namespace {

// A flag taking one of a few words.
std::function<std::string(std::string_view)> one_of(std::vector<std::string> words) {
  return [words](std::string_view s) {
    std::string choices;
    for (const std::string& w : words) {
      if (s == w) return w;
      choices += (choices.empty() ? "" : ", ") + w;
    }
    throw std::invalid_argument("must be one of " + choices);
  };
}

// A Prometheus duration flag ("8d", "1h"), kept in whole seconds.
void add_prometheus_duration(kube::config::Schema& s, kube::config::Option option,
                             std::int64_t* seconds) {
  s.add<std::int64_t>(
      std::move(option), seconds,
      [](std::string_view text) {
        const auto ms = parse_prometheus_duration(text).count();
        if (ms <= 0 || ms % 1000 != 0) {
          throw std::invalid_argument("must be a positive whole number of seconds");
        }
        return ms / 1000;
      },
      [](const std::int64_t& v) { return format_prometheus_duration(std::chrono::seconds(v)); },
      "duration");
}

}  // namespace

void add_usage_source_options(kube::config::Schema& s, UsageSourceOptions& o) {
  s.add<std::string>(
      {.flag = "storage",
       .yaml_key = "recommender.storage",
       .help = "Where usage history comes from at start besides the models' "
               "checkpoints: checkpoint, or prometheus (range queries of "
               "cAdvisor's metrics before the first pass)."},
      &o.storage, one_of({"checkpoint", "prometheus"}), [](const std::string& v) { return v; },
      "string");
  s.add({.flag = "prometheus-address",
         .yaml_key = "prometheus.address",
         .help = "Where to reach for Prometheus metrics (with --storage=prometheus)."},
        &o.prometheus.address);
  add_prometheus_duration(s,
                          {.flag = "history-length",
                           .yaml_key = "prometheus.historyLength",
                           .help = "How much time back Prometheus is queried for history."},
                          &o.prometheus.history_length_s);
  add_prometheus_duration(s,
                          {.flag = "history-resolution",
                           .yaml_key = "prometheus.historyResolution",
                           .help = "Resolution at which Prometheus is queried for history: one "
                                   "usage window per container and step."},
                          &o.prometheus.resolution_s);
  s.add({.flag = "prometheus-cadvisor-job-name",
         .yaml_key = "prometheus.cadvisorJobName",
         .help = "Name of the Prometheus job which scrapes the cAdvisor metrics."},
        &o.prometheus.cadvisor_job);
  s.add({.flag = "container-namespace-label",
         .yaml_key = "prometheus.containerNamespaceLabel",
         .help = "Label name to look for container namespaces."},
        &o.prometheus.namespace_label);
  s.add({.flag = "container-pod-name-label",
         .yaml_key = "prometheus.containerPodNameLabel",
         .help = "Label name to look for container pod names."},
        &o.prometheus.pod_label);
  s.add({.flag = "container-name-label",
         .yaml_key = "prometheus.containerNameLabel",
         .help = "Label name to look for container names."},
        &o.prometheus.container_label);
  s.add({.flag = "prometheus-bearer-token",
         .yaml_key = "prometheus.bearerToken",
         .help = "The bearer token used in the Prometheus server bearer token auth."},
        &o.prometheus.bearer_token);
  s.add({.flag = "prometheus-bearer-token-file",
         .yaml_key = "prometheus.bearerTokenFile",
         .help = "Path to the bearer token file used for authentication by the Prometheus "
                 "server (wins over --prometheus-bearer-token)."},
        &o.prometheus.bearer_token_file);
  s.add({.flag = "prometheus-insecure",
         .yaml_key = "prometheus.insecure",
         .help = "Skip TLS verification if https is used in the prometheus-address."},
        &o.prometheus.insecure_skip_verify);
  s.add<std::chrono::milliseconds>(
      {.flag = "prometheus-query-timeout",
       .yaml_key = "prometheus.queryTimeout",
       .help = "How long to wait before killing long queries."},
      &o.prometheus.query_timeout,
      [](std::string_view text) { return parse_prometheus_duration(text); },
      [](const std::chrono::milliseconds& v) { return format_prometheus_duration(v); }, "duration");
  s.add<std::string>(
      {.flag = "metrics-source",
       .yaml_key = "recommender.metricsSource",
       .help = "Live usage besides the node agents' stream: usage-stream (only "
               "the stream), or metrics-api (also poll metrics.k8s.io PodMetrics, "
               "for nodes without the node agent; a reading of a container whose agent "
               "streamed a window within two of its report intervals is skipped, so no "
               "container is counted twice)."},
      &o.metrics_source, one_of({"usage-stream", "metrics-api"}),
      [](const std::string& v) { return v; }, "string");
  s.add({.flag = "metrics-api-interval",
         .yaml_key = "recommender.metricsApiInterval",
         .help = "How often PodMetrics are listed (with --metrics-source=metrics-api)."},
        &o.metrics_api_interval);
}

}  // namespace tailor::controller::usage
