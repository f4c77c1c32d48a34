#include "actuator/outcome.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;
using policy::UpdateMode;
using std::chrono::minutes;
using std::chrono::seconds;

constexpr const char* kDeferredMessage =
    "Node didn't have enough resource: cpu, requested: 6000, used: 3950, capacity: 8000";
constexpr const char* kInfeasibleMessage =
    "Node didn't have enough capacity: memory, requested: 10737418240, capacity: 8589934592";
constexpr const char* kBelowUsage = "memory limit (104857600) below current usage (209715200)";

kube::TimePoint at(int minute) {
  return kube::parse_rfc3339("2026-01-01T00:00:00Z") + minutes(minute);
}

kube::Pod pod_with(std::vector<kube::PodCondition> conditions, std::string legacy = "") {
  kube::Pod pod = running_pod({container("app", "cpu=1")});
  pod.metadata.generation = 2;
  pod.status.conditions = std::move(conditions);
  pod.status.resize = std::move(legacy);
  return pod;
}

kube::PodCondition pending(const char* reason, const char* message, std::int64_t generation = 2) {
  return {std::string(kube::kPodResizePending), "True", reason, message, "", "", generation};
}

kube::PodCondition in_progress(const char* reason = "", const char* message = "",
                               std::int64_t generation = 2) {
  return {std::string(kube::kPodResizeInProgress), "True", reason, message, "", "", generation};
}

kube::Pod settled_pod() {
  kube::Pod pod = running_pod({container("app", "cpu=1", "cpu=2")});
  kube::ContainerStatus status;
  status.name = "app";
  status.resources = kube::ResourceRequirements{rl("cpu=2"), rl("cpu=1")};
  pod.status.container_statuses.push_back(status);
  return pod;
}

struct ObserveCase {
  const char* name;
  kube::Pod pod;
  ResizeStatus status;
  std::string message;
};

TEST(ObserveResize, ConditionsLegacyAndGenerations) {
  kube::Pod behind = settled_pod();
  behind.spec.containers[0].resources.requests = rl("cpu=1500m");
  kube::Pod unobserved = pod_with({});
  unobserved.status.observed_generation = 1;
  std::vector<ObserveCase> cases{
      {"Deferred", pod_with({pending("Deferred", kDeferredMessage)}), ResizeStatus::Deferred,
       kDeferredMessage},
      {"Infeasible", pod_with({pending("Infeasible", kInfeasibleMessage)}),
       ResizeStatus::Infeasible, kInfeasibleMessage},
      {"PendingWinsOverInProgress", pod_with({in_progress(), pending("Deferred", "x")}),
       ResizeStatus::Deferred, "x"},
      {"InProgress", pod_with({in_progress()}), ResizeStatus::InProgress, ""},
      {"Error", pod_with({in_progress("Error", kBelowUsage)}), ResizeStatus::Error, kBelowUsage},
      {"PendingAboutAnOlderGeneration", pod_with({pending("Infeasible", "old", 1)}),
       ResizeStatus::Proposed, ""},
      {"LegacyProposed", pod_with({}, "Proposed"), ResizeStatus::Proposed, ""},
      {"LegacyInProgress", pod_with({}, "InProgress"), ResizeStatus::InProgress, ""},
      {"LegacyDeferred", pod_with({}, "Deferred"), ResizeStatus::Deferred, ""},
      {"LegacyInfeasible", pod_with({}, "Infeasible"), ResizeStatus::Infeasible, ""},
      {"LegacyUnknownMeansDeferred", pod_with({}, "SomethingNew"), ResizeStatus::Deferred, ""},
      {"StatusBehindGeneration", unobserved, ResizeStatus::Proposed, ""},
      {"ActualMatchesDesired", settled_pod(), ResizeStatus::Done, ""},
      {"ActualBehindDesired", behind, ResizeStatus::None, ""},
  };
  for (const auto& c : cases) {
    ObservedResize seen = observe_resize(c.pod);
    EXPECT_EQ(seen.status, c.status) << c.name << ": " << to_string(seen.status);
    EXPECT_EQ(seen.message, c.message) << c.name;
  }
}

TEST(MemoryBelowUsage, RecognisesTheKubeletsMessage) {
  EXPECT_TRUE(is_memory_below_usage(kBelowUsage));
  EXPECT_TRUE(is_memory_below_usage(std::string("container app: ") + kBelowUsage));
  EXPECT_FALSE(is_memory_below_usage("failed to update container: context deadline exceeded"));
}

// One step of a scripted sequence: the pod as observed at `minute`, and what must be decided.
struct Step {
  int minute;
  kube::Pod pod;
  Action action;
  std::string reason;
  std::optional<int> wake_minute{};
};

void run(const char* name, UpdateMode mode, const std::vector<Step>& steps) {
  ResizeState state;
  state.pod_uid = "uid-web-1";
  state.generation = 2;
  state.since = at(0);
  state.requested = at(0);
  Timeouts timeouts{minutes(5), minutes(60)};
  for (const Step& s : steps) {
    Decision d = track(state, s.pod, mode, timeouts, at(s.minute));
    EXPECT_EQ(d.action, s.action) << name << " at minute " << s.minute << ": " << d.reason;
    EXPECT_EQ(d.reason, s.reason) << name << " at minute " << s.minute;
    std::optional<kube::TimePoint> wake;
    if (s.wake_minute) wake = at(*s.wake_minute);
    EXPECT_EQ(d.wake_at, wake) << name << " at minute " << s.minute;
  }
}

TEST(TrackResize, DeferredWaitsThenRecreates) {
  kube::Pod deferred = pod_with({pending("Deferred", kDeferredMessage)});
  std::string waiting = std::string("resize Deferred: ") + kDeferredMessage;
  run("deferred", UpdateMode::InPlaceOrRecreate,
      {{1, deferred, Action::Wait, waiting, 6},
       {4, deferred, Action::Wait, waiting, 6},
       {6, deferred, Action::Recreate,
        std::string("resize Deferred for 5m0s: ") + kDeferredMessage}});
}

TEST(TrackResize, TimerRestartsWhenTheOutcomeChanges) {
  kube::Pod deferred = pod_with({pending("Deferred", kDeferredMessage)});
  std::string waiting = std::string("resize Deferred: ") + kDeferredMessage;
  run("restart", UpdateMode::InPlaceOrRecreate,
      {{1, deferred, Action::Wait, waiting, 6},
       {3, pod_with({in_progress()}), Action::Wait, "resize in progress", 63},
       {4, deferred, Action::Wait, waiting, 9},
       {9, deferred, Action::Recreate,
        std::string("resize Deferred for 5m0s: ") + kDeferredMessage},
       {10, settled_pod(), Action::Done, "resize completed"}});
}

TEST(TrackResize, InfeasibleRecreatesAtOnceUnlessInPlace) {
  kube::Pod infeasible = pod_with({pending("Infeasible", kInfeasibleMessage)});
  run("infeasible", UpdateMode::InPlaceOrRecreate,
      {{0, infeasible, Action::Recreate, std::string("resize Infeasible: ") + kInfeasibleMessage}});
  run("infeasible in place", UpdateMode::InPlace,
      {{0, infeasible, Action::RetryLater,
        std::string("resize Infeasible; InPlace mode retries when the recommendation drops: ") +
            kInfeasibleMessage}});
}

TEST(TrackResize, InPlaceModeNeverRecreates) {
  kube::Pod deferred = pod_with({pending("Deferred", kDeferredMessage)});
  run("in place", UpdateMode::InPlace,
      {{1, deferred, Action::Wait,
        std::string("resize Deferred; InPlace mode waits: ") + kDeferredMessage},
       {600, deferred, Action::Wait,
        std::string("resize Deferred; InPlace mode waits: ") + kDeferredMessage},
       {601, pod_with({in_progress("Error", "runtime failed")}), Action::RetryLater,
        "resize failed: runtime failed; InPlace mode never recreates"}});
}

TEST(TrackResize, InProgressTimesOut) {
  kube::Pod busy = pod_with({in_progress()});
  run("in progress", UpdateMode::InPlaceOrRecreate,
      {{0, busy, Action::Wait, "resize in progress", 60},
       {59, busy, Action::Wait, "resize in progress", 60},
       {60, busy, Action::Recreate, "resize in progress for 1h0m0s"}});
}

TEST(TrackResize, ErrorsByKind) {
  run("below usage", UpdateMode::InPlaceOrRecreate,
      {{0, pod_with({in_progress("Error", kBelowUsage)}), Action::Wait,
        std::string("resize waits for memory usage to drop: ") + kBelowUsage},
       {500, pod_with({in_progress("Error", kBelowUsage)}), Action::Wait,
        std::string("resize waits for memory usage to drop: ") + kBelowUsage}});
  run("other error", UpdateMode::InPlaceOrRecreate,
      {{0, pod_with({in_progress("Error", "failed to set cpu.max")}), Action::Recreate,
        "resize failed: failed to set cpu.max"}});
}

TEST(TrackResize, NotActedOnTimesOutLikeInProgress) {
  kube::Pod proposed = pod_with({}, "Proposed");
  run("proposed", UpdateMode::InPlaceOrRecreate,
      {{0, proposed, Action::Wait, "resize not yet acted on", 60},
       {61, proposed, Action::Recreate, "resize not yet acted on for 1h0m0s"}});
}

TEST(ResendInfeasible, WhenTheRecommendationDrops) {
  ResizeState s;
  s.status = ResizeStatus::Infeasible;
  s.requested_totals = rl("cpu=4,memory=8Gi");
  EXPECT_FALSE(should_resend_infeasible(s, rl("cpu=4,memory=8Gi")));
  EXPECT_FALSE(should_resend_infeasible(s, rl("cpu=5,memory=8Gi")));
  EXPECT_TRUE(should_resend_infeasible(s, rl("cpu=4,memory=7Gi")));
  s.status = ResizeStatus::Deferred;
  EXPECT_FALSE(should_resend_infeasible(s, rl("cpu=1")));
}

TEST(ResizeStates, SurviveARestart) {
  ResizeState a;
  a.pod_uid = "uid-1";
  a.generation = 3;
  a.status = ResizeStatus::Deferred;
  a.message = kDeferredMessage;
  a.since = at(7) + std::chrono::microseconds(250);
  a.requested = at(6);
  a.requested_totals = rl("cpu=1500m,memory=1Gi");
  ResizeState b;
  b.pod_uid = "uid-2";
  b.since = at(1);
  b.requested = at(1);
  std::vector<ResizeState> states{a, b};
  std::string json = serialize_states(states);
  EXPECT_EQ(parse_states(json), states);
  // A restarted controller keeps the Deferred timer from minute 7, not from its restart.
  std::vector<ResizeState> restored = parse_states(json);
  Decision d = track(restored[0], pod_with({pending("Deferred", kDeferredMessage)}),
                     UpdateMode::InPlaceOrRecreate, Timeouts{minutes(5), minutes(60)}, at(13));
  EXPECT_EQ(d.action, Action::Recreate);
}

TEST(ResizeStates, BadCheckpointsSayWhatIsWrong) {
  auto error = [](std::string_view json) {
    try {
      parse_states(json);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(error("{"), testing::StartsWith("resize states: malformed JSON"));
  EXPECT_EQ(error("{}"), "resize states: expected a JSON array");
  EXPECT_EQ(
      error(R"([{"podUID":"u","generation":1,"status":"Sideways","since":"x","requested":"x"}])"),
      "resize states[0]: unknown status \"Sideways\"");
  EXPECT_EQ(
      error(
          R"([{"podUID":"u","generation":1,"status":"Done","since":"yesterday","requested":"x"}])"),
      "resize states[0]: since is not an RFC 3339 time: \"yesterday\"");
  EXPECT_EQ(error(R"([{"generation":1}])"), "resize states[0]: podUID is missing");
  EXPECT_THAT(error(R"([{"podUID":"u","generation":1,"status":"Done","since":"2026-01-01T00:00:00Z",
                        "requested":"2026-01-01T00:00:00Z","requestedTotals":{"cpu":"lots"}}])"),
              testing::StartsWith("resize states[0]: requestedTotals.cpu: invalid quantity"));
}

}  // namespace
}  // namespace tailor::actuator

namespace tailor::actuator {
namespace {

TEST(TrackResize, ANewerGenerationSupersedesTheTrackedResize) {
  ResizeState state;
  state.generation = 2;
  kube::Pod pod = pod_with({pending("Deferred", kDeferredMessage, 3)});
  pod.metadata.generation = 3;
  Decision d = track(state, pod, UpdateMode::InPlaceOrRecreate, Timeouts{}, at(1));
  EXPECT_EQ(d.action, Action::Done);
  EXPECT_EQ(d.reason, "superseded: the pod changed since this resize (generation 2 -> 3)");
}

}  // namespace
}  // namespace tailor::actuator
