#include "controller/usage/prometheus_history.h"

#include <gtest/gtest.h>

#include <cmath>

#include "controller/usage/usage_feed.h"

namespace tailor::controller::usage {
namespace {

using std::chrono::milliseconds;

TEST(PrometheusDuration, ParsesPrometheusUnits) {
  struct Case {
    std::string text;
    std::int64_t ms;
  } cases[] = {{"8d", 8LL * 86400 * 1000},
               {"1h", 3600 * 1000},
               {"90m", 90 * 60 * 1000},
               {"1h30m", 5400 * 1000},
               {"2w", 14LL * 86400 * 1000},
               {"1y", 365LL * 86400 * 1000},
               {"500ms", 500},
               {"1m30s", 90 * 1000},
               {"0s", 0}};
  for (const Case& c : cases) EXPECT_EQ(parse_prometheus_duration(c.text).count(), c.ms) << c.text;
}

TEST(PrometheusDuration, RejectsWhatPrometheusRejects) {
  for (const char* text : {"", "h", "1", "1x", "1.5h", "-1h", "1h ", "99999999999999y"}) {
    EXPECT_THROW(parse_prometheus_duration(text), std::invalid_argument) << text;
  }
}

TEST(PrometheusDuration, FormatsAsPrometheusPrints) {
  EXPECT_EQ(format_prometheus_duration(milliseconds(192LL * 3600 * 1000)), "1w1d");
  EXPECT_EQ(format_prometheus_duration(milliseconds(8LL * 86400 * 1000)), "1w1d");
  EXPECT_EQ(format_prometheus_duration(milliseconds(5400 * 1000)), "1h30m");
  EXPECT_EQ(format_prometheus_duration(milliseconds(1500)), "1s500ms");
  EXPECT_EQ(format_prometheus_duration(milliseconds(0)), "0s");
}

TEST(PrometheusHistory, QueriesCadvisorSeriesOfRealContainers) {
  PrometheusHistoryOptions o;
  EXPECT_EQ(container_selector(o),
            "job=\"kubernetes-cadvisor\", pod=~\".+\", container!=\"POD\", container!=\"\"");
  EXPECT_EQ(cpu_history_query(o),
            "sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{"
            "job=\"kubernetes-cadvisor\", pod=~\".+\", container!=\"POD\", container!=\"\"}[1h]))");
  o.cadvisor_job = "cadvisor";
  o.pod_label = "pod_name";
  o.container_label = "name";
  o.resolution_s = 300;
  EXPECT_EQ(memory_history_query(o),
            "max by (namespace, pod_name, name) (max_over_time("
            "container_memory_working_set_bytes{job=\"cadvisor\", pod_name=~\".+\", "
            "name!=\"POD\", name!=\"\"}[5m]))");
}

TEST(PrometheusHistory, PagesCoverTheHistoryOnResolutionSteps) {
  constexpr std::int64_t h = 3600;
  const std::int64_t until = 1'800'000'000;  // 10:40 (not on an hour)
  const std::int64_t last = until / h * h;
  struct Case {
    std::int64_t length_s, page_steps;
    std::vector<std::pair<std::int64_t, std::int64_t>> pages;  // relative to last, in hours
  } cases[] = {
      {6 * h, 4, {{-5, -2}, {-1, 0}}},          {6 * h, 6, {{-5, 0}}}, {6 * h, 24, {{-5, 0}}},
      {3 * h, 1, {{-2, -2}, {-1, -1}, {0, 0}}}, {h / 2, 4, {}},  // shorter than one step: nothing
                                                                 // to ask
  };
  for (const Case& c : cases) {
    PrometheusHistoryOptions o;
    o.history_length_s = c.length_s;
    o.page_steps = c.page_steps;
    std::vector<HistoryPage> pages = history_pages(until, o);
    ASSERT_EQ(pages.size(), c.pages.size()) << c.length_s << "/" << c.page_steps;
    for (std::size_t i = 0; i < pages.size(); ++i) {
      EXPECT_EQ(pages[i].start_s, last + c.pages[i].first * h);
      EXPECT_EQ(pages[i].end_s, last + c.pages[i].second * h);
    }
  }
}

constexpr const char* kMatrix = R"({"status":"success","data":{"resultType":"matrix","result":[
  {"metric":{"namespace":"shop","pod":"web-1","container":"app"},
   "values":[[1800000000,"0.25"],[1800003600,"0.5"],[1800007200.5,"NaN"]]},
  {"metric":{"namespace":"shop","pod":"web-1"},"values":[[1800000000,"1"]]},
  {"metric":{"namespace":"shop","pod":"web-2","container":"app"},"values":[[1800000000,"+Inf"]]}
]}})";

TEST(PrometheusHistory, ParsesAMatrixKeepingNonFiniteValuesForTheCheck) {
  std::vector<ContainerSeries> series = parse_matrix(kMatrix, {});
  ASSERT_EQ(series.size(), 2u);  // the series without a container label is skipped
  EXPECT_EQ(series[0].pod, "web-1");
  ASSERT_EQ(series[0].points.size(), 3u);
  EXPECT_EQ(series[0].points[1], (std::pair<std::int64_t, double>{1'800'003'600'000, 0.5}));
  EXPECT_EQ(series[0].points[2].first, 1'800'007'200'500);
  EXPECT_TRUE(std::isnan(series[0].points[2].second));
  EXPECT_TRUE(std::isinf(series[1].points[0].second));
}

TEST(PrometheusHistory, UnusableAnswersAreNamed) {
  struct Case {
    std::string body, error;
  } cases[] = {
      {"<html>502 Bad Gateway</html>", "the answer is not a JSON object"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[)",
       "the answer is not a JSON object"},
      {R"({"status":"error","errorType":"bad_data","error":"invalid parameter \"query\""})",
       "bad_data: invalid parameter \"query\""},
      {R"({"status":"error","errorType":"timeout","error":"query timed out in query execution"})",
       "timeout: query timed out in query execution"},
      {R"({"data":{}})", "the answer has no \"status\":\"success\""},
      {R"({"status":"success","data":{"resultType":"vector","result":[]}})",
       "the result is not a matrix"},
      {R"({"status":"success","data":{"resultType":"matrix"}})", "the answer has no result"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{}}]}})",
       "a series has no values"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,2]]}]}})",
       "a sample value is not a string"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"x"]]}]}})",
       "a sample value is not a number"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[["1","2"]]}]}})",
       "a sample time is not a number"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1e999,"2"]]}]}})",
       "the answer is not a JSON object"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1e300,"2"]]}]}})",
       "a sample time is out of range"},
      {R"({"status":"success","data":{"resultType":"matrix","result":[{"values":[[1]]}]}})",
       "a sample is not a [time, value] pair"},
  };
  for (const Case& c : cases) {
    try {
      parse_matrix(c.body, {});
      ADD_FAILURE() << "no error for " << c.body;
    } catch (const PrometheusError& e) {
      EXPECT_EQ(std::string(e.what()), c.error) << c.body;
    }
  }
}

ContainerSeries series(const std::string& pod, std::vector<std::pair<std::int64_t, double>> p) {
  return {.ns = "shop", .pod = pod, .container = "app", .points = std::move(p)};
}

TEST(PrometheusHistory, WindowsJoinCpuAndMemoryPerStepOldestFirst) {
  constexpr std::int64_t t = 1'800'000'000'000;
  std::vector<UsageWindow> w = history_windows(
      {series("web-1", {{t, 0.25}, {t + 3'600'000, 0.5}}), series("web-2", {{t, 1.0}})},
      {series("web-1", {{t + 3'600'000, 80e6}, {t, 64e6}}), series("web-2", {{t + 7'200'000, 9}})},
      3600);
  ASSERT_EQ(w.size(), 2u);  // web-2 never has both at the same step
  EXPECT_EQ(w[0].pod, "web-1");
  EXPECT_EQ(w[0].start_unix_ms, t - 3'600'000);
  EXPECT_EQ(w[0].end_unix_ms, t);
  EXPECT_EQ(w[0].samples, 1u);
  EXPECT_EQ(w[0].cpu_cores_mean, 0.25);
  EXPECT_EQ(w[0].cpu_cores_max, 0.25);
  EXPECT_EQ(w[0].memory_working_set_max_bytes, 64e6);
  EXPECT_EQ(w[0].memory_peak_bytes, 64e6);
  EXPECT_EQ(w[1].end_unix_ms, t + 3'600'000);
  EXPECT_EQ(w[1].cpu_cores_mean, 0.5);
  EXPECT_EQ(w[1].memory_peak_bytes, 80e6);
}

TEST(PrometheusHistory, NonFiniteAndAbsurdValuesAreDroppedByTheWindowCheck) {
  constexpr std::int64_t t = 1'800'000'000'000;
  std::vector<UsageWindow> w =
      history_windows({series("a", {{t, 0.1}}), series("b", {{t, std::nan("")}}),
                       series("c", {{t, 1e9}}), series("d", {{t, 0.1}})},
                      {series("a", {{t, 1e6}}), series("b", {{t, 1e6}}), series("c", {{t, 1e6}}),
                       series("d", {{t, HUGE_VAL}})},
                      3600);
  std::vector<std::string> fed;
  FeedCounts counts = feed_windows(
      w, [&](const UsageWindow& x) { fed.push_back(x.pod); }, t);
  EXPECT_EQ(fed, std::vector<std::string>{"a"});
  EXPECT_EQ(counts.fed, 1u);
  EXPECT_EQ(counts.dropped, 3u);
  EXPECT_EQ(counts.first_problem, "CPU usage is negative, not a number or absurd");
}

}  // namespace
}  // namespace tailor::controller::usage
