// The demo's figures come from API snapshots only: in-place resizes are changes of a pod's
// reported resources under the same UID, recreations are pods named by a Recreating event and
// classified by the PodResizePending reason they carried, a Deferred resize completes when the
// same pod later reports the new resources.
#include "cli/demo_tracker.h"

#include <gtest/gtest.h>

namespace tailor::cli::demo {
namespace {

PodView pod(const std::string& name, const std::string& uid, const std::string& app,
            const std::string& node, const ResourceMap& desired, const ResourceMap& actual,
            int restarts = 0) {
  PodView p{.name = name, .uid = uid, .node = node, .phase = "Running", .app = app};
  p.containers.push_back({.name = "app",
                          .requests = desired,
                          .actual_requests = actual,
                          .restart_count = restarts,
                          .running = true});
  return p;
}

PodView pending(PodView p, const std::string& reason) {
  p.conditions.push_back({"PodResizePending", "True", reason, "Node didn't have enough capacity"});
  return p;
}

PolicyView policy(const std::string& name, const ResourceMap& target) {
  return {.name = name, .targets = {{"app", target}}};
}

EventView recreating(const std::string& name, const std::string& uid) {
  return {.uid = "ev-" + uid,
          .reason = "Recreating",
          .message = "Evicted to be recreated with the recommended resources",
          .type = "Normal",
          .object_kind = "Pod",
          .object_name = name,
          .object_uid = uid};
}

const ResourceMap kSmall{{"cpu", "100m"}, {"memory", "64Mi"}};
const ResourceMap kBig{{"cpu", "250m"}, {"memory", "180Mi"}};

TEST(DemoTracker, ResizeInPlaceCountsOnceWhenTheReportedResourcesChange) {
  Tracker t;
  t.observe({.pods = {pod("web-1", "u1", "web", "n2", kSmall, kSmall)}}, 0);
  t.observe(
      {.pods = {pod("web-1", "u1", "web", "n2", kBig, kSmall)}, .policies = {policy("web", kBig)}},
      1);
  auto lines = t.observe({.pods = {pod("web-1", "u1", "web", "n2", kBig, kBig)}}, 2);
  Summary s = t.summary();
  EXPECT_EQ(s.in_place_resizes, 1);
  EXPECT_EQ(s.restarts_caused, 0);
  EXPECT_EQ(s.first_recommendation_at, 1);
  EXPECT_EQ(s.first_resize_at, 2);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("cpu 100m→250m"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("uid u1 unchanged"), std::string::npos) << lines[0];
  ASSERT_EQ(s.pods.size(), 1u);
  EXPECT_EQ(s.pods[0].last_requests.at("app").at("memory"), "180Mi");
}

TEST(DemoTracker, SameQuantityInAnotherSpellingIsNoResize) {
  Tracker t;
  t.observe({.pods = {pod("a", "u1", "web", "n", kSmall, {{"cpu", "1"}, {"memory", "1Gi"}})}}, 0);
  t.observe(
      {.pods = {pod("a", "u1", "web", "n", kSmall, {{"cpu", "1000m"}, {"memory", "1024Mi"}})}}, 1);
  EXPECT_EQ(t.summary().in_place_resizes, 0);
}

TEST(DemoTracker, ContainerStartIsNoResizeButRestartsCount) {
  Tracker t;
  t.observe({.pods = {pod("a", "u1", "web", "n", kSmall, {})}}, 0);
  t.observe({.pods = {pod("a", "u1", "web", "n", kSmall, kSmall)}}, 1);
  t.observe({.pods = {pod("a", "u1", "web", "n", kSmall, kSmall, 2)}}, 2);
  EXPECT_EQ(t.summary().in_place_resizes, 0);
  EXPECT_EQ(t.summary().restarts_caused, 2);
}

TEST(DemoTracker, InfeasibleThenEvictedIsARecreationAndTheReplacementIsRightSized) {
  Tracker t;
  const ResourceMap target{{"cpu", "50m"}, {"memory", "1200Mi"}};
  t.observe({.pods = {pod("grower-a", "u1", "grower", "small", kSmall, kSmall)},
             .policies = {policy("grower", target)}},
            0);
  t.observe(
      {.pods = {pending(pod("grower-a", "u1", "grower", "small", target, kSmall), "Infeasible")}},
      1);
  auto lines = t.observe({.pods = {pod("grower-b", "u2", "grower", "big", target, target)},
                          .events = {recreating("grower-a", "u1")}},
                         2);
  Summary s = t.summary();
  EXPECT_EQ(s.recreations.at("Infeasible"), 1);
  EXPECT_EQ(s.recreations.at("Deferred"), 0);
  EXPECT_EQ(s.right_sized_replacements, 1);
  EXPECT_EQ(s.first_recreation_at, 2);
  const PodOutcome* old_pod = t.pod("u1");
  ASSERT_NE(old_pod, nullptr);
  EXPECT_TRUE(old_pod->gone);
  EXPECT_EQ(old_pod->first_node, "small");
  const PodOutcome* replacement = t.pod("u2");
  ASSERT_NE(replacement, nullptr);
  EXPECT_TRUE(replacement->replacement);
  EXPECT_EQ(replacement->last_node, "big");
}

TEST(DemoTracker, ReplacementNotAtTheTargetIsNotRightSized) {
  Tracker t;
  t.observe({.pods = {pod("g-a", "u1", "grower", "small", kSmall, kSmall)},
             .policies = {policy("grower", kBig)},
             .events = {recreating("g-a", "u1")}},
            0);
  t.observe({.pods = {pod("g-b", "u2", "grower", "big", kSmall, kSmall)}}, 1);
  EXPECT_TRUE(t.pod("u2")->replacement);
  EXPECT_EQ(t.summary().right_sized_replacements, 0);
}

TEST(DemoTracker, DeferredResizeCompletesWhenTheSamePodReportsTheNewResources) {
  Tracker t;
  t.observe({.pods = {pod("cache", "u1", "cache", "small", kSmall, kSmall)}}, 0);
  t.observe({.pods = {pending(pod("cache", "u1", "cache", "small", kBig, kSmall), "Deferred")}}, 1);
  EXPECT_EQ(t.summary().deferred_completed, 0);
  auto lines = t.observe({.pods = {pod("cache", "u1", "cache", "small", kBig, kBig)}}, 5);
  Summary s = t.summary();
  EXPECT_EQ(s.deferred_completed, 1);
  EXPECT_EQ(s.in_place_resizes, 1);
  EXPECT_EQ(s.first_deferred_completed_at, 5);
  EXPECT_EQ(s.recreations.at("Deferred"), 0);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("Deferred resize of cache completed"), std::string::npos);
}

TEST(DemoTracker, EvictionAfterDeferredCountsAsDeferredRecreation) {
  Tracker t;
  t.observe({.pods = {pending(pod("c", "u1", "cache", "small", kBig, kSmall), "Deferred")}}, 0);
  t.observe({.events = {recreating("c", "u1")}}, 1);
  EXPECT_EQ(t.summary().recreations.at("Deferred"), 1);
  EXPECT_EQ(t.summary().deferred_completed, 0);
  EXPECT_TRUE(t.alive("cache").empty());
}

TEST(DemoTracker, RecommendationLinesOnlyWhenTheTargetChanges) {
  Tracker t;
  EXPECT_EQ(t.observe({.policies = {policy("web", kSmall)}}, 0).size(), 1u);
  EXPECT_TRUE(
      t.observe({.policies = {policy("web", {{"cpu", "0.1"}, {"memory", "64Mi"}})}}, 1).empty());
  auto lines = t.observe({.policies = {policy("web", kBig)}}, 2);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("web/app: target cpu 250m, memory 180Mi (was"), std::string::npos)
      << lines[0];
}

TEST(DemoDescribe, ChangesAndPlainLists) {
  EXPECT_EQ(describe_change(kSmall, kBig), "cpu 100m→250m, memory 64Mi→180Mi");
  EXPECT_EQ(describe_change(kSmall, {{"cpu", "0.1"}, {"memory", "65Mi"}}), "memory 64Mi→65Mi");
  EXPECT_EQ(describe_change(kSmall, kSmall, true), "cpu 100m, memory 64Mi");
  EXPECT_EQ(describe({}), "none");
}

}  // namespace
}  // namespace tailor::cli::demo
