// tailor_controller_metrics_api_readings_total{outcome}: the poller counts each listed container
// reading as fed, stale or streamed, on the registry it is given.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "controller/usage/metrics_api_poller.h"
#include "kube/model/time.h"
#include "tests/controller/usage/pod_metrics_fixture.h"
#include "tests/support/test_api_server.h"

namespace tailor::controller::usage {
namespace {

using kube::testing::json_response;
using kube::testing::TestApiServer;

constexpr const char* kPath = "/apis/metrics.k8s.io/v1beta1/pods";

// A PodMetricsList of one pod, shop/web-1, with an "app" and a "sidecar" container whose
// readings end at end_ms (a 30 s window).
std::string pod_metrics_list(std::int64_t end_ms) {
  return testing::web_pod_metrics_list(end_ms, "30s");
}

std::string readings_line(const std::string& outcome, int count) {
  return "tailor_controller_metrics_api_readings_total{outcome=\"" + outcome + "\"} " +
         std::to_string(count) + "\n";
}

class MetricsApiReadingsTest : public ::testing::Test {
 protected:
  MetricsApiReadingsTest() : client_(api_.config()) {}

  // Whether the registry's /metrics text holds the counter at these values.
  void expect_readings(int fed, int stale, int streamed) {
    const std::string text = registry_.serialize();
    EXPECT_NE(text.find(readings_line("fed", fed)), std::string::npos) << text;
    EXPECT_NE(text.find(readings_line("stale", stale)), std::string::npos) << text;
    EXPECT_NE(text.find(readings_line("streamed", streamed)), std::string::npos) << text;
  }

  TestApiServer api_;
  kube::RestClient client_;
  kube::metrics::Registry registry_;
  StreamedContainers streamed_;
  int fed_ = 0;
  UsageSink sink_ = [this](const UsageWindow&) { ++fed_; };
};

TEST_F(MetricsApiReadingsTest, EverySeriesStartsAtZero) {
  MetricsApiPoller poller(client_, {.metrics = &registry_}, sink_);
  expect_readings(0, 0, 0);
  EXPECT_NE(registry_.serialize().find("# HELP tailor_controller_metrics_api_readings_total"),
            std::string::npos);
}

TEST_F(MetricsApiReadingsTest, CountsFedStaleAndStreamedReadings) {
  MetricsApiPoller poller(client_, {.streamed = &streamed_, .metrics = &registry_}, sink_);
  const std::int64_t reading_end = unix_now_ms() - 5'000;
  // The node agent streamed "app" up to the same time: its reading is the agent's to report.
  streamed_.record({.node = "n1",
                    .ns = "shop",
                    .pod = "web-1",
                    .pod_uid = "u1",
                    .container = "app",
                    .start_unix_ms = reading_end - 10'000,
                    .end_unix_ms = reading_end,
                    .samples = 3});
  const std::string list = pod_metrics_list(reading_end);
  api_.enqueue("GET", kPath, json_response(200, list));
  api_.enqueue("GET", kPath, json_response(200, list));
  poller.poll_once();  // sidecar fed, app streamed
  expect_readings(1, 0, 1);
  poller.poll_once();  // the same readings again (no new scrape): both stale
  expect_readings(1, 2, 1);
  EXPECT_EQ(fed_, 1);
  PollStats stats = poller.stats();  // the counter says what the stats say
  EXPECT_EQ(stats.fed, 1u);
  EXPECT_EQ(stats.stale, 2u);
  EXPECT_EQ(stats.streamed, 1u);
}

}  // namespace
}  // namespace tailor::controller::usage
