#include "cli/policy_shortfall.h"

#include <boost/json.hpp>
#include <stdexcept>

#include "kube/http/client.h"
#include "kube/http/url.h"

namespace tailor::cli {
namespace {

namespace bj = boost::json;

std::string label(const bj::object& metric, std::string_view name) {
  const bj::value* v = metric.if_contains(name);
  if (!v || !v->is_string()) {
    throw std::runtime_error("a series of the answer has no label " + std::string(name));
  }
  return std::string(v->as_string());
}

// A sample's value: [time, "text"].
double sample_value(const bj::value& sample) {
  const bj::array* pair = sample.if_array();
  if (!pair || pair->size() != 2 || !(*pair)[1].is_string()) {
    throw std::runtime_error("a series of the answer has no [time, \"value\"] sample");
  }
  const std::string text((*pair)[1].as_string());
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size())
    throw std::runtime_error("a sample value '" + text + "' is not a number");
  return v;
}

const bj::value& member(const bj::value& v, std::string_view name) {
  const bj::value* m = v.is_object() ? v.as_object().if_contains(name) : nullptr;
  if (!m) throw std::runtime_error("the answer has no " + std::string(name));
  return *m;
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
  bj::value answer;
  try {
    answer = bj::parse(body);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("the answer is not JSON: ") + e.what());
  }
  const bj::value& status = member(answer, "status");
  if (!status.is_string() || status.as_string() != "success") {
    const bj::value* error = answer.as_object().if_contains("error");
    throw std::runtime_error("the query failed: " + (error && error->is_string()
                                                         ? std::string(error->as_string())
                                                         : bj::serialize(answer)));
  }
  const bj::value& data = member(answer, "data");
  const bj::value& type = member(data, "resultType");
  if (!type.is_string() || type.as_string() != "vector") {
    throw std::runtime_error("the answer is not a vector: " + bj::serialize(type));
  }
  const bj::value& result = member(data, "result");
  if (!result.is_array()) throw std::runtime_error("the answer's result is not an array");
  ShortfallIndex index;
  for (const bj::value& series : result.as_array()) {
    const bj::value& metric = member(series, "metric");
    if (!metric.is_object()) throw std::runtime_error("a series' metric is not an object");
    const bj::object& m = metric.as_object();
    // One at a time: the first label missing is the one named.
    const std::string ns = label(m, "namespace"), kind = label(m, "target_kind");
    const std::string name = label(m, "target_name"), container = label(m, "container");
    index[shortfall_key(ns, kind, name, container)] = sample_value(member(series, "value"));
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
