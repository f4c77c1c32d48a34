#include "controller/usage/metrics_api_poller.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "kube/model/time.h"
#include "tests/controller/usage/fed_windows.h"
#include "tests/support/test_api_server.h"

namespace tailor::controller::usage {
namespace {

using kube::testing::json_response;
using kube::testing::status_response;
using kube::testing::TestApiServer;

constexpr const char* kPath = "/apis/metrics.k8s.io/v1beta1/pods";

// A PodMetricsList whose one reading ended `age` ago (the window check refuses the future).
std::string pod_metrics_list(std::chrono::seconds age, const std::string& cpu = "250m") {
  const std::string ts =
      kube::format_rfc3339(kube::TimePoint(std::chrono::system_clock::now() - age));
  return R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1","metadata":{},
    "items":[{"metadata":{"name":"web-1","namespace":"shop"},"timestamp":")" +
         ts + R"(","window":"30s","containers":[{"name":"app","usage":{"cpu":")" + cpu +
         R"(","memory":"64Mi"}}]}]})";
}

using testing::FedWindows;

class MetricsApiPollerTest : public ::testing::Test {
 protected:
  MetricsApiPollerTest() : client_(config()) {}
  kube::RestConfig config() {
    kube::RestConfig c = server_.config();
    c.max_retries = 1;
    return c;
  }
  TestApiServer server_;
  kube::RestClient client_;
  FedWindows fed_;
};

TEST_F(MetricsApiPollerTest, FeedsEachContainerReadingOnce) {
  const std::string list = pod_metrics_list(std::chrono::seconds(5));
  server_.enqueue("GET", kPath, json_response(200, list));
  server_.enqueue("GET", kPath, json_response(200, list));
  MetricsApiPoller poller(client_, {}, fed_.sink());
  poller.poll_once();
  poller.poll_once();
  ASSERT_EQ(fed_.size(), 1u);
  EXPECT_EQ(fed_.windows[0].pod, "web-1");
  EXPECT_EQ(fed_.windows[0].container, "app");
  EXPECT_DOUBLE_EQ(fed_.windows[0].cpu_cores_mean, 0.25);
  EXPECT_EQ(fed_.windows[0].end_unix_ms - fed_.windows[0].start_unix_ms, 30'000);
  PollStats s = poller.stats();
  EXPECT_EQ(s.polls, 2u);
  EXPECT_EQ(s.fed, 1u);
  EXPECT_EQ(s.stale, 1u);
  EXPECT_EQ(s.failures, 0u);
}

TEST_F(MetricsApiPollerTest, AnApiThatIsNotServedIsPolledAgain) {
  server_.enqueue("GET", kPath,
                  status_response(404, "NotFound",
                                  "the server could not find the requested "
                                  "resource"));
  server_.enqueue("GET", kPath, json_response(200, pod_metrics_list(std::chrono::seconds(5))));
  MetricsApiPoller poller(client_, {}, fed_.sink());
  poller.poll_once();
  EXPECT_EQ(fed_.size(), 0u);
  poller.poll_once();
  EXPECT_EQ(fed_.size(), 1u);
  EXPECT_EQ(poller.stats().failures, 1u);
  EXPECT_EQ(poller.stats().polls, 1u);
}

TEST_F(MetricsApiPollerTest, FailuresFeedNothingAndPollingGoesOn) {
  struct Case {
    std::string name;
    kube::http::ServerResponse response;
  } cases[] = {
      {"503", status_response(503, "ServiceUnavailable",
                              "the server is currently unable to handle the request")},
      {"malformed", json_response(200, R"({"kind":"PodMetricsList","items":[)")},
      {"not a list", json_response(200, R"({"kind":"PodMetricsList"})")},
  };
  MetricsApiPoller poller(client_, {}, fed_.sink());
  std::uint64_t failures = 0;
  for (Case& c : cases) {
    // A 503 is retried once by the client (max_retries 1): script it for both attempts.
    for (int i = 0; i < (c.name == "503" ? 2 : 1); ++i) server_.enqueue("GET", kPath, c.response);
    poller.poll_once();
    EXPECT_EQ(poller.stats().failures, ++failures) << c.name;
    EXPECT_EQ(fed_.size(), 0u) << c.name;
  }
  server_.enqueue("GET", kPath, json_response(200, pod_metrics_list(std::chrono::seconds(5))));
  poller.poll_once();
  EXPECT_EQ(fed_.size(), 1u);
}

TEST_F(MetricsApiPollerTest, UnusableReadingsAreDroppedByTheWindowCheck) {
  // A reading from the future (a node's clock far ahead) and an absurd one.
  server_.enqueue("GET", kPath, json_response(200, pod_metrics_list(std::chrono::seconds(-3600))));
  server_.enqueue("GET", kPath,
                  json_response(200, pod_metrics_list(std::chrono::seconds(5), "1000000000")));
  // Then a good reading: the one from the future is not remembered as the latest.
  server_.enqueue("GET", kPath, json_response(200, pod_metrics_list(std::chrono::seconds(5))));
  MetricsApiPoller poller(client_, {}, fed_.sink());
  poller.poll_once();
  poller.poll_once();
  EXPECT_EQ(fed_.size(), 0u);
  EXPECT_EQ(poller.stats().dropped, 2u);
  poller.poll_once();
  EXPECT_EQ(fed_.size(), 1u);
}

TEST_F(MetricsApiPollerTest, PollsEveryIntervalUntilStopped) {
  server_.on("GET", kPath,
             [](kube::http::Exchange& ex) { ex.respond(json_response(200, R"({"items":[]})")); });
  MetricsApiPoller poller(client_, {.interval = std::chrono::milliseconds(5)}, fed_.sink());
  poller.start();
  for (int i = 0; i < 2000 && server_.count("GET", kPath) < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  poller.stop();
  const std::size_t polls = server_.count("GET", kPath);
  EXPECT_GE(polls, 3u);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_EQ(server_.count("GET", kPath), polls);  // none after stop()
}

}  // namespace
}  // namespace tailor::controller::usage
