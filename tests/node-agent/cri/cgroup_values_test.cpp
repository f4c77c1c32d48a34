#include "node-agent/cri/cgroup_values.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;

TEST(MilliCpuToShares, MatchesKubeletTable) {
  struct Case {
    std::int64_t milli;
    std::int64_t shares;
  };
  const std::vector<Case> cases = {
      {0, 2},
      {1, 2},
      {2, 2},
      {3, 3},
      {100, 102},
      {250, 256},
      {500, 512},
      {1000, 1024},
      {2000, 2048},
      {256000, 262144},
      {262144, 262144},
      {300000, 262144},
      {std::numeric_limits<std::int64_t>::max(), 262144},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(milli_cpu_to_shares(c.milli), c.shares) << c.milli << "m";
  }
}

TEST(MilliCpuToQuota, MatchesKubeletTable) {
  struct Case {
    std::int64_t milli;
    std::int64_t period;
    std::int64_t quota;
  };
  const std::vector<Case> cases = {
      {0, 100000, -1},      {5, 100000, 1000},    {10, 100000, 1000},     {11, 100000, 1100},
      {100, 100000, 10000}, {250, 100000, 25000}, {1000, 100000, 100000}, {1500, 100000, 150000},
      {100, 50000, 5000},   {10, 50000, 1000},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(milli_cpu_to_quota(c.milli, c.period), c.quota) << c.milli << "m/" << c.period;
  }
}

TEST(MilliCpuConversions, RejectBadInputWithClearMessages) {
  EXPECT_THROW(
      {
        try {
          milli_cpu_to_shares(-1);
        } catch (const std::invalid_argument& e) {
          EXPECT_STREQ(e.what(), "cpu request (milli-CPU) must not be negative, got -1");
          throw;
        }
      },
      std::invalid_argument);
  EXPECT_THROW(milli_cpu_to_quota(-5), std::invalid_argument);
  EXPECT_THROW(milli_cpu_to_quota(100, 0), std::invalid_argument);
  EXPECT_THROW(
      {
        try {
          milli_cpu_to_quota(std::numeric_limits<std::int64_t>::max() / 10);
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("too large for a CFS quota"), std::string::npos);
          throw;
        }
      },
      std::invalid_argument);
}

TEST(ReadBack, SharesToMilliCpuRoundsUp) {
  EXPECT_EQ(shares_to_milli_cpu(0), 0);
  EXPECT_EQ(shares_to_milli_cpu(1), 0);
  EXPECT_EQ(shares_to_milli_cpu(2), 2);
  EXPECT_EQ(shares_to_milli_cpu(102), 100);
  EXPECT_EQ(shares_to_milli_cpu(256), 250);
  EXPECT_EQ(shares_to_milli_cpu(1024), 1000);
  EXPECT_EQ(shares_to_milli_cpu(262144), 256000);
}

TEST(ReadBack, QuotaToMilliCpu) {
  EXPECT_EQ(quota_to_milli_cpu(-1, 100000), std::nullopt);
  EXPECT_EQ(quota_to_milli_cpu(0, 100000), std::nullopt);
  EXPECT_EQ(quota_to_milli_cpu(10000, 0), std::nullopt);
  EXPECT_EQ(quota_to_milli_cpu(1000, 100000), 10);
  EXPECT_EQ(quota_to_milli_cpu(10000, 100000), 100);
  EXPECT_EQ(quota_to_milli_cpu(150000, 100000), 1500);
  EXPECT_EQ(quota_to_milli_cpu(5000, 50000), 100);
}

TEST(ReadBack, RoundTripsEveryRequestAboveTheMinimum) {
  // Requests of at least 2m survive shares and back unchanged within the kubelet's rounding.
  for (std::int64_t milli = 2; milli <= 4000; ++milli) {
    const std::int64_t back = shares_to_milli_cpu(milli_cpu_to_shares(milli));
    EXPECT_LE(back, milli) << milli;
    EXPECT_GE(back, milli - 1) << milli;
  }
}

TEST(CgroupV2, CpuWeightFromShares) {
  struct Case {
    std::int64_t shares;
    std::int64_t weight;
  };
  const std::vector<Case> cases = {{0, 1},     {2, 1},          {102, 4},       {512, 20},
                                   {1024, 39}, {262144, 10000}, {500000, 10000}};
  for (const auto& c : cases) EXPECT_EQ(shares_to_cpu_weight(c.shares), c.weight) << c.shares;
}

TEST(CgroupV2, CpuMaxAndMemoryMaxStrings) {
  EXPECT_EQ(cpu_max_value(kUnlimitedQuota), "max 100000");
  EXPECT_EQ(cpu_max_value(50000), "50000 100000");
  EXPECT_EQ(cpu_max_value(1000, 50000), "1000 50000");
  EXPECT_EQ(memory_max_value(std::nullopt), "max");
  EXPECT_EQ(memory_max_value(0), "max");
  EXPECT_EQ(memory_max_value(1024 * kMi), "1073741824");
}

TEST(ContainerCgroupValues, RequestLimitAndDefaults) {
  struct Case {
    const char* name;
    ResourceAmounts amounts;
    CgroupValues expected;
  };
  const std::vector<Case> cases = {
      {"request and limit", {250, 500, 64 * kMi, 128 * kMi}, {256, 50000, 100000, 128 * kMi}},
      {"limit only takes shares from the limit",
       {std::nullopt, 500, std::nullopt, 128 * kMi},
       {512, 50000, 100000, 128 * kMi}},
      {"request only",
       {100, std::nullopt, 64 * kMi, std::nullopt},
       {102, -1, 100000, std::nullopt}},
      {"nothing", {}, {2, -1, 100000, std::nullopt}},
      {"tiny limit clamps quota",
       {1, 1, std::nullopt, std::nullopt},
       {2, 1000, 100000, std::nullopt}},
  };
  for (const auto& c : cases) EXPECT_EQ(container_cgroup_values(c.amounts), c.expected) << c.name;
}

TEST(ContainerCgroupValues, NegativeMemoryLimitIsAnError) {
  EXPECT_THROW(container_cgroup_values({std::nullopt, std::nullopt, std::nullopt, -1}),
               std::invalid_argument);
}

TEST(PodCgroupValues, ByQosClass) {
  const ResourceAmounts guaranteed{500, 500, 256 * kMi, 256 * kMi};
  const ResourceAmounts limited_burstable{100, 200, 64 * kMi, 128 * kMi};
  const ResourceAmounts unlimited_burstable{100, std::nullopt, 64 * kMi, std::nullopt};
  struct Case {
    const char* name;
    std::vector<ResourceAmounts> containers;
    PodOverhead overhead;
    kube::QosClass qos;
    CgroupValues expected;
  };
  const std::vector<Case> cases = {
      {"guaranteed",
       {guaranteed, guaranteed},
       {},
       kube::QosClass::Guaranteed,
       {1024, 100000, 100000, 512 * kMi}},
      {"guaranteed with overhead",
       {guaranteed, guaranteed},
       {100, 64 * kMi},
       kube::QosClass::Guaranteed,
       {1126, 110000, 100000, 576 * kMi}},
      {"burstable, every container limited",
       {limited_burstable, limited_burstable},
       {},
       kube::QosClass::Burstable,
       {204, 40000, 100000, 256 * kMi}},
      {"burstable, one container unlimited",
       {limited_burstable, unlimited_burstable},
       {},
       kube::QosClass::Burstable,
       {204, std::nullopt, std::nullopt, std::nullopt}},
      {"burstable overhead only on requests when unlimited",
       {unlimited_burstable},
       {100, 64 * kMi},
       kube::QosClass::Burstable,
       {204, std::nullopt, std::nullopt, std::nullopt}},
      {"best effort",
       {ResourceAmounts{}},
       {},
       kube::QosClass::BestEffort,
       {2, std::nullopt, std::nullopt, std::nullopt}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(pod_cgroup_values(c.containers, c.overhead, c.qos), c.expected) << c.name;
  }
}

TEST(PodCgroupValues, PodLimitCoversTheSumOfContainerLimits) {
  const std::vector<ResourceAmounts> containers = {{100, 300, 64 * kMi, 100 * kMi},
                                                   {200, 700, 32 * kMi, 50 * kMi}};
  const CgroupValues pod = pod_cgroup_values(containers, {}, qos_of(containers));
  std::int64_t quota_sum = 0;
  std::int64_t memory_sum = 0;
  for (const auto& c : containers) {
    const CgroupValues v = container_cgroup_values(c);
    quota_sum += *v.cpu_quota_us;
    memory_sum += *v.memory_limit_bytes;
  }
  EXPECT_GE(*pod.cpu_quota_us, quota_sum);
  EXPECT_GE(*pod.memory_limit_bytes, memory_sum);
}

TEST(PodCgroupValues, RejectsNegativeAndOverflowingAmounts) {
  const std::vector<ResourceAmounts> negative = {{-100, std::nullopt, std::nullopt, std::nullopt}};
  EXPECT_THROW(pod_cgroup_values(negative, {}, kube::QosClass::Burstable), std::invalid_argument);
  const auto huge = std::numeric_limits<std::int64_t>::max();
  const std::vector<ResourceAmounts> overflow = {{1, 1, 1, huge}, {1, 1, 1, huge}};
  EXPECT_THROW(pod_cgroup_values(overflow, {}, kube::QosClass::Burstable), std::invalid_argument);
  EXPECT_THROW(pod_cgroup_values({}, {-1, 0}, kube::QosClass::Burstable), std::invalid_argument);
}

TEST(QosOf, FollowsKubernetesRules) {
  using A = ResourceAmounts;
  struct Case {
    const char* name;
    std::vector<A> containers;
    kube::QosClass qos;
  };
  const std::vector<Case> cases = {
      {"nothing set", {A{}, A{}}, kube::QosClass::BestEffort},
      {"limits only default requests",
       {A{std::nullopt, 500, std::nullopt, kMi}},
       kube::QosClass::Guaranteed},
      {"requests equal limits",
       {A{500, 500, kMi, kMi}, A{100, 100, kMi, kMi}},
       kube::QosClass::Guaranteed},
      {"request below limit", {A{400, 500, kMi, kMi}}, kube::QosClass::Burstable},
      {"one container without limits", {A{500, 500, kMi, kMi}, A{}}, kube::QosClass::Burstable},
      {"cpu only", {A{500, 500, std::nullopt, std::nullopt}}, kube::QosClass::Burstable},
  };
  for (const auto& c : cases) EXPECT_EQ(qos_of(c.containers), c.qos) << c.name;
}

}  // namespace
}  // namespace tailor::node::cri

namespace tailor::node::cri {
namespace {

TEST(CgroupV2, WeightToSharesInvertsWithinRounding) {
  EXPECT_EQ(cpu_weight_to_shares(1), 2);
  EXPECT_EQ(cpu_weight_to_shares(10000), 262144);
  EXPECT_EQ(cpu_weight_to_shares(0), 2);  // clamped
  for (std::int64_t shares : {2, 102, 256, 512, 1024, 2048, 100000}) {
    const std::int64_t back = cpu_weight_to_shares(shares_to_cpu_weight(shares));
    // One weight step spans about 26 shares.
    EXPECT_LE(back, shares) << shares;
    EXPECT_GT(back, shares - 27) << shares;
  }
}

TEST(MemoryLimitBelowUsage, RefusesWhenUsageReachesTheNewLimit) {
  EXPECT_EQ(memory_limit_below_usage(100 << 20, 50 << 20), std::nullopt);
  EXPECT_EQ(memory_limit_below_usage(100, 100), "memory limit (100) below current usage (100)");
  EXPECT_EQ(memory_limit_below_usage(67108864, 70000000),
            "memory limit (67108864) below current usage (70000000)");
  EXPECT_EQ(memory_limit_below_usage(0, 70000000), std::nullopt);  // no limit: nothing to refuse
}

}  // namespace
}  // namespace tailor::node::cri
