// A PodMetricsList as metrics-server answers it: pod shop/web-1 with containers app and sidecar,
// its reading ending at end_ms and covering `window` (metrics-server's scrape window).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "kube/model/time.h"

namespace tailor::controller::usage::testing {

inline std::string web_pod_metrics_list(std::int64_t end_ms, const std::string& window) {
  const std::string ts = kube::format_rfc3339(
      kube::TimePoint(std::chrono::system_clock::time_point(std::chrono::milliseconds(end_ms))));
  return R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},
    "items":[{"metadata":{"name":"web-1","namespace":"shop"},"timestamp":")" +
         ts + R"(","window":")" + window + R"(","containers":[
      {"name":"app","usage":{"cpu":"250m","memory":"64Mi"}},
      {"name":"sidecar","usage":{"cpu":"10m","memory":"16Mi"}}]}]})";
}

}  // namespace tailor::controller::usage::testing
