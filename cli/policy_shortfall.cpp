#include "cli/policy_shortfall.h"

#include <stdexcept>

#include "controller/usage/prometheus_answer.h"
#include "kube/http/client.h"
#include "kube/http/url.h"

namespace tailor::cli {
namespace {

using controller::usage::PrometheusAnswerError;

std::string label(const controller::usage::PrometheusSeries& series, std::string_view name) {
  const auto it = series.labels.find(name);
  if (it == series.labels.end()) {
    throw std::runtime_error("a series of the answer has no label " + std::string(name));
  }
  return it->second;
}

// The answer's problem in report's words.
std::string problem(const PrometheusAnswerError& e) {
  using Problem = PrometheusAnswerError::Problem;
  switch (e.problem) {
    case Problem::not_json:
      return "the answer is not JSON: " + e.detail;
    case Problem::no_status:
      return "the answer has no status";
    case Problem::failed:
      return "the query failed: " + e.detail;
    case Problem::wrong_type:
      return "the answer is not a vector: " + e.detail;
    case Problem::bad_value:
      return "a sample value '" + e.detail + "' is not a number";
    case Problem::malformed:
      break;
  }
  return e.what();
}

}  // namespace

std::string shortfall_key(std::string_view ns, std::string_view target_kind,
                          std::string_view target_name, std::string_view container) {
  std::string key;
  for (std::string_view part : {ns, target_kind, target_name, container}) {
    key.append(part).push_back('/');
  }
  return key;
}

std::string shortfall_query(const std::string& ns) {
  std::string selector;
  if (!ns.empty()) {
    // Label values in PromQL are string literals: a namespace name has no quote or backslash.
    selector = "{namespace=\"" + ns + "\"}";
  }
  return "max by (namespace, target_kind, target_name, container) "
         "(increase(tailor_workload_cpu_shortfall_core_seconds_total" +
         selector + "[1d]))";
}

ShortfallIndex parse_shortfall(std::string_view body) {
  std::vector<controller::usage::PrometheusSeries> answer;
  try {
    answer = controller::usage::parse_prometheus_answer(
        body, controller::usage::PrometheusResult::vector);
  } catch (const PrometheusAnswerError& e) {
    throw std::runtime_error(problem(e));
  }
  ShortfallIndex index;
  for (const controller::usage::PrometheusSeries& series : answer) {
    // One at a time: the first label missing is the one named.
    const std::string ns = label(series, "namespace"), kind = label(series, "target_kind");
    const std::string name = label(series, "target_name"), container = label(series, "container");
    index[shortfall_key(ns, kind, name, container)] = series.points.front().second;
  }
  return index;
}

void attach_shortfall(std::vector<ContainerRow>& rows, const ShortfallIndex& index) {
  for (ContainerRow& r : rows) {
    const auto it = index.find(shortfall_key(r.ns, r.workload_kind, r.workload_name, r.container));
    if (it != index.end()) r.cpu_shortfall_last_day = it->second;
  }
}

ShortfallIndex read_shortfall(const std::string& address, const std::string& ns,
                              std::chrono::milliseconds timeout) {
  const std::string where = "reading CPU shortfall from Prometheus at " + address + ": ";
  try {
    kube::http::Client client({.base_url = address, .max_idle_connections = 1});
    kube::http::ClientResponse response = client.send(
        {.target = "/api/v1/query?query=" + kube::http::percent_encode(shortfall_query(ns)),
         .headers = {{"Accept", "application/json"}},
         .timeout = timeout});
    if (response.status == 200) return parse_shortfall(response.body);
    // Prometheus explains a 4xx/5xx in the same envelope: parse_shortfall says what it said.
    try {
      parse_shortfall(response.body);
    } catch (const std::exception& e) {
      throw std::runtime_error("HTTP " + std::to_string(response.status) + ": " + e.what());
    }
    throw std::runtime_error("HTTP " + std::to_string(response.status));
  } catch (const std::exception& e) {
    throw std::runtime_error(where + e.what());
  }
}

}  // namespace tailor::cli
