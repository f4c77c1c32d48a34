// The /metrics endpoint against the real Prometheus server (Debian's `prometheus` package):
// Prometheus scrapes the endpoint, and its query API must return the test's samples.
#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <thread>

#include "kube/http/url.h"
#include "kube/observe/endpoint.h"
#include "tests/kube/observe/http_get.h"
#include "tests/support/child_process.h"

namespace tailor::kube::observe {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::string find_prometheus() {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    fs::path candidate = fs::path(dir) / "prometheus";
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A Prometheus server process in a temporary directory, stopped on destruction.
class PrometheusServer {
 public:
  PrometheusServer(const std::string& binary, std::uint16_t target_port) {
    char tmpl[] = "/tmp/tailor-prometheus-XXXXXX";
    dir_ = ::mkdtemp(tmpl);
    port_ = testing::free_loopback_port();
    std::ofstream(dir_ / "prometheus.yml")
        << "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n  evaluation_interval: 1s\n"
           "scrape_configs:\n  - job_name: tailor\n    static_configs:\n"
           "      - targets: ['127.0.0.1:"
        << target_port << "']\n";
    std::vector<std::string> args{binary, "--config.file=" + (dir_ / "prometheus.yml").string(),
                                  "--storage.tsdb.path=" + (dir_ / "data").string(),
                                  "--web.listen-address=127.0.0.1:" + std::to_string(port_),
                                  "--log.level=warn"};
    process_.emplace(args, dir_ / "prometheus.log");
  }

  ~PrometheusServer() {
    stop();
    fs::remove_all(dir_);
  }

  std::uint16_t port() const { return port_; }
  bool running() { return process_->running(); }
  std::string log() const { return process_->log(); }
  void stop() { process_->terminate(); }

 private:
  fs::path dir_;
  std::uint16_t port_ = 0;
  std::optional<testing::ChildProcess> process_;
};

// The value of the first sample of an instant query, or "" while there is none yet.
std::string query_value(std::uint16_t port, const std::string& promql) {
  testing::HttpAnswer a;
  try {
    a = testing::http_get(port, "/api/v1/query?query=" + http::percent_encode(promql));
  } catch (const std::runtime_error&) {
    return "";  // not listening yet
  }
  if (a.status != 200) return "";
  auto doc = boost::json::parse(a.body);
  const auto& result = doc.at("data").at("result").as_array();
  if (result.empty()) return "";
  return boost::json::value_to<std::string>(result[0].at("value").as_array()[1]);
}

TEST(PrometheusScrapeTest, RealPrometheusScrapesTheMetricsEndpoint) {
  std::string binary = find_prometheus();
  ASSERT_FALSE(binary.empty())
      << "the prometheus binary is not installed: run scripts/install-deps.sh (Debian package "
         "'prometheus')";

  metrics::Registry registry;
  std::string run = std::to_string(std::random_device{}());
  registry.counter({.subsystem = "test", .name = "scrape_marker_total", .help = "Set by the test."})
      .with({{"run", run}})
      .Increment(42);
  auto latency = registry.histogram(
      {.subsystem = "test", .name = "latency_seconds", .help = "Test histogram."}, {0.1, 1});
  latency.with({{"verb", "PATCH"}}).Observe(0.5);
  health::Checks checks;
  Endpoint endpoint("127.0.0.1", 0, registry, checks);
  endpoint.start();

  PrometheusServer prometheus(binary, endpoint.port());
  std::string up, marker, bucket;
  for (auto deadline = std::chrono::steady_clock::now() + 30s;
       std::chrono::steady_clock::now() < deadline;) {
    ASSERT_TRUE(prometheus.running()) << "prometheus exited:\n" << prometheus.log();
    up = query_value(prometheus.port(), "up{job=\"tailor\"}");
    marker = query_value(prometheus.port(), "tailor_test_scrape_marker_total{run=\"" + run + "\"}");
    bucket = query_value(prometheus.port(),
                         "tailor_test_latency_seconds_bucket{verb=\"PATCH\",le=\"1\"}");
    if (up == "1" && marker == "42" && bucket == "1") break;
    std::this_thread::sleep_for(250ms);
  }
  EXPECT_EQ(up, "1") << prometheus.log();
  EXPECT_EQ(marker, "42") << prometheus.log();
  EXPECT_EQ(bucket, "1") << prometheus.log();

  // Prometheus keeps the HELP and TYPE lines as metadata.
  auto meta = testing::http_get(prometheus.port(),
                                "/api/v1/metadata?metric=tailor_test_scrape_marker_total");
  auto doc = boost::json::parse(meta.body);
  const auto& entry = doc.at("data").at("tailor_test_scrape_marker_total").as_array().at(0);
  EXPECT_EQ(entry.at("type").as_string(), "counter");
  EXPECT_EQ(entry.at("help").as_string(), "[ALPHA] Set by the test.");
  prometheus.stop();
}

}  // namespace
}  // namespace tailor::kube::observe
