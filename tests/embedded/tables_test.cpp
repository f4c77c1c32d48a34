#include "embedded/api/tables.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "kube/model/time.h"

namespace tailor::embedded {
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
  request.now = *kube::try_parse_rfc3339("2026-01-01T00:10:00Z");
  boost::json::object table = make_table(pods, {pod}, request);
  EXPECT_EQ(table.at("columnDefinitions").as_array().size(), 9u);
  const boost::json::value& row = table.at("rows").at(0);
  EXPECT_EQ(boost::json::serialize(row.at("cells")),
            R"x(["web","1/1","Running","1 (5m ago)","10m","10.0.0.1","n1","<none>","<none>"])x");
  EXPECT_EQ(row.at("object").at("kind").as_string(), "PartialObjectMetadata");
}

// Events: every column as kube-apiserver renders it (LAST SEEN, TYPE, REASON, OBJECT, SUBOBJECT,
// SOURCE, MESSAGE, FIRST SEEN, COUNT, NAME).
TEST(EventTable, LastSeenCountSourceAsKubeApiserverPrints) {
  struct Case {
    const char* event;
    const char* cells;
  };
  for (
      Case c : std::vector<Case>{
          {R"({"metadata":{"name":"e1"},"type":"Warning","reason":"BackOff","involvedObject":{"kind":"Pod","name":"web","fieldPath":"spec.containers{app}"},
               "source":{"component":"kubelet","host":"n1"},"message":" restarting \n","firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:08:00Z","count":4})",
           R"(["2m","Warning","BackOff","pod/web","spec.containers{app}","kubelet, n1","restarting","10m",4,"e1"])"},
          {R"({"metadata":{"name":"e2"},"type":"Normal","reason":"Scheduled","involvedObject":{"kind":"Pod","name":"web"},
               "reportingComponent":"default-scheduler","eventTime":"2026-01-01T00:05:00.000000Z","message":"ok"})",
           R"(["5m","Normal","Scheduled","pod/web","","default-scheduler","ok","5m",1,"e2"])"},
          {R"({"metadata":{"name":"e3"},"type":"Normal","reason":"R","involvedObject":{"kind":"Node"},"reportingComponent":"c","reportingInstance":"i",
               "eventTime":"2026-01-01T00:00:00.000000Z","series":{"count":7,"lastObservedTime":"2026-01-01T00:09:00.000000Z"}})",
           R"(["60s","Normal","R","node","","c, i","","10m",7,"e3"])"},
          {R"({"metadata":{"name":"e4"},"involvedObject":{"kind":"Pod","name":"p"}})",
           R"(["<unknown>","","","pod/p","","","","<unknown>",1,"e4"])"},
      }) {
    const ResourceInfo& events = *find_resource("", "v1", "events");
    auto stored = std::make_shared<const StoredObject>(events, parse(c.event));
    TableRequest request;
    request.now = *kube::try_parse_rfc3339("2026-01-01T00:10:00Z");
    boost::json::object table = make_table(events, {stored}, request);
    EXPECT_EQ(boost::json::serialize(table.at("rows").at(0).at("cells")), c.cells) << c.event;
    EXPECT_EQ(table.at("columnDefinitions").as_array().size(), 10u);
  }
}

// Secrets, ServiceAccounts, Services, MutatingWebhookConfigurations as kube-apiserver's printers
// fill them (it prints with Wide set, so the SELECTOR cell is always present).
TEST(ConfigTables, CellsAsKubeApiserverPrints) {
  struct Case {
    const char* group;
    const char* resource;
    const char* object;
    const char* cells;
  };
  for (
      Case c : std::vector<Case>{
          {"", "secrets",
           R"({"metadata":{"name":"s"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}})",
           R"(["s","kubernetes.io/tls",2,"10m"])"},
          {"", "secrets",
           R"({"metadata":{"name":"s"},"data":{"a":""},"stringData":{"a":"x","b":"y"}})",
           R"(["s","Opaque",2,"10m"])"},
          {"", "serviceaccounts", R"({"metadata":{"name":"sa"},"secrets":[{"name":"t"}]})",
           R"(["sa",1,"10m"])"},
          {"", "serviceaccounts", R"({"metadata":{"name":"default"}})", R"(["default",0,"10m"])"},
          {"", "services",
           R"({"metadata":{"name":"web"},"spec":{"selector":{"tier":"fe","app":"web"},"ports":[{"port":80,"protocol":"TCP"},{"port":53,"protocol":"UDP"}]}})",
           R"(["web","ClusterIP","<none>","<none>","80/TCP,53/UDP","10m","app=web,tier=fe"])"},
          {"", "services",
           R"({"metadata":{"name":"np"},"spec":{"type":"NodePort","clusterIP":"10.96.0.10","clusterIPs":["10.96.0.10"],"externalIPs":["1.2.3.4"],"ports":[{"port":80,"nodePort":30080}]}})",
           R"(["np","NodePort","10.96.0.10","1.2.3.4","80:30080/TCP","10m","<none>"])"},
          {"", "services",
           R"({"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","clusterIP":"10.96.0.11"}})",
           R"(["lb","LoadBalancer","10.96.0.11","<pending>","<none>","10m","<none>"])"},
          {"", "services",
           R"({"metadata":{"name":"lb"},"spec":{"type":"LoadBalancer","externalIPs":["9.9.9.9"]},"status":{"loadBalancer":{"ingress":[{"ip":"5.6.7.8"},{"hostname":"a.example.com"},{"ip":"1.2.3.4"}]}}})",
           R"(["lb","LoadBalancer","<none>","1.2.3.4,5.6.7.8,a.example.com,9.9.9.9","<none>","10m","<none>"])"},
          {"", "services",
           R"({"metadata":{"name":"ext"},"spec":{"type":"ExternalName","externalName":"db.example.com"}})",
           R"(["ext","ExternalName","<none>","db.example.com","<none>","10m","<none>"])"},
          {"admissionregistration.k8s.io", "mutatingwebhookconfigurations",
           R"({"metadata":{"name":"m"},"webhooks":[{"name":"a.example.com"},{"name":"b.example.com"}]})",
           R"(["m",2,"10m"])"},
      }) {
    const ResourceInfo& resource = *find_resource(c.group, "v1", c.resource);
    boost::json::object object = parse(c.object);
    object["metadata"].as_object()["creationTimestamp"] = "2026-01-01T00:00:00Z";
    auto stored = std::make_shared<const StoredObject>(resource, std::move(object));
    TableRequest request;
    request.now = *kube::try_parse_rfc3339("2026-01-01T00:10:00Z");
    boost::json::object table = make_table(resource, {stored}, request);
    EXPECT_EQ(boost::json::serialize(table.at("rows").at(0).at("cells")), c.cells) << c.object;
    EXPECT_EQ(table.at("columnDefinitions").as_array().size(),
              table.at("rows").at(0).at("cells").as_array().size())
        << c.resource;
  }
}

TEST(ConfigTables, ColumnNames) {
  struct Case {
    const char* group;
    const char* resource;
    const char* names;
  };
  for (Case c : std::vector<Case>{
           {"", "secrets", "Name,Type,Data,Age,"},
           {"", "serviceaccounts", "Name,Secrets,Age,"},
           {"", "services", "Name,Type,Cluster-IP,External-IP,Port(s),Age,Selector(wide),"},
           {"admissionregistration.k8s.io", "mutatingwebhookconfigurations", "Name,Webhooks,Age,"},
       }) {
    boost::json::object table = make_table(*find_resource(c.group, "v1", c.resource), {}, {});
    std::string names;
    for (const boost::json::value& col : table.at("columnDefinitions").as_array()) {
      names += std::string(col.at("name").as_string());
      if (col.at("priority").as_int64() == 1) names += "(wide)";
      names += ",";
    }
    EXPECT_EQ(names, c.names);
  }
}

}  // namespace
}  // namespace tailor::embedded
