#include "node-agent/allocation/pod_status.h"

#include <gtest/gtest.h>

#include "kube/client/rest_client.h"
#include "kube/model/encode.h"
#include "tests/support/test_api_server.h"

namespace tailor::node::allocation {
namespace {

const kube::TimePoint kNow = kube::parse_rfc3339("2026-01-01T00:00:10Z");

kube::Pod pod_with(std::vector<kube::PodCondition> conditions) {
  kube::Pod pod;
  pod.metadata.name = "web";
  pod.metadata.namespace_ = "default";
  pod.metadata.uid = "uid-web";
  pod.metadata.resource_version = "7";
  pod.metadata.generation = 2;
  pod.spec.containers.push_back({"app", "busybox", {}, {}, ""});
  kube::ContainerStatus status;
  status.name = "app";
  pod.status.container_statuses.push_back(status);
  pod.status.conditions = std::move(conditions);
  return pod;
}

kube::PodCondition condition(std::string_view type, std::string reason, std::string message,
                             std::string since = "2026-01-01T00:00:00Z",
                             std::int64_t generation = 2) {
  return kube::PodCondition{std::string(type), "True", std::move(reason), std::move(message),
                            std::move(since),  "",     generation};
}

TEST(ResizeStatusChange, AddsPendingWithTheTimeOfTheTransition) {
  DesiredResizeStatus desired;
  desired.pending = ResizeCondition{"Deferred", "Node didn't have enough resource: cpu", 2};
  const kube::PodStatusPatch patch = resize_status_change(pod_with({}), desired, kNow);
  ASSERT_EQ(patch.set_conditions.size(), 1u);
  EXPECT_EQ(patch.set_conditions[0],
            condition(kube::kPodResizePending, "Deferred", "Node didn't have enough resource: cpu",
                      "2026-01-01T00:00:10Z"));
  EXPECT_TRUE(patch.remove_conditions.empty());
}

TEST(ResizeStatusChange, KeepsTransitionTimeWhileTheReasonStays) {
  const kube::Pod pod = pod_with({condition(kube::kPodResizePending, "Deferred", "used: 1000")});
  DesiredResizeStatus desired;
  desired.pending = ResizeCondition{"Deferred", "used: 1500", 2};
  kube::PodStatusPatch patch = resize_status_change(pod, desired, kNow);
  ASSERT_EQ(patch.set_conditions.size(), 1u);
  EXPECT_EQ(patch.set_conditions[0].last_transition_time, "2026-01-01T00:00:00Z");

  desired.pending = ResizeCondition{"Infeasible", "too big", 2};
  patch = resize_status_change(pod, desired, kNow);
  EXPECT_EQ(patch.set_conditions[0].last_transition_time, "2026-01-01T00:00:10Z");

  desired.pending = ResizeCondition{"Deferred", "used: 1000", 2};
  EXPECT_TRUE(is_empty(resize_status_change(pod, desired, kNow)));  // nothing to write
}

TEST(ResizeStatusChange, RemovesResolvedConditions) {
  const kube::Pod pod = pod_with({condition(kube::kPodResizePending, "Deferred", "x"),
                                  condition(kube::kPodResizeInProgress, "", "")});
  const kube::PodStatusPatch patch = resize_status_change(pod, {}, kNow);
  EXPECT_EQ(patch.remove_conditions,
            (std::vector<std::string>{std::string(kube::kPodResizePending),
                                      std::string(kube::kPodResizeInProgress)}));
}

TEST(ResizeStatusChange, ContainerResourcesOnlyWhenChangedAndKnown) {
  kube::Pod pod = pod_with({});
  pod.status.container_statuses[0].allocated_resources = {{"cpu", kube::Quantity::parse("500m")}};
  DesiredResizeStatus desired;
  desired.containers.push_back(
      {"app", kube::ResourceList{{"cpu", kube::Quantity::parse("0.5")}}, std::nullopt});
  desired.containers.push_back(
      {"not-started", kube::ResourceList{{"cpu", kube::Quantity::parse("1")}}, {}});
  EXPECT_TRUE(is_empty(resize_status_change(pod, desired, kNow)));

  desired.containers[0].resources =
      kube::ResourceRequirements{{{"cpu", kube::Quantity::parse("1")}}, {}};
  desired.observed_generation = 2;
  const kube::PodStatusPatch patch = resize_status_change(pod, desired, kNow);
  ASSERT_EQ(patch.containers.size(), 1u);
  EXPECT_FALSE(patch.containers[0].allocated_resources);
  EXPECT_TRUE(patch.containers[0].resources);
  EXPECT_EQ(patch.observed_generation, 2);
}

TEST(PodRejectionPatch, IsAMergePatchOfPhaseReasonMessage) {
  EXPECT_EQ(pod_rejection_patch("OutOfcpu", "Pod was rejected: x"),
            R"({"status":{"phase":"Failed","reason":"OutOfcpu","message":"Pod was rejected: x"}})");
}

// KEP flow T=6/T=7: the pod changed between the agent's read and its write (e.g. a new resize);
// the patch fails its resourceVersion test, and the writer re-reads and rebuilds it.
TEST(RestPodStatusWriter, RereadsAndRebuildsOnConflict) {
  kube::testing::TestApiServer server({.tls = false});
  const std::string path = "/api/v1/namespaces/default/pods/web/status";
  server.enqueue("PATCH", path,
                 kube::testing::status_response(409, "Conflict", "the object has been modified"));
  // Meanwhile a new resize was deferred: the condition to remove moved to index 1.
  kube::Pod fresh = pod_with({condition(kube::kPodResizePending, "Deferred", "x"),
                              condition(kube::kPodResizeInProgress, "", "")});
  fresh.metadata.resource_version = "8";
  server.on("GET", "/api/v1/namespaces/default/pods/web", [&](kube::http::Exchange& exchange) {
    exchange.respond(kube::testing::json_response(200, kube::to_json(fresh)));
  });
  server.on("PATCH", path, [&](kube::http::Exchange& exchange) {
    exchange.respond(kube::testing::json_response(200, kube::to_json(fresh)));
  });
  kube::RestClient client(server.config());
  RestPodStatusWriter writer(client);
  std::vector<std::string> seen_versions;
  writer.update(
      pod_with({condition(kube::kPodResizeInProgress, "", "")}), [&](const kube::Pod& current) {
        seen_versions.push_back(current.metadata.resource_version);
        return resize_status_change(current, {}, kNow);  // remove PodResizeInProgress if present
      });
  EXPECT_EQ(seen_versions, (std::vector<std::string>{"7", "8"}));
  EXPECT_EQ(writer.conflicts(), 1u);
  const auto requests = server.requests();
  ASSERT_EQ(server.count("PATCH", path), 2u);  // the 409 and the retry
  std::string last_patch;
  for (const auto& r : requests) {
    if (r.method == "PATCH") last_patch = r.body;
  }
  EXPECT_NE(last_patch.find(R"("value":"8")"), std::string::npos) << last_patch;
  EXPECT_NE(last_patch.find(R"({"op":"remove","path":"/status/conditions/1"})"), std::string::npos)
      << last_patch;
}

TEST(RestPodStatusWriter, GoneIsNotAnError) {
  kube::testing::TestApiServer server({.tls = false});
  server.enqueue("PATCH", "/api/v1/namespaces/default/pods/web/status",
                 kube::testing::status_response(404, "NotFound", "pods \"web\" not found"));
  kube::RestClient client(server.config());
  RestPodStatusWriter writer(client);
  DesiredResizeStatus desired;
  desired.pending = ResizeCondition{"Deferred", "x", 2};
  EXPECT_NO_THROW(writer.update(pod_with({}), [&](const kube::Pod& current) {
    return resize_status_change(current, desired, kNow);
  }));
}

}  // namespace
}  // namespace tailor::node::allocation
