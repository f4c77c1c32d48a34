#include "node-agent/allocation/resize_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace tailor::node::allocation {
namespace {

using std::chrono::seconds;

const kube::TimePoint kNow = kube::parse_rfc3339("2026-01-01T12:00:00Z");

struct Named {
  std::string name;
  PendingResize pending;
};

PendingResize entry(bool increases, std::int32_t priority, kube::QosClass qos, int waited_seconds) {
  return {increases, priority, qos, kNow - seconds(waited_seconds)};
}

TEST(ResizeQueue, OrderTable) {
  // Listed in the expected order; each neighbour pair differs in the key that decides it.
  const std::vector<Named> expected = {
      {"decrease, low priority", entry(false, 0, kube::QosClass::Burstable, 1)},
      {"increase, high priority", entry(true, 1000, kube::QosClass::Burstable, 1)},
      {"increase, guaranteed, newest", entry(true, 0, kube::QosClass::Guaranteed, 1)},
      {"increase, burstable, oldest", entry(true, 0, kube::QosClass::Burstable, 600)},
      {"increase, burstable, older", entry(true, 0, kube::QosClass::Burstable, 60)},
      {"increase, burstable, newest", entry(true, 0, kube::QosClass::Burstable, 1)},
      {"increase, negative priority", entry(true, -5, kube::QosClass::Guaranteed, 900)},
  };
  std::vector<Named> queue(expected.rbegin(), expected.rend());
  std::stable_sort(queue.begin(), queue.end(), [](const Named& a, const Named& b) {
    return retry_before(a.pending, b.pending);
  });
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(queue[i].name, expected[i].name) << "position " << i;
  }
}

TEST(ResizeQueue, IsAStrictOrder) {
  const PendingResize a = entry(true, 0, kube::QosClass::Burstable, 5);
  EXPECT_FALSE(retry_before(a, a));
  const PendingResize b = entry(false, 0, kube::QosClass::Burstable, 5);
  EXPECT_TRUE(retry_before(b, a));
  EXPECT_FALSE(retry_before(a, b));
}

kube::Container app(const std::string& cpu, const std::string& memory) {
  kube::Container c;
  c.name = "app";
  c.resources.requests.insert_or_assign(kube::kResourceCpu, kube::Quantity::parse(cpu));
  c.resources.requests.insert_or_assign(kube::kResourceMemory, kube::Quantity::parse(memory));
  return c;
}

kube::Pod pending_pod(const std::string& cpu, const std::string& memory, const std::string& since) {
  kube::Pod pod;
  pod.spec.containers = {app(cpu, memory)};
  pod.spec.priority = 7;
  kube::PodCondition condition;
  condition.type = std::string(kube::kPodResizePending);
  condition.status = "True";
  condition.reason = "Deferred";
  condition.last_transition_time = since;
  pod.status.conditions.push_back(condition);
  return pod;
}

TEST(ResizeQueue, ReadsThePod) {
  const kube::ResourceList allocated{{"cpu", kube::Quantity::parse("1")},
                                     {"memory", kube::Quantity::parse("1Gi")}};
  const PendingResize up =
      pending_resize(pending_pod("2", "512Mi", "2026-01-01T11:00:00Z"), allocated, kNow);
  EXPECT_TRUE(up.increases_requests);  // cpu grows even though memory shrinks
  EXPECT_EQ(up.priority, 7);
  EXPECT_EQ(up.qos, kube::QosClass::Burstable);
  EXPECT_EQ(up.pending_since, kube::parse_rfc3339("2026-01-01T11:00:00Z"));

  const PendingResize down =
      pending_resize(pending_pod("500m", "1Gi", "2026-01-01T11:00:00Z"), allocated, kNow);
  EXPECT_FALSE(down.increases_requests);

  kube::Pod fresh = pending_pod("1", "2Gi", "");
  fresh.status.conditions.clear();
  fresh.spec.priority.reset();
  const PendingResize first = pending_resize(fresh, allocated, kNow);
  EXPECT_TRUE(first.increases_requests);
  EXPECT_EQ(first.priority, 0);
  EXPECT_EQ(first.pending_since, kNow);
}

TEST(ResizeQueue, MalformedTransitionTimeIsAnError) {
  EXPECT_THROW(pending_resize(pending_pod("1", "1Gi", "yesterday"), {}, kNow), kube::TimeError);
}

}  // namespace
}  // namespace tailor::node::allocation
