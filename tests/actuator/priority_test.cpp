#include "actuator/priority.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "fixtures.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;
using std::chrono::hours;
using std::chrono::minutes;

kube::TimePoint start() { return kube::parse_rfc3339("2026-01-01T00:00:00Z"); }

struct PriorityCase {
  const char* name;
  kube::Pod pod;
  std::vector<policy::RecommendedContainerResources> recommendations;
  kube::TimePoint now;
  std::optional<kube::TimePoint> last_change;
  UpdateReason reason;
  bool scale_up;
};

kube::Pod oom_killed(const char* finished_at) {
  kube::Pod pod = running_pod({container("app", "cpu=1,memory=100Mi")});
  kube::ContainerStatus s;
  s.name = "app";
  s.restart_count = 1;
  s.last_state.terminated =
      kube::ContainerStateTerminated{137, 0, "OOMKilled", "", "", finished_at};
  pod.status.container_statuses.push_back(s);
  return pod;
}

TEST(UpdatePriority, WhichPodsAndWhen) {
  kube::Pod pod = running_pod({container("app", "cpu=1,memory=100Mi")});
  auto rec = [](const char* target) {
    return std::vector{recommendation("app", target, "cpu=500m,memory=80Mi", "cpu=2,memory=200Mi")};
  };
  std::vector<PriorityCase> cases{
      {"InsideBoundsSmallChange", pod, rec("cpu=1050m,memory=100Mi"), start() + hours(48),
       std::nullopt, UpdateReason::None, true},
      {"InsideBoundsBigChangeOldEnough", pod, rec("cpu=1500m,memory=100Mi"), start() + hours(2),
       std::nullopt, UpdateReason::RelativeChange, true},
      {"InsideBoundsBigChangeTooSoon", pod, rec("cpu=1500m,memory=100Mi"), start() + minutes(30),
       std::nullopt, UpdateReason::None, true},
      {"LastChangeCountsNotPodAge", pod, rec("cpu=1500m,memory=100Mi"), start() + hours(48),
       start() + hours(47) + minutes(30), UpdateReason::None, true},
      {"BelowLowerBoundAtOnce", running_pod({container("app", "cpu=100m,memory=100Mi")}),
       rec("cpu=1,memory=100Mi"), start() + minutes(1), std::nullopt, UpdateReason::OutsideBounds,
       true},
      {"AboveUpperBoundAtOnce", running_pod({container("app", "cpu=4,memory=100Mi")}),
       rec("cpu=1,memory=100Mi"), start() + minutes(1), std::nullopt, UpdateReason::OutsideBounds,
       false},
      {"SummedAcrossResources", pod, rec("cpu=1060m,memory=106Mi"), start() + hours(2),
       std::nullopt, UpdateReason::RelativeChange, true},
      {"OomKilledSinceLastChange", oom_killed("2026-01-01T00:05:00Z"), rec("cpu=1,memory=120Mi"),
       start() + minutes(6), std::nullopt, UpdateReason::OomKilled, true},
      {"OomBeforeLastChangeIgnored", oom_killed("2026-01-01T00:05:00Z"), rec("cpu=1,memory=120Mi"),
       start() + minutes(20), start() + minutes(10), UpdateReason::None, true},
      {"NoRequestIsOutsideBounds", running_pod({container("app", "cpu=1")}),
       rec("cpu=1,memory=100Mi"), start() + minutes(1), std::nullopt, UpdateReason::OutsideBounds,
       true},
  };
  policy::EffectivePolicy policy = default_policy();
  for (const auto& c : cases) {
    UpdatePriority p =
        update_priority(UpdateInputs{&c.pod, &policy, c.recommendations, {}, c.now, c.last_change});
    EXPECT_EQ(p.reason, c.reason) << c.name << ": " << to_string(p.reason);
    EXPECT_EQ(p.scale_up, c.scale_up) << c.name;
  }
}

TEST(HoldMemoryAfterOom, NoDecreaseForAContainerKilledWithinTheHold) {
  struct Case {
    const char* name;
    kube::Pod pod;
    const char* target;
    const char* upper;
    kube::TimePoint now;
    const char* want_target;
    const char* want_upper;
    bool changed;
  };
  const auto hold = std::chrono::seconds(hours(72));
  const kube::Pod killed = oom_killed("2026-01-01T00:05:00Z");  // memory request 100Mi
  const Case cases[] = {
      {"a lower target is held at the request", killed, "cpu=1,memory=80Mi", "cpu=2,memory=90Mi",
       start() + hours(1), "cpu=1,memory=100Mi", "cpu=2,memory=100Mi", true},
      {"a higher target goes through", killed, "cpu=1,memory=150Mi", "cpu=2,memory=300Mi",
       start() + hours(1), "cpu=1,memory=150Mi", "cpu=2,memory=300Mi", false},
      {"cpu is not held", killed, "cpu=100m,memory=120Mi", "cpu=200m,memory=300Mi",
       start() + hours(1), "cpu=100m,memory=120Mi", "cpu=200m,memory=300Mi", false},
      {"the last moment of the hold still holds", killed, "cpu=1,memory=80Mi", "cpu=2,memory=90Mi",
       start() + minutes(5) + hours(72), "cpu=1,memory=100Mi", "cpu=2,memory=100Mi", true},
      {"after the hold memory may go down", killed, "cpu=1,memory=80Mi", "cpu=2,memory=90Mi",
       start() + minutes(6) + hours(72), "cpu=1,memory=80Mi", "cpu=2,memory=90Mi", false},
      {"a container never OOM-killed is not held",
       running_pod({container("app", "cpu=1,memory=100Mi")}), "cpu=1,memory=80Mi",
       "cpu=2,memory=90Mi", start() + hours(1), "cpu=1,memory=80Mi", "cpu=2,memory=90Mi", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::vector recs{recommendation("app", c.target, "cpu=500m,memory=50Mi", c.upper)};
    EXPECT_EQ(hold_memory_after_oom(pod_facts(c.pod), recs, c.now, hold), c.changed);
    EXPECT_EQ(recs[0].target, rl(c.want_target));
    EXPECT_EQ(recs[0].upper_bound, rl(c.want_upper));
    EXPECT_EQ(recs[0].lower_bound, rl("cpu=500m,memory=50Mi"));
  }
}

TEST(UpdatePriority, HpaAndOffContainersDoNotCount) {
  kube::Pod pod = running_pod({container("app", "cpu=100m,memory=100Mi")});
  policy::EffectivePolicy policy = default_policy();
  auto recs = std::vector{recommendation("app", "cpu=1,memory=100Mi", "cpu=500m", "cpu=2")};
  UpdateInputs in{&pod, &policy, recs, {"cpu"}, start() + hours(2), std::nullopt};
  EXPECT_EQ(update_priority(in).reason, UpdateReason::None);
  in.hpa_resources = {"sidecar/cpu"};  // another container's HPA metric
  EXPECT_EQ(update_priority(in).reason, UpdateReason::OutsideBounds);
  in.hpa_resources = {"app/cpu"};
  EXPECT_EQ(update_priority(in).reason, UpdateReason::None);
  in.hpa_resources.clear();
  EXPECT_EQ(update_priority(in).reason, UpdateReason::OutsideBounds);
}

TEST(MoreUrgent, ScaleUpsThenOutOfBoundsThenBiggerChange) {
  std::vector<UpdatePriority> list{
      {UpdateReason::RelativeChange, false, false, 0.9},
      {UpdateReason::RelativeChange, true, false, 0.2},
      {UpdateReason::OutsideBounds, false, true, 0.5},
      {UpdateReason::OutsideBounds, true, true, 0.3},
      {UpdateReason::RelativeChange, true, false, 0.4},
  };
  std::stable_sort(list.begin(), list.end(), more_urgent);
  std::vector<double> order;
  for (const auto& p : list) order.push_back(p.relative_change);
  EXPECT_EQ(order, (std::vector<double>{0.3, 0.4, 0.2, 0.5, 0.9}));
}

}  // namespace
}  // namespace tailor::actuator
