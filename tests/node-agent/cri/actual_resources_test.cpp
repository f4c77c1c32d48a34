#include "node-agent/cri/actual_resources.h"

#include <gtest/gtest.h>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kMi = 1024 * 1024;

bool operator==(const ResourceAmounts& a, const ResourceAmounts& b) {
  return a.cpu_request_milli == b.cpu_request_milli && a.cpu_limit_milli == b.cpu_limit_milli &&
         a.memory_request_bytes == b.memory_request_bytes &&
         a.memory_limit_bytes == b.memory_limit_bytes;
}

TEST(ActualResources, ConvertsWhatTheRuntimeApplied) {
  const ResourceAmounts allocated{250, 500, 64 * kMi, 128 * kMi};
  const ResourceAmounts actual = actual_resources({100000, 50000, 256, 128 * kMi, {}}, allocated);
  EXPECT_TRUE(actual == allocated);
}

TEST(ActualResources, ReportsTheRuntimeWhenItDiffers) {
  // The runtime still holds the old values: the status must show them, not the allocation.
  const ResourceAmounts actual =
      actual_resources({100000, 20000, 102, 64 * kMi, {}}, {250, 500, 32 * kMi, 128 * kMi});
  EXPECT_EQ(actual.cpu_request_milli, 100);
  EXPECT_EQ(actual.cpu_limit_milli, 200);
  EXPECT_EQ(actual.memory_limit_bytes, 64 * kMi);
  EXPECT_EQ(actual.memory_request_bytes, 32 * kMi);  // from the allocation, never from cgroups
}

TEST(ActualResources, TinyValuesSettleOnTheAllocation) {
  struct Case {
    const char* name;
    LinuxResources applied;
    ResourceAmounts allocated;
    std::optional<std::int64_t> request, limit;
  };
  const std::vector<Case> cases = {
      {"1m request reads as 2m",
       {100000, 1000, 2, 0, {}},
       {1, 5, std::nullopt, std::nullopt},
       1,
       5},
      {"2m request", {100000, 1000, 2, 0, {}}, {2, 10, std::nullopt, std::nullopt}, 2, 10},
      {"no request allocated, minimum shares",
       {100000, 0, 2, 0, {}},
       {},
       std::nullopt,
       std::nullopt},
      {"allocated tiny, actual not",
       {100000, 50000, 256, 0, {}},
       {1, 5, std::nullopt, std::nullopt},
       250,
       500},
      {"actual tiny, allocated not",
       {100000, 1000, 2, 0, {}},
       {250, 500, std::nullopt, std::nullopt},
       2,
       10},
  };
  for (const auto& c : cases) {
    const ResourceAmounts actual = actual_resources(c.applied, c.allocated);
    EXPECT_EQ(actual.cpu_request_milli, c.request) << c.name;
    EXPECT_EQ(actual.cpu_limit_milli, c.limit) << c.name;
  }
}

TEST(ActualResources, UnlimitedStaysUnlimited) {
  const ResourceAmounts actual =
      actual_resources({100000, 0, 512, 0, {}}, {500, std::nullopt, 0, std::nullopt});
  EXPECT_EQ(actual.cpu_limit_milli, std::nullopt);
  EXPECT_EQ(actual.memory_limit_bytes, std::nullopt);
  EXPECT_EQ(actual.cpu_request_milli, 500);
}

}  // namespace
}  // namespace tailor::node::cri
