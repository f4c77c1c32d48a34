// The start-up boost's decisions: what a container runs with during its boost (QoS kept), what
// the pod remembers, when it is taken back, and the resize that takes it back.
#include "actuator/startup_boost.h"

#include <gtest/gtest.h>

#include "actuator/eligibility.h"
#include "actuator/pod_facts.h"
#include "fixtures.h"
#include "kube/model/qos.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;
using policy::ControlledValues;
using policy::CpuBoost;

CpuBoost factor(int f, int seconds = 0) {
  return {.kind = CpuBoost::Kind::Factor, .factor = f, .duration = std::chrono::seconds(seconds)};
}
CpuBoost quantity(const char* cpu) {
  return {.kind = CpuBoost::Kind::Quantity, .quantity = q(cpu)};
}

struct BoostCase {
  const char* name;
  const char* requests;
  const char* limits;
  CpuBoost boost;
  ControlledValues values;
  const char* want_requests;  // nullptr: not boosted
  const char* want_limits;
};

class BoostedCpu : public testing::TestWithParam<BoostCase> {};

TEST_P(BoostedCpu, RaisesRequestAndLimitKeepingTheirRatio) {
  const BoostCase& c = GetParam();
  kube::ResourceRequirements base{.limits = rl(c.limits), .requests = rl(c.requests)};
  auto got = boosted_cpu(base, c.boost, c.values);
  if (!c.want_requests) {
    EXPECT_FALSE(got) << c.name;
    return;
  }
  ASSERT_TRUE(got) << c.name;
  EXPECT_EQ(got->requests, rl(c.want_requests)) << c.name;
  EXPECT_EQ(got->limits, rl(c.want_limits)) << c.name;
}

constexpr auto kBoth = ControlledValues::RequestsAndLimits;
constexpr auto kOnly = ControlledValues::RequestsOnly;

INSTANTIATE_TEST_SUITE_P(
    Cases, BoostedCpu,
    testing::Values(BoostCase{"guaranteed stays request == limit", "cpu=250m,memory=64Mi",
                              "cpu=250m,memory=64Mi", factor(4), kBoth, "cpu=1,memory=64Mi",
                              "cpu=1,memory=64Mi"},
                    BoostCase{"burstable keeps its ratio", "cpu=100m", "cpu=300m", factor(2), kBoth,
                              "cpu=200m", "cpu=600m"},
                    BoostCase{"no limit stays unlimited", "cpu=100m,memory=1Gi", "memory=1Gi",
                              factor(3), kBoth, "cpu=300m,memory=1Gi", "memory=1Gi"},
                    BoostCase{"quantity is the boosted request", "cpu=500m", "cpu=1", quantity("2"),
                              kBoth, "cpu=2", "cpu=4"},
                    BoostCase{"a quantity below the request never lowers it", "cpu=3", "",
                              quantity("2"), kBoth, nullptr, nullptr},
                    BoostCase{"limit-only reads the limit as the request", "", "cpu=200m",
                              factor(2), kBoth, "cpu=400m", "cpu=400m"},
                    BoostCase{"no cpu at all is left alone", "memory=1Gi", "", factor(2), kBoth,
                              nullptr, nullptr},
                    BoostCase{"requests only: kept just below the limit", "cpu=100m", "cpu=300m",
                              factor(5), kOnly, "cpu=299m", "cpu=300m"},
                    BoostCase{"requests only at the limit cannot rise", "cpu=300m", "cpu=300m",
                              factor(5), kOnly, nullptr, nullptr},
                    BoostCase{"requests only without a limit", "cpu=100m", "", factor(5), kOnly,
                              "cpu=500m", ""}));

policy::EffectivePolicy boosting(CpuBoost boost) {
  policy::EffectivePolicy p = default_policy();
  p.cpu_boost = boost;
  return p;
}

const kube::TimePoint kNow = *kube::try_parse_rfc3339("2026-01-01T00:00:00Z");

TEST(PlanStartupBoost, BoostsEveryContainerAndRemembersWhatItHad) {
  kube::Pod pod = running_pod({container("app", "cpu=200m,memory=1Gi", "cpu=200m,memory=1Gi"),
                               container("side", "cpu=50m,memory=64Mi", "cpu=50m,memory=64Mi")});
  BoostPlan plan = plan_startup_boost(pod, boosting(factor(3, 10)), rl("cpu=4"), kNow);
  ASSERT_EQ(plan.boosted.size(), 2u);
  EXPECT_EQ(plan.boosted[0].second.requests, rl("cpu=600m,memory=1Gi"));
  EXPECT_EQ(plan.boosted[0].second.limits, rl("cpu=600m,memory=1Gi"));
  EXPECT_EQ(plan.record.skipped, "");
  ASSERT_EQ(plan.record.containers.size(), 2u);
  EXPECT_EQ(plan.record.containers[1], (BoostedContainer{.name = "side",
                                                         .requests = rl("cpu=50m"),
                                                         .limits = rl("cpu=50m"),
                                                         .duration = std::chrono::seconds(10)}));
  kube::Pod boosted = pod;
  for (std::size_t i = 0; i < 2; ++i) boosted.spec.containers[i].resources = plan.boosted[i].second;
  EXPECT_EQ(kube::compute_pod_qos(boosted.spec), kube::QosClass::Guaranteed);
}

TEST(PlanStartupBoost, NoNodeCanHoldItSoThePodStartsUnboosted) {
  kube::Pod pod = running_pod({container("app", "cpu=1", "cpu=1")});
  BoostPlan plan = plan_startup_boost(pod, boosting(factor(8)), rl("cpu=4,memory=8Gi"), kNow);
  EXPECT_TRUE(plan.boosted.empty());
  EXPECT_TRUE(plan.record.containers.empty());
  EXPECT_EQ(plan.record.skipped,
            "Node didn't have enough capacity: cpu, requested: 8000, capacity: 4000; the pod "
            "starts without its boost");
}

TEST(PlanStartupBoost, NotBoostedWhereItCouldNotBeTakenBackInPlace) {
  kube::Pod pod = running_pod({container("app", "cpu=1", "cpu=1")});
  pod.spec.resources = kube::ResourceRequirements{.limits = rl("cpu=2")};
  BoostPlan plan = plan_startup_boost(pod, boosting(factor(2)), {}, kNow);
  EXPECT_TRUE(plan.boosted.empty());
  EXPECT_EQ(plan.record.skipped,
            "pod-level resources: containers are not resized in place, so the boost could not be "
            "taken back");
  EXPECT_EQ(plan_startup_boost(pod, default_policy(), {}, kNow).record.skipped, "");
}

TEST(PlanStartupBoost, UnknownAllocatableDoesNotStopIt) {
  kube::Pod pod = running_pod({container("app", "cpu=1", "cpu=1")});
  EXPECT_EQ(plan_startup_boost(pod, boosting(factor(8)), {}, kNow).boosted.size(), 1u);
}

TEST(PlanStartupBoost, NothingAskedNothingRecorded) {
  kube::Pod pod = running_pod({container("app", "cpu=1", "cpu=1")});
  BoostPlan plan = plan_startup_boost(pod, default_policy(), rl("cpu=4"), kNow);
  EXPECT_TRUE(plan.boosted.empty());
  EXPECT_TRUE(plan.record.containers.empty());
  EXPECT_EQ(plan.record.skipped, "");
}

TEST(BoostRecord, RoundTripsThroughTheAnnotation) {
  BoostRecord r{.boosted_at = kNow,
                .containers = {{.name = "app",
                                .requests = rl("cpu=250m"),
                                .limits = rl("cpu=500m"),
                                .duration = std::chrono::seconds(10)},
                               {.name = "side", .requests = rl("cpu=50m")}},
                .reverted_at = kNow + std::chrono::seconds(30)};
  std::string text = format_boost_record(r);
  EXPECT_EQ(
      text,
      R"({"boostedAt":"2026-01-01T00:00:00Z","containers":[{"name":"app","durationSeconds":10,)"
      R"("requests":{"cpu":"250m"},"limits":{"cpu":"500m"}},{"name":"side","durationSeconds":0,)"
      R"("requests":{"cpu":"50m"}}],"revertedAt":"2026-01-01T00:00:30Z"})");
  EXPECT_EQ(parse_boost_record(text), r);
}

TEST(BoostRecord, WhatIsNotARecordIsIgnored) {
  for (
      const char* text :
      {"", "yes", "[]", R"({"containers":[]})",
       R"({"boostedAt":"2026-01-01T00:00:00Z","containers":{}})",
       R"({"boostedAt":"2026-01-01T00:00:00Z","containers":[{"name":"a","durationSeconds":1}]})"}) {
    EXPECT_FALSE(parse_boost_record(text)) << text;
  }
}

struct RevertCase {
  const char* name;
  bool ready;
  std::optional<int> ready_seconds_ago;
  bool reverted;
  bool skipped;
  bool due;
};

class RevertWhen : public testing::TestWithParam<RevertCase> {};

TEST_P(RevertWhen, ReadyAndTheDurationPassed) {
  const RevertCase& c = GetParam();
  BoostRecord r{
      .boosted_at = kNow - std::chrono::minutes(5),
      .containers = {{.name = "app", .requests = rl("cpu=1"), .duration = std::chrono::seconds(10)},
                     {.name = "b", .requests = rl("cpu=1"), .duration = std::chrono::seconds(4)}}};
  if (c.reverted) r.reverted_at = kNow - std::chrono::seconds(1);
  if (c.skipped) {
    r.containers.clear();
    r.skipped = "no room";
  }
  std::optional<kube::TimePoint> since;
  if (c.ready_seconds_ago) since = kNow - std::chrono::seconds(*c.ready_seconds_ago);
  EXPECT_EQ(revert_due(r, c.ready, since, kNow), c.due) << c.name;
  EXPECT_EQ(boost_active(r), !c.reverted && !c.skipped) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, RevertWhen,
    testing::Values(RevertCase{"not ready", false, std::nullopt, false, false, false},
                    RevertCase{"ready, the longest duration not passed", true, 9, false, false,
                               false},
                    RevertCase{"ready for the longest duration", true, 10, false, false, true},
                    RevertCase{"ready long ago", true, 600, false, false, true},
                    RevertCase{"ready without a time", true, std::nullopt, false, false, false},
                    RevertCase{"already reverted", true, 600, true, false, false},
                    RevertCase{"skipped at creation", true, 600, false, true, false}));

TEST(RevertPatch, SetsEachBoostedContainerBack) {
  BoostRecord r{
      .boosted_at = kNow,
      .containers = {{.name = "app", .requests = rl("cpu=250m"), .limits = rl("cpu=500m")},
                     {.name = "side", .requests = rl("cpu=50m")}}};
  EXPECT_EQ(
      revert_patch(r.containers),
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"250m"},)"
      R"("limits":{"cpu":"500m"}}},{"name":"side","resources":{"requests":{"cpu":"50m"}}}]}})");
}

// What a pass and the usage stream read of a pod: the annotation once, and when it became Ready.
TEST(PodFactsOfABoost, ActiveUntilRevertedAndTheUpdateRuleWaits) {
  kube::Pod pod = running_pod({container("app", "cpu=1", "cpu=1")});
  pod.status.conditions.push_back(
      {.type = "Ready", .status = "True", .last_transition_time = "2026-01-01T00:00:05Z"});
  BoostRecord r{.boosted_at = kNow, .containers = {{.name = "app", .requests = rl("cpu=250m")}}};
  pod.metadata.annotations[std::string(kStartupBoostAnnotation)] = format_boost_record(r);
  PodFacts facts = pod_facts(pod);
  EXPECT_TRUE(facts.startup_boosted());
  EXPECT_EQ(facts.ready_since, kNow + std::chrono::seconds(5));
  const Eligibility waiting = eligibility(facts, policy::UpdateMode::InPlaceOrRecreate);
  EXPECT_FALSE(waiting.in_place);
  EXPECT_FALSE(waiting.recreate);
  r.reverted_at = kNow + std::chrono::seconds(20);
  pod.metadata.annotations[std::string(kStartupBoostAnnotation)] = format_boost_record(r);
  EXPECT_FALSE(pod_facts(pod).startup_boosted());
  EXPECT_TRUE(eligibility(pod_facts(pod), policy::UpdateMode::InPlaceOrRecreate).in_place);
  pod.metadata.annotations[std::string(kStartupBoostAnnotation)] = "{not json";
  EXPECT_FALSE(pod_facts(pod).startup_boosted());  // a broken annotation holds nothing back
}

struct BackCase {
  const char* name;
  const char* requests;
  const char* limits;
  const char* recommended;
  ControlledValues values;
  const char* want_requests;
  const char* want_limits;
};

class BackToTheRecommendation : public testing::TestWithParam<BackCase> {};

TEST_P(BackToTheRecommendation, KeepsThePreBoostLimitRatio) {
  const BackCase& c = GetParam();
  BoostedContainer before{.name = "app", .requests = rl(c.requests), .limits = rl(c.limits)};
  BoostedContainer got = at_recommendation(before, q(c.recommended), c.values);
  EXPECT_EQ(got.requests, rl(c.want_requests)) << c.name;
  EXPECT_EQ(got.limits, rl(c.want_limits)) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, BackToTheRecommendation,
    testing::Values(BackCase{"guaranteed", "cpu=250m", "cpu=250m", "400m", kBoth, "cpu=400m",
                             "cpu=400m"},
                    BackCase{"burstable ratio 3", "cpu=100m", "cpu=300m", "150m", kBoth, "cpu=150m",
                             "cpu=450m"},
                    BackCase{"no limit", "cpu=100m", "", "70m", kBoth, "cpu=70m", ""},
                    BackCase{"requests only: the limit stays and caps", "cpu=100m", "cpu=300m",
                             "500m", kOnly, "cpu=300m", "cpu=300m"},
                    BackCase{"a zero recommendation keeps the pre-boost values", "cpu=100m",
                             "cpu=300m", "0", kBoth, "cpu=100m", "cpu=300m"}));

}  // namespace
}  // namespace tailor::actuator
