#include "actuator/selection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace tailor::actuator {
namespace {

using testing::ElementsAre;
using testing::Pair;

UpdatePriority urgency(double change, bool up = false) {
  return UpdatePriority{UpdateReason::RelativeChange, up, false, change};
}

TEST(SelectUpdates, InPlaceOnlyNeedsTheGlobalBudget) {
  std::vector<Candidate> c{{0, "web", Way::InPlace, false, urgency(0.2)},
                           {1, "web", Way::InPlace, false, urgency(0.5)},
                           {2, "web", Way::InPlace, false, urgency(0.1, true)}};
  Selection s = select_updates(c, {{"web", {3, 3, 0}}}, {0.5, 2});
  EXPECT_THAT(s.selected, ElementsAre(2, 1));
  EXPECT_THAT(s.deferred, ElementsAre(Pair(0, "global rate limit")));
}

TEST(SelectUpdates, RecreationsWithinDisruptionLimitAndMinReplicas) {
  std::vector<Candidate> c{{0, "web", Way::Recreate, false, urgency(0.9)},
                           {1, "web", Way::Recreate, false, urgency(0.8)},
                           {2, "web", Way::Recreate, false, urgency(0.7)},
                           {3, "db", Way::Recreate, false, urgency(0.6), 2},
                           {4, "", Way::Recreate, false, urgency(0.5)},
                           {5, "web", Way::InPlace, true, urgency(0.4)},
                           {6, "web", Way::InPlace, false, urgency(0.3)}};
  // web: 4 replicas, tolerance 0.5 -> 2 at once; db: 1 of 2 ready, minReplicas 2 -> none
  // (as VPA's updater: fewer live replicas than minReplicas, no eviction).
  Selection s = select_updates(c, {{"web", {4, 4, 0}}, {"db", {2, 1, 0}}}, {0.5, 100});
  EXPECT_THAT(s.selected, ElementsAre(0, 1, 6));
  EXPECT_THAT(s.deferred,
              ElementsAre(Pair(2, "workload disruption limit reached"),
                          Pair(3, "workload has 1 live replicas, fewer than minReplicas 2"),
                          Pair(4, "no controller would recreate this pod"),
                          Pair(5, "workload disruption limit reached")));
}

TEST(SelectUpdates, OngoingDisruptionsCountAndOneIsAlwaysAllowed) {
  std::vector<Candidate> c{{0, "web", Way::Recreate, false, urgency(0.9)}};
  EXPECT_THAT(select_updates(c, {{"web", {1, 1, 0}}}, {0.5, 1}).selected, ElementsAre(0));
  Candidate two_needed = c[0];
  two_needed.min_replicas = 2;
  EXPECT_THAT(select_updates({two_needed}, {{"web", {2, 2, 0}}}, {0.5, 1}).selected,
              ElementsAre(0));
  EXPECT_TRUE(select_updates(c, {{"web", {4, 4, 2}}}, {0.5, 1}).selected.empty());
  EXPECT_TRUE(select_updates(c, {}, {0.5, 1}).selected.empty());  // unknown workload
}

TEST(TokenBucket, RefillsUpToBurst) {
  kube::TimePoint t0 = kube::parse_rfc3339("2026-01-01T00:00:00Z");
  TokenBucket b{2, 5, 0, t0};
  EXPECT_EQ(b.available(), 0u);
  b.refill(t0 + std::chrono::milliseconds(1500));
  EXPECT_EQ(b.available(), 3u);
  b.take(3);
  b.refill(t0 + std::chrono::seconds(100));
  EXPECT_EQ(b.available(), 5u);
  b.refill(t0);  // the clock going back adds nothing
  EXPECT_EQ(b.available(), 5u);
}

}  // namespace
}  // namespace tailor::actuator
