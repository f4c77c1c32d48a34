#include "controller/usage/pod_metrics.h"

#include <boost/json.hpp>
#include <chrono>
#include <stdexcept>

#include "controller/usage/streamed_containers.h"
#include "kube/model/quantity.h"
#include "kube/model/time.h"
#include "kube/observe/duration.h"

namespace tailor::controller::usage {
namespace {

namespace bj = boost::json;

std::string string_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  if (!v || !v->is_string()) throw std::invalid_argument("no " + std::string(key));
  return std::string(v->get_string());
}

const bj::object& object_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  if (!v || !v->is_object()) throw std::invalid_argument("no " + std::string(key));
  return v->get_object();
}

std::int64_t unix_ms(kube::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

// The pod's fields every container window shares.
UsageWindow pod_window(const bj::object& item) {
  const bj::object& meta = object_at(item, "metadata");
  const std::int64_t end = unix_ms(kube::parse_rfc3339(string_at(item, "timestamp")));
  const kube::Duration window = kube::parse_duration(string_at(item, "window"));
  return {
      .node = "",  // PodMetrics do not name the node
      .ns = string_at(meta, "namespace"),
      .pod = string_at(meta, "name"),
      .pod_uid = "",
      .container = "",
      .start_unix_ms = end - std::chrono::duration_cast<std::chrono::milliseconds>(window).count(),
      .end_unix_ms = end,
      .samples = 1};
}

UsageWindow container_window(UsageWindow w, const bj::object& container) {
  const bj::object& usage = object_at(container, "usage");
  w.container = string_at(container, "name");
  w.cpu_cores_mean = w.cpu_cores_max = kube::Quantity::parse(string_at(usage, "cpu")).as_double();
  w.memory_working_set_max_bytes = w.memory_peak_bytes =
      kube::Quantity::parse(string_at(usage, "memory")).as_double();
  return w;
}

void skip(PodMetricsWindows& out, const std::string& what, const std::exception& e) {
  if (out.skipped++ == 0) out.first_problem = what + ": " + e.what();
}

}  // namespace

PodMetricsWindows windows_from_pod_metrics(std::string_view list_json) {
  boost::system::error_code ec;
  bj::value list = bj::parse(list_json, ec);
  const bj::value* items =
      !ec && list.is_object() ? list.get_object().if_contains("items") : nullptr;
  if (!items || !items->is_array()) {
    throw std::runtime_error("the PodMetricsList is not a JSON object with items");
  }
  PodMetricsWindows out;
  for (const bj::value& item : items->get_array()) {
    try {
      const bj::object& pod = item.as_object();
      UsageWindow w = pod_window(pod);
      const bj::value* containers = pod.if_contains("containers");
      if (!containers || !containers->is_array()) throw std::invalid_argument("no containers");
      for (const bj::value& c : containers->get_array()) {
        try {
          out.windows.push_back(container_window(w, c.as_object()));
        } catch (const std::exception& e) {
          skip(out, "container of " + w.ns + "/" + w.pod, e);
        }
      }
    } catch (const std::exception& e) {
      skip(out, "PodMetrics", e);
    }
  }
  return out;
}

std::vector<UsageWindow> FreshWindows::keep_fresh(std::vector<UsageWindow> windows) {
  std::map<std::string, std::int64_t> seen;
  std::vector<UsageWindow> fresh;
  for (UsageWindow& w : windows) {
    std::string key = container_key(w);
    auto last = last_end_ms_.find(key);
    const bool is_new = last == last_end_ms_.end() || w.end_unix_ms > last->second;
    seen[key] = is_new ? w.end_unix_ms : last->second;
    if (is_new) fresh.push_back(std::move(w));
  }
  last_end_ms_ = std::move(seen);
  return fresh;
}

}  // namespace tailor::controller::usage
