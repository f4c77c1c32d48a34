// The real Prometheus as the dashboard tests drive it: a scrape configuration for some targets,
// the process (Debian's `prometheus` package), and its HTTP API's answers as JSON.
#pragma once

#include <boost/json.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kube/http/url.h"
#include "tests/charts/child_process.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::charts {

// The answer of the Prometheus HTTP API, as JSON ("status": "success" or "error").
inline boost::json::value prometheus_api(std::uint16_t port, const std::string& target) {
  auto answer = kube::testing::http_get(port, target);
  try {
    return boost::json::parse(answer.body);
  } catch (const std::exception&) {
    return boost::json::object{
        {"status", "error"},
        {"error", "HTTP " + std::to_string(answer.status) + ": " + answer.body}};
  }
}

// A range query as Grafana sends it, over the last minute at a 1-s step; the parsed answer.
inline boost::json::value query_range(std::uint16_t port, const std::string& promql) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  auto seconds = [](std::int64_t ms) {
    return std::to_string(ms / 1000) + "." + std::to_string(1000 + ms % 1000).substr(1);
  };
  return prometheus_api(port, "/api/v1/query_range?query=" + kube::http::percent_encode(promql) +
                                  "&start=" + seconds(now - 60'000) + "&end=" + seconds(now) +
                                  "&step=1");
}

// The values of a "count by (LABEL) (...)" query now (a template variable's label_values, as
// dashboards.h's variable_queries() writes it): each series' one label.
inline std::set<std::string> label_values(std::uint16_t port, const std::string& promql) {
  const boost::json::value answer =
      prometheus_api(port, "/api/v1/query?query=" + kube::http::percent_encode(promql));
  if (answer.at("status").as_string() != "success") {
    throw std::runtime_error(promql + ": " + boost::json::serialize(answer));
  }
  std::set<std::string> out;
  for (const auto& series : answer.at("data").at("result").as_array()) {
    const boost::json::object& labels = series.at("metric").as_object();
    if (labels.size() != 1) {
      throw std::invalid_argument(
          promql + " has a series without exactly one label: " + boost::json::serialize(series));
    }
    out.insert(std::string(labels.begin()->value().as_string()));
  }
  return out;
}

// Prometheus scraping each (job, 127.0.0.1:port) every second, with its data in `dir`.
inline std::unique_ptr<ChildProcess> start_prometheus(
    const std::filesystem::path& dir, std::uint16_t port,
    const std::vector<std::pair<std::string, std::uint16_t>>& jobs) {
  const std::string prometheus = find_on_path("prometheus");
  if (prometheus.empty()) {
    throw std::runtime_error(
        "the prometheus binary is not installed: run scripts/install-deps.sh (Debian package "
        "'prometheus')");
  }
  std::ofstream config(dir / "prometheus.yml");
  config << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
            "scrape_configs:\n";
  for (const auto& [job, target] : jobs) {
    config << "  - job_name: " << job << "\n    static_configs:\n"
           << "      - targets: ['127.0.0.1:" << target << "']\n";
  }
  config.close();
  return std::make_unique<ChildProcess>(
      std::vector<std::string>{prometheus, "--config.file=" + (dir / "prometheus.yml").string(),
                               "--storage.tsdb.path=" + (dir / "data").string(),
                               "--web.listen-address=127.0.0.1:" + std::to_string(port),
                               "--log.level=warn"},
      dir / "prometheus.log");
}

}  // namespace tailor::charts
