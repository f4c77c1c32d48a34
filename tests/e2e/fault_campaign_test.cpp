// The fault campaign (tests/e2e/fault_campaign.h) in the suite: a short seeded run on the shared
// environment that fails on any invariant break, and the invariant checks themselves shown to
// catch each kind of break on planted snapshots (so a green campaign means something).
// The long campaign (200+ runs) is bench/fault_campaign.cpp.
#include "tests/e2e/fault_campaign.h"

#include <gtest/gtest.h>

#include <iostream>

namespace tailor::e2e {
namespace {

constexpr std::uint64_t kSeed = 16;  // issue 16
constexpr int kRuns = 6;

TEST(FaultCampaign, SeededRunsKeepEveryInvariant) {
  CampaignOptions options{
      .seed = kSeed, .runs = kRuns, .ns = "e2e-fault-campaign", .log = &std::cout};
  const CampaignResult r = run_fault_campaign(E2eCluster::get(), options);
  EXPECT_EQ(r.runs, kRuns);
  int faults = 0;
  for (const auto& [kind, n] : r.faults) faults += n;
  EXPECT_EQ(faults, kRuns);
  for (const std::string& b : r.breaks) ADD_FAILURE() << b;
}

// ---- the checks on planted snapshots ------------------------------------------------------

const CampaignPod kPod{.key = "p", .restart_on_memory = {"app"}};
const Want kWant{{{"cpu", "50m"}, {"memory", "64Mi"}}, {{"cpu", "50m"}, {"memory", "64Mi"}}};
constexpr const char* kNs = "ns";

// A settled pod at kWant, with its cgroup read as the kubelet's arithmetic says.
Snapshot settled() {
  ContainerView c{.name = "app",
                  .container_id = "c1",
                  .requests = kWant.requests,
                  .limits = kWant.limits,
                  .allocated = kWant.requests,
                  .actual_requests = kWant.requests,
                  .actual_limits = kWant.limits,
                  .restart_count = 0,
                  .running = true};
  PodView pod{.ns = kNs, .name = "p", .uid = "u1", .node = "n", .phase = "Running"};
  pod.containers = {c};
  pod.conditions = {{"Ready", "True", "", ""}};
  Snapshot s;
  s.pods = {pod};
  s.allocatable["n"] = {{"cpu", "1"}, {"memory", "1Gi"}};
  s.cgroups[cgroup_key(pod, "app")] =
      to_string(expected_container_cgroup(kWant.requests, kWant.limits));
  return s;
}

std::vector<std::string> breaks(
    const Snapshot& s, const std::map<std::string, std::vector<std::string>>& restarted = {}) {
  const std::map<std::string, PodBaseline> before{
      {"p", PodBaseline{.uid = "u1", .containers = {{"app", {"c1", 0}}}}}};
  return invariant_breaks(s, kNs, {kPod}, before, {{"p", {{"app", kWant}}}}, restarted);
}

TEST(FaultCampaignChecks, ASettledPodBreaksNothing) { EXPECT_EQ(breaks(settled()).size(), 0u); }

TEST(FaultCampaignChecks, AnUnaskedRestartIsABreak) {
  Snapshot s = settled();
  s.pods[0].containers[0].restart_count = 1;
  s.pods[0].containers[0].container_id = "c2";
  s.cgroups[cgroup_key(s.pods[0], "app")] = s.cgroups.begin()->second;
  ASSERT_EQ(breaks(s).size(), 1u);
  EXPECT_NE(breaks(s)[0].find("no restart asked"), std::string::npos) << breaks(s)[0];
  // Asked once: exactly that restart is fine; a second one is not.
  EXPECT_EQ(breaks(s, {{"p", {"app"}}}).size(), 0u);
  s.pods[0].containers[0].restart_count = 2;
  EXPECT_EQ(breaks(s, {{"p", {"app"}}}).size(), 1u);
}

// containerd killed during the restart's StartContainer: that attempt never ran, the next did.
TEST(FaultCampaignChecks, AnAttemptThatNeverRanIsNoSecondRestart) {
  Snapshot s = settled();
  ContainerView& c = s.pods[0].containers[0];
  c.restart_count = 2;
  c.container_id = "c3";
  c.last_terminated = true;
  c.last_started = false;
  EXPECT_EQ(breaks(s, {{"p", {"app"}}}).size(), 0u);
  EXPECT_EQ(breaks(s).size(), 1u);  // not asked: still a restart
  c.last_started = true;            // it ran: two restarts for one asked
  EXPECT_EQ(breaks(s, {{"p", {"app"}}}).size(), 1u);
  c.restart_count = 3;
  c.last_started = false;
  EXPECT_EQ(breaks(s, {{"p", {"app"}}}).size(), 1u);
}

TEST(FaultCampaignChecks, AnAskedRestartThatDidNotHappenIsABreak) {
  EXPECT_EQ(breaks(settled(), {{"p", {"app"}}}).size(), 1u);
}

TEST(FaultCampaignChecks, ALostOrReplacedPodIsABreak) {
  Snapshot s = settled();
  s.pods[0].uid = "u2";
  ASSERT_EQ(breaks(s).size(), 1u);
  EXPECT_NE(breaks(s)[0].find("replaced"), std::string::npos);
  s.pods[0].deleting = true;
  ASSERT_EQ(breaks(s).size(), 1u);
  EXPECT_NE(breaks(s)[0].find("lost"), std::string::npos);
}

TEST(FaultCampaignChecks, DesiredAllocatedActualAndCgroupMustAgree) {
  auto one_gap = [](const std::function<void(Snapshot&)>& plant, const std::string& says) {
    Snapshot s = settled();
    plant(s);
    const std::vector<std::string> b = breaks(s);
    ASSERT_EQ(b.size(), 1u) << says;
    EXPECT_NE(b[0].find(says), std::string::npos) << b[0];
  };
  one_gap([](Snapshot& s) { s.pods[0].containers[0].requests["cpu"] = "60m"; }, "spec.requests");
  one_gap([](Snapshot& s) { s.pods[0].containers[0].allocated["memory"] = "32Mi"; }, "allocated");
  one_gap([](Snapshot& s) { s.pods[0].containers[0].actual_limits["cpu"] = "0.1"; },
          "actual.limits");
  one_gap([](Snapshot& s) { s.cgroups.begin()->second = "{shares=2}"; }, "cgroup");
  one_gap(
      [](Snapshot& s) {
        s.pods[0].conditions.push_back({"PodResizeInProgress", "True", "", ""});
      },
      "PodResizeInProgress");
  // The same quantity spelled differently is no gap.
  Snapshot s = settled();
  s.pods[0].containers[0].actual_requests["cpu"] = "0.05";
  EXPECT_EQ(breaks(s).size(), 0u);
}

TEST(FaultCampaignChecks, AllocatedBeyondTheNodeIsABreak) {
  Snapshot s = settled();
  PodView other = s.pods[0];
  other.ns = "elsewhere";
  other.containers[0].allocated = {{"cpu", "960m"}, {"memory", "64Mi"}};
  s.pods.push_back(other);
  const std::vector<std::string> b = overcommitted_nodes(s);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0], "node n: allocated cpu 1010 > allocatable 1000");
  s.pods.back().phase = "Failed";  // a finished pod holds nothing
  EXPECT_EQ(overcommitted_nodes(s).size(), 0u);
}

}  // namespace
}  // namespace tailor::e2e
