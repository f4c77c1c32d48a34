// The bootstrap's I/O against a scripted HTTP server speaking Prometheus' API (the real
// Prometheus is in prometheus/prometheus_bootstrap_peer_test.cpp): pages asked in order, windows
// fed, and every failure ending the bootstrap with its reason instead of an exception.
#include "controller/usage/prometheus_bootstrap.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/test_api_server.h"

namespace tailor::controller::usage {
namespace {

using kube::testing::json_response;
using kube::testing::TestApiServer;

constexpr const char* kPath = "/api/v1/query_range";
constexpr std::int64_t kHour = 3600;

std::string matrix(std::int64_t t, const std::string& value) {
  return R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{
    "namespace":"shop","pod":"web-1","container":"app"},"values":[[)" +
         std::to_string(t) + R"(,")" + value + R"("]]}]}})";
}

class PrometheusBootstrapTest : public ::testing::Test {
 protected:
  PrometheusBootstrapTest() : server_({.tls = false}) {
    options_.address = server_.url();
    options_.history_length_s = 2 * kHour;
    options_.page_steps = 1;  // two pages of one step
  }
  BootstrapResult run() {
    return bootstrap_from_prometheus(options_, until_,
                                     [this](const UsageWindow& w) { fed_.push_back(w); });
  }
  TestApiServer server_;
  PrometheusHistoryOptions options_;
  std::int64_t until_ = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count() /
                        kHour * kHour;
  std::vector<UsageWindow> fed_;
};

TEST_F(PrometheusBootstrapTest, AsksPageByPageAndFeedsTheWindows) {
  for (std::int64_t t : {until_ - kHour, until_}) {
    server_.enqueue("GET", kPath, json_response(200, matrix(t, "0.5")));
    server_.enqueue("GET", kPath, json_response(200, matrix(t, "1048576")));
  }
  BootstrapResult r = run();
  EXPECT_EQ(r.error, "");
  EXPECT_EQ(r.pages, 2u);
  EXPECT_EQ(r.series, 4u);
  EXPECT_EQ(r.windows.fed, 2u);
  ASSERT_EQ(fed_.size(), 2u);
  EXPECT_EQ(fed_[0].end_unix_ms, (until_ - kHour) * 1000);
  EXPECT_EQ(fed_[1].end_unix_ms, until_ * 1000);
  EXPECT_EQ(fed_[1].cpu_cores_mean, 0.5);
  EXPECT_EQ(fed_[1].memory_peak_bytes, 1048576);

  std::vector<kube::testing::RecordedRequest> requests = server_.requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0].query_param("query"), cpu_history_query(options_));
  EXPECT_EQ(requests[1].query_param("query"), memory_history_query(options_));
  EXPECT_EQ(requests[0].query_param("start"), std::to_string(until_ - kHour));
  EXPECT_EQ(requests[0].query_param("end"), std::to_string(until_ - kHour));
  EXPECT_EQ(requests[2].query_param("start"), std::to_string(until_));
  EXPECT_EQ(requests[0].query_param("step"), "3600");
  EXPECT_EQ(requests[0].query_param("timeout"), "5m");
}

TEST_F(PrometheusBootstrapTest, FailuresEndTheBootstrapWithTheirReason) {
  struct Case {
    std::string name;
    kube::http::ServerResponse second_page_cpu;
    std::string error;
  } cases[] = {
      {"503",
       json_response(503, R"({"status":"error","errorType":"unavailable",)"
                          R"("error":"TSDB not ready"})"),
       "HTTP 503: TSDB not ready"},
      {"400",
       json_response(400, R"({"status":"error","errorType":"bad_data",)"
                          R"("error":"parse error at char 5"})"),
       "HTTP 400: parse error at char 5"},
      {"proxy",
       {.status = 502, .body = "<html>Bad Gateway</html>"},
       "HTTP 502: <html>Bad Gateway</html>"},
      {"malformed", json_response(200, R"({"status":"success","data":{)"),
       "the answer is not a JSON object"},
  };
  for (Case& c : cases) {
    fed_.clear();
    server_.enqueue("GET", kPath, json_response(200, matrix(until_ - kHour, "0.5")));
    server_.enqueue("GET", kPath, json_response(200, matrix(until_ - kHour, "1048576")));
    server_.enqueue("GET", kPath, c.second_page_cpu);
    BootstrapResult r = run();
    EXPECT_EQ(r.error, c.error) << c.name;
    EXPECT_EQ(r.pages, 1u) << c.name;
    EXPECT_EQ(fed_.size(), 1u) << c.name;  // the first page's window stays fed
  }
}

TEST_F(PrometheusBootstrapTest, ACancelledBootstrapStopsBetweenPages) {
  server_.enqueue("GET", kPath, json_response(200, matrix(until_ - kHour, "0.5")));
  server_.enqueue("GET", kPath, json_response(200, matrix(until_ - kHour, "1048576")));
  int asked = 0;
  BootstrapResult r = bootstrap_from_prometheus(
      options_, until_, [this](const UsageWindow& w) { fed_.push_back(w); },
      [&] { return ++asked > 1; });
  EXPECT_EQ(r.error, "cancelled");
  EXPECT_EQ(r.pages, 1u);
  EXPECT_EQ(fed_.size(), 1u);
  EXPECT_EQ(server_.requests().size(), 2u);
}

TEST_F(PrometheusBootstrapTest, ATimeoutEndsTheBootstrap) {
  server_.on("GET", kPath, [](kube::http::Exchange& ex) {
    ex.wait_closed(std::chrono::seconds(10));  // never answers; ends when the client gives up
  });
  options_.query_timeout = std::chrono::milliseconds(200);
  BootstrapResult r = run();
  EXPECT_NE(r.error, "");
  EXPECT_EQ(r.pages, 0u);
  EXPECT_TRUE(fed_.empty());
}

TEST_F(PrometheusBootstrapTest, AServerThatIsDownEndsTheBootstrap) {
  server_.stop();
  BootstrapResult r = run();
  EXPECT_NE(r.error, "");
  EXPECT_EQ(r.pages, 0u);
}

TEST_F(PrometheusBootstrapTest, AnAddressThatIsNotAUrlEndsTheBootstrap) {
  options_.address = "prometheus:9090";
  BootstrapResult r = run();
  EXPECT_NE(r.error, "");
}

}  // namespace
}  // namespace tailor::controller::usage

namespace tailor::controller::usage {
namespace {

// One page of one step, answered by `server`.
BootstrapResult one_page(kube::testing::TestApiServer& server, PrometheusHistoryOptions o) {
  const std::int64_t until = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count() /
                             kHour * kHour;
  server.on("GET", kPath, [until](kube::http::Exchange& ex) {
    const bool cpu =
        ex.request().target.find("container_cpu_usage_seconds_total") != std::string::npos;
    ex.respond(json_response(200, matrix(until, cpu ? "0.5" : "1048576")));
  });
  o.address = server.url();
  o.history_length_s = kHour;
  return bootstrap_from_prometheus(o, until, [](const UsageWindow&) {});
}

TEST(PrometheusBootstrapAuth, BearerTokenFromTheFlagOrItsFile) {
  TestApiServer server({.tls = false, .bearer_token = "s3cret"});
  PrometheusHistoryOptions o;
  const std::string unauthorized = one_page(server, o).error;
  EXPECT_TRUE(unauthorized.starts_with("HTTP 401")) << unauthorized;
  o.bearer_token = "s3cret";
  EXPECT_EQ(one_page(server, o).error, "");
  EXPECT_EQ(server.requests().back().header("authorization"), "Bearer s3cret");
  // The file (its trailing newline dropped) wins over the flag.
  const std::string file = ::testing::TempDir() + "/prometheus-token";
  std::ofstream(file) << "s3cret\n";
  o.bearer_token = "stale";
  o.bearer_token_file = file;
  EXPECT_EQ(one_page(server, o).error, "");
  o.bearer_token_file = file + ".missing";
  EXPECT_EQ(one_page(server, o).error, "cannot read " + file + ".missing");
}

TEST(PrometheusBootstrapAuth, HttpsIsVerifiedUnlessInsecure) {
  TestApiServer server({.tls = true});
  PrometheusHistoryOptions o;
  EXPECT_NE(one_page(server, o).error, "");  // the test CA is not in the system's trust store
  o.insecure_skip_verify = true;
  EXPECT_EQ(one_page(server, o).error, "");
}

}  // namespace
}  // namespace tailor::controller::usage
