#include "embedded/api/tables.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "controller/kube/model/time.h"
#include "embedded/api/resources.h"

namespace tailor::kube::embedded {
namespace {

using namespace std::chrono;

TEST(HumanDuration, AsKubernetesRendersAges) {
  struct Case {
    nanoseconds d;
    const char* want;
  };
  for (Case c : std::vector<Case>{{-seconds(2), "<invalid>"},
                                  {-seconds(1), "0s"},
                                  {seconds(0), "0s"},
                                  {seconds(119), "119s"},
                                  {seconds(120), "2m"},
                                  {seconds(125), "2m5s"},
                                  {minutes(10), "10m"},
                                  {minutes(179), "179m"},
                                  {hours(3), "3h"},
                                  {hours(7) + minutes(59), "7h59m"},
                                  {hours(47), "47h"},
                                  {hours(50), "2d2h"},
                                  {hours(24 * 8), "8d"},
                                  {hours(24 * 365 * 2 + 24), "2y1d"},
                                  {hours(24 * 365 * 9), "9y"}}) {
    EXPECT_EQ(human_duration(c.d), c.want) << c.d.count();
  }
}

boost::json::object parse(const char* text) { return boost::json::parse(text).as_object(); }

TEST(PodTable, StatusReadyRestarts) {
  struct Case {
    const char* pod;
    const char* status;
  };
  for (
      Case c : std::vector<Case>{
          {R"({"status":{"phase":"Pending"}})", "Pending"},
          {R"({"spec":{"containers":[{"name":"a"}]},"status":{"phase":"Running","containerStatuses":[{"name":"a","ready":true,"restartCount":2,"state":{"running":{}}}]}})",
           "Running"},
          {R"({"status":{"phase":"Running","containerStatuses":[{"name":"a","state":{"waiting":{"reason":"CrashLoopBackOff"}}}]}})",
           "CrashLoopBackOff"},
          {R"({"status":{"phase":"Failed","containerStatuses":[{"name":"a","state":{"terminated":{"exitCode":137,"signal":9}}}]}})",
           "Signal:9"},
          {R"({"spec":{"initContainers":[{"name":"i"}]},"status":{"phase":"Pending","initContainerStatuses":[{"name":"i","state":{"waiting":{"reason":"PodInitializing"}}}]}})",
           "Init:0/1"},
          {R"({"metadata":{"deletionTimestamp":"2026-01-01T00:00:00Z"},"status":{"phase":"Running"}})",
           "Terminating"},
      }) {
    EXPECT_EQ(pod_status_reason(parse(c.pod)), c.status) << c.pod;
  }
}

TEST(PodTable, RowCellsAndPartialObjectMetadata) {
  const ResourceInfo& pods = *find_resource("", "v1", "pods");
  auto pod = std::make_shared<const StoredObject>(
      pods,
      parse(
          R"({"metadata":{"name":"web","creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"containers":[{"name":"a"}],"nodeName":"n1"},
          "status":{"phase":"Running","podIP":"10.0.0.1","containerStatuses":[{"name":"a","ready":true,"restartCount":1,"state":{"running":{}},
          "lastState":{"terminated":{"finishedAt":"2026-01-01T00:05:00Z"}}}]}})"));
  TableRequest request;
  request.now = *try_parse_rfc3339("2026-01-01T00:10:00Z");
  boost::json::object table = make_table(pods, {pod}, request);
  EXPECT_EQ(table.at("columnDefinitions").as_array().size(), 9u);
  const boost::json::value& row = table.at("rows").at(0);
  EXPECT_EQ(boost::json::serialize(row.at("cells")),
            R"x(["web","1/1","Running","1 (5m ago)","10m","10.0.0.1","n1","<none>","<none>"])x");
  EXPECT_EQ(row.at("object").at("kind").as_string(), "PartialObjectMetadata");
}

}  // namespace
}  // namespace tailor::kube::embedded
