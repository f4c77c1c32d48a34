// The pure half of the Prometheus history bootstrap (VPA's recommender with
// --storage=prometheus): the PromQL over cAdvisor's metrics, the time pages of the range queries,
// the parsing of a /api/v1/query_range answer, and the (container, step) usage windows made from
// the CPU and memory matrices. I/O is in prometheus_bootstrap.h.
//
// One window per container and step of --history-resolution R, ending at the step's evaluation
// time t: CPU is the mean rate of container_cpu_usage_seconds_total over (t-R, t] (summed over
// the container's series, which a restart splits), memory the highest
// container_memory_working_set_bytes sample in it. A step with only one of the two is skipped: a
// window with a made-up zero would pull the model down.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "controller/usage/prometheus_answer.h"
#include "controller/usage/usage_server.h"

namespace tailor::controller::usage {

struct PrometheusHistoryOptions {
  std::string address{};                          // http(s)://host[:port][/prefix]
  std::int64_t history_length_s = 8 * 24 * 3600;  // VPA's --history-length 8d
  std::int64_t resolution_s = 3600;               // VPA's --history-resolution 1h
  std::string cadvisor_job = "kubernetes-cadvisor";
  // The labels of cAdvisor's series as the kubelet exports them today (VPA's defaults,
  // "pod_name" and "name", are those of Kubernetes before 1.16).
  std::string namespace_label = "namespace";
  std::string pod_label = "pod";
  std::string container_label = "container";
  // Steps per range query: a page is bounded in points per series whatever the history length.
  std::int64_t page_steps = 24;
  std::chrono::milliseconds query_timeout = std::chrono::minutes(5);
  // Authentication and TLS, as VPA's --prometheus-bearer-token(-file) and --prometheus-insecure.
  std::string bearer_token{};
  std::string bearer_token_file{};  // read at the bootstrap; wins over bearer_token
  bool insecure_skip_verify = false;
};

// A Prometheus duration ("8d", "1h", "90m", "1h30m", "2w", "1y"; units y w d h m s ms), in
// milliseconds. Throws std::invalid_argument naming the text.
std::chrono::milliseconds parse_prometheus_duration(std::string_view text);
// As Prometheus prints it ("8d", "1h30m", "0s").
std::string format_prometheus_duration(std::chrono::milliseconds d);

// The series selector VPA uses: the cAdvisor job, a pod, no pause ("POD") or pod-level ("")
// container.
std::string container_selector(const PrometheusHistoryOptions& o);
std::string cpu_history_query(const PrometheusHistoryOptions& o);
std::string memory_history_query(const PrometheusHistoryOptions& o);

// One range query's evaluation times: start, start+R, ..., end (unix seconds).
struct HistoryPage {
  std::int64_t start_s = 0;
  std::int64_t end_s = 0;
};
// The pages covering the history before until_s, oldest first. Evaluation times are multiples
// of the resolution, so windows line up whenever the controller restarts.
std::vector<HistoryPage> history_pages(std::int64_t until_s, const PrometheusHistoryOptions& o);

// One container's series from a matrix: (unix milliseconds, value) in time order.
struct ContainerSeries {
  std::string ns, pod, container;
  std::vector<std::pair<std::int64_t, double>> points;
};
// Parses a /api/v1/query_range answer. Values "NaN", "+Inf", "-Inf" are kept (the windows'
// check drops them); series missing a namespace, pod or container label are skipped. Throws
// PrometheusError for malformed JSON, a "status":"error" answer (with its errorType and error)
// or a result that is not a matrix.
std::vector<ContainerSeries> parse_matrix(std::string_view body, const PrometheusHistoryOptions& o);

// The windows of one page: CPU and memory joined per (container, step), in time order.
std::vector<UsageWindow> history_windows(const std::vector<ContainerSeries>& cpu,
                                         const std::vector<ContainerSeries>& memory,
                                         std::int64_t resolution_s);

}  // namespace tailor::controller::usage
