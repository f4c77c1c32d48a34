#include "controller/usage/prometheus_bootstrap.h"

#include <boost/json.hpp>
#include <cctype>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "kube/http/client.h"
#include "kube/http/url.h"
#include "kube/observe/log.h"

namespace tailor::controller::usage {
namespace {

namespace http = kube::http;

std::string query_range_target(const std::string& query, const HistoryPage& page,
                               const PrometheusHistoryOptions& o) {
  return "/api/v1/query_range?query=" + http::percent_encode(query) +
         "&start=" + std::to_string(page.start_s) + "&end=" + std::to_string(page.end_s) +
         "&step=" + std::to_string(o.resolution_s) +
         "&timeout=" + format_prometheus_duration(o.query_timeout);
}

// Prometheus explains its 4xx/5xx in the same JSON envelope; otherwise the body's start.
std::string http_error(const http::ClientResponse& r) {
  std::string why = r.body.substr(0, 200);
  try {
    boost::json::value v = boost::json::parse(r.body);
    if (const auto* e = v.as_object().if_contains("error"); e && e->is_string()) {
      why = std::string(e->get_string());
    }
  } catch (const std::exception&) {
    // Not Prometheus' envelope (a proxy's page, say): the body's start says more than nothing.
  }
  return "HTTP " + std::to_string(r.status) + ": " + why;
}

std::string bearer_token(const PrometheusHistoryOptions& o) {
  if (o.bearer_token_file.empty()) return o.bearer_token;
  std::ifstream in(o.bearer_token_file);
  std::string token((std::istreambuf_iterator<char>(in)), {});
  if (!in && token.empty()) throw std::runtime_error("cannot read " + o.bearer_token_file);
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) {
    token.pop_back();
  }
  return token;
}

http::Headers request_headers(const PrometheusHistoryOptions& o) {
  http::Headers headers = {{"Accept", "application/json"}};
  if (std::string token = bearer_token(o); !token.empty()) {
    headers.push_back({"Authorization", "Bearer " + token});
  }
  return headers;
}

std::vector<ContainerSeries> query(http::Client& client, const std::string& promql,
                                   const HistoryPage& page, const http::Headers& headers,
                                   const PrometheusHistoryOptions& o) {
  http::ClientRequest request{.target = query_range_target(promql, page, o),
                              .headers = headers,
                              // Prometheus' own timeout first, ours a little after it.
                              .timeout = o.query_timeout + o.query_timeout / 10};
  http::ClientResponse response = client.send(request);
  if (response.status != 200) throw PrometheusError(http_error(response));
  return parse_matrix(response.body, o);
}

// One line saying what the bootstrap read, or why it stopped.
void log_result(const PrometheusHistoryOptions& options, const BootstrapResult& result,
                std::size_t pages) {
  kube::log::KVs kvs = {{"prometheus", options.address},
                        {"pages", std::to_string(result.pages) + "/" + std::to_string(pages)},
                        {"series", result.series},
                        {"windows", result.windows.fed},
                        {"dropped", result.windows.dropped}};
  if (!result.windows.first_problem.empty()) {
    kvs.push_back({"firstDropped", result.windows.first_problem});
  }
  if (result.error.empty() && result.series == 0) {
    kube::log::warning(
        "Prometheus has no cAdvisor series for this history: check "
        "--prometheus-cadvisor-job-name and the container labels",
        kvs);
  } else if (result.error.empty()) {
    kube::log::info("Read the usage history from Prometheus", kvs);
  } else {
    kvs.push_back({"err", result.error});
    kube::log::error("Reading the usage history from Prometheus failed; starting without the rest",
                     kvs);
  }
}

}  // namespace

BootstrapResult bootstrap_from_prometheus(const PrometheusHistoryOptions& options,
                                          std::int64_t until_s, const UsageSink& sink,
                                          const std::function<bool()>& cancelled) {
  BootstrapResult result;
  const std::vector<HistoryPage> pages = history_pages(until_s, options);
  try {
    http::Client client({.base_url = options.address,
                         .tls = {.insecure_skip_verify = options.insecure_skip_verify},
                         .max_idle_connections = 1});
    const http::Headers headers = request_headers(options);
    const std::string cpu_query = cpu_history_query(options);
    const std::string memory_query = memory_history_query(options);
    for (const HistoryPage& page : pages) {
      if (cancelled && cancelled()) throw std::runtime_error("cancelled");
      std::vector<ContainerSeries> cpu = query(client, cpu_query, page, headers, options);
      std::vector<ContainerSeries> memory = query(client, memory_query, page, headers, options);
      ++result.pages;
      result.series += cpu.size() + memory.size();
      FeedCounts fed =
          feed_windows(history_windows(cpu, memory, options.resolution_s), sink, unix_now_ms());
      result.windows.fed += fed.fed;
      if (result.windows.dropped == 0) result.windows.first_problem = fed.first_problem;
      result.windows.dropped += fed.dropped;
    }
  } catch (const std::exception& e) {
    result.error = e.what();
  }
  log_result(options, result, pages.size());
  return result;
}

}  // namespace tailor::controller::usage
