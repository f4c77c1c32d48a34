#include "controller/usage/pod_metrics.h"

#include <gtest/gtest.h>

namespace tailor::controller::usage {
namespace {

// As metrics-server answers GET /apis/metrics.k8s.io/v1beta1/pods.
constexpr const char* kList = R"({"kind":"PodMetricsList","apiVersion":"metrics.k8s.io/v1beta1",
 "metadata":{},"items":[
 {"metadata":{"name":"web-1","namespace":"shop","creationTimestamp":"2027-01-15T08:00:05Z",
   "labels":{"app":"web"}},
  "timestamp":"2027-01-15T08:00:00Z","window":"15.012s",
  "containers":[{"name":"app","usage":{"cpu":"250m","memory":"64Mi"}},
                {"name":"sidecar","usage":{"cpu":"1234567n","memory":"2048Ki"}}]},
 {"metadata":{"name":"db-0","namespace":"data","creationTimestamp":"2027-01-15T08:00:05Z"},
  "timestamp":"2027-01-15T07:59:50Z","window":"1m0.5s",
  "containers":[{"name":"postgres","usage":{"cpu":"2","memory":"1Gi"}}]}
]})";

constexpr std::int64_t kEnd = 1'800'000'000'000;  // 2027-01-15T08:00:00Z

TEST(PodMetrics, OneWindowPerContainerOverTheMetricsWindow) {
  PodMetricsWindows got = windows_from_pod_metrics(kList);
  EXPECT_EQ(got.skipped, 0u);
  ASSERT_EQ(got.windows.size(), 3u);
  const UsageWindow& app = got.windows[0];
  EXPECT_EQ(app.ns, "shop");
  EXPECT_EQ(app.pod, "web-1");
  EXPECT_EQ(app.container, "app");
  EXPECT_EQ(app.end_unix_ms, kEnd);
  EXPECT_EQ(app.start_unix_ms, kEnd - 15'012);
  EXPECT_EQ(app.samples, 1u);
  EXPECT_DOUBLE_EQ(app.cpu_cores_mean, 0.25);
  EXPECT_DOUBLE_EQ(app.cpu_cores_max, 0.25);
  EXPECT_DOUBLE_EQ(app.memory_working_set_max_bytes, 64.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(app.memory_peak_bytes, 64.0 * 1024 * 1024);
  EXPECT_EQ(got.windows[1].container, "sidecar");
  EXPECT_DOUBLE_EQ(got.windows[1].cpu_cores_mean, 0.001234567);
  EXPECT_DOUBLE_EQ(got.windows[1].memory_peak_bytes, 2048.0 * 1024);
  const UsageWindow& db = got.windows[2];
  EXPECT_EQ(db.end_unix_ms, kEnd - 10'000);
  EXPECT_EQ(db.start_unix_ms, kEnd - 10'000 - 60'500);
  EXPECT_DOUBLE_EQ(db.cpu_cores_mean, 2);
  EXPECT_DOUBLE_EQ(db.memory_peak_bytes, 1024.0 * 1024 * 1024);
}

TEST(PodMetrics, UnreadableItemsAreSkippedAndNamed) {
  struct Case {
    std::string item;
    std::size_t windows;
    std::string problem_start;
  } cases[] = {
      {R"({"metadata":{"name":"p","namespace":"n"},"timestamp":"yesterday","window":"15s",
           "containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}]})",
       0, "PodMetrics: "},
      {R"({"metadata":{"name":"p","namespace":"n"},"timestamp":"2027-01-15T08:00:00Z",
           "window":"15 seconds","containers":[{"name":"c","usage":{"cpu":"1","memory":"1"}}]})",
       0, "PodMetrics: "},
      {R"({"metadata":{"name":"p"},"timestamp":"2027-01-15T08:00:00Z","window":"15s",
           "containers":[]})",
       0, "PodMetrics: no namespace"},
      {R"({"metadata":{"name":"p","namespace":"n"},"timestamp":"2027-01-15T08:00:00Z",
           "window":"15s"})",
       0, "PodMetrics: no containers"},
      {R"({"metadata":{"name":"p","namespace":"n"},"timestamp":"2027-01-15T08:00:00Z",
           "window":"15s","containers":[{"name":"c","usage":{"cpu":"lots","memory":"1"}},
                                        {"name":"d","usage":{"cpu":"1","memory":"1"}}]})",
       1, "container of n/p: "},
      {R"({"metadata":{"name":"p","namespace":"n"},"timestamp":"2027-01-15T08:00:00Z",
           "window":"15s","containers":[{"name":"c","usage":{"cpu":"1"}}]})",
       0, "container of n/p: no memory"},
      {R"("not an object")", 0, "PodMetrics: "},
  };
  for (const Case& c : cases) {
    PodMetricsWindows got = windows_from_pod_metrics(R"({"items":[)" + c.item + "]}");
    EXPECT_EQ(got.windows.size(), c.windows) << c.item;
    EXPECT_EQ(got.skipped, 1u) << c.item;
    EXPECT_TRUE(got.first_problem.starts_with(c.problem_start)) << got.first_problem;
  }
}

TEST(PodMetrics, AListThatIsNotOneThrows) {
  for (const char* body : {"", "<html>", "[]", R"({"kind":"Status"})", R"({"items":{}})"}) {
    EXPECT_THROW(windows_from_pod_metrics(body), std::runtime_error) << body;
  }
}

UsageWindow reading(const std::string& pod, std::int64_t end_ms) {
  UsageWindow w;
  w.ns = "shop";
  w.pod = pod;
  w.container = "app";
  w.end_unix_ms = end_ms;
  return w;
}

std::vector<std::string> pods(const std::vector<UsageWindow>& windows) {
  std::vector<std::string> out;
  for (const UsageWindow& w : windows) out.push_back(w.pod + "@" + std::to_string(w.end_unix_ms));
  return out;
}

TEST(FreshWindows, TheSameReadingIsFedOnce) {
  FreshWindows fresh;
  using V = std::vector<std::string>;
  EXPECT_EQ(pods(fresh.keep_fresh({reading("a", 10), reading("b", 10)})), (V{"a@10", "b@10"}));
  // metrics-server has not scraped again: nothing new.
  EXPECT_EQ(pods(fresh.keep_fresh({reading("a", 10), reading("b", 10)})), V{});
  // a was scraped again; b's answer went back in time (a restarted metrics-server): kept out.
  EXPECT_EQ(pods(fresh.keep_fresh({reading("a", 20), reading("b", 5)})), V{"a@20"});
  // b is gone from the list, so forgotten: a pod of that name later is new.
  EXPECT_EQ(pods(fresh.keep_fresh({reading("a", 20)})), V{});
  EXPECT_EQ(pods(fresh.keep_fresh({reading("b", 5)})), V{"b@5"});
}

}  // namespace
}  // namespace tailor::controller::usage
