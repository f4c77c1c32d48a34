// Usage sampling over fake cgroup trees (v1 and v2): the counters read, the rates and peaks
// computed, the windows aggregated and flushed, and the Prometheus series kept and removed.
#include "node-agent/usage/usage_sampler.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace tailor::node::usage {
namespace {
namespace fs = std::filesystem;

class FakeTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tailor-usage-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void put(const fs::path& file, const std::string& text) {
    fs::create_directories((root_ / file).parent_path());
    std::ofstream(root_ / file) << text;
  }
  std::string get(const fs::path& file) {
    std::ifstream in(root_ / file);
    std::string text;
    std::getline(in, text);
    return text;
  }
  // v1: cpuacct and memory hierarchies.
  void v1(std::int64_t cpu_ns, std::int64_t usage, std::int64_t inactive, std::int64_t max_usage,
          int oom_kills) {
    put("cpuacct/pod/c/cpuacct.usage", std::to_string(cpu_ns) + "\n");
    put("memory/pod/c/memory.usage_in_bytes", std::to_string(usage) + "\n");
    put("memory/pod/c/memory.stat",
        "cache 5\ninactive_file 1\ntotal_inactive_file " + std::to_string(inactive) + "\n");
    put("memory/pod/c/memory.max_usage_in_bytes", std::to_string(max_usage) + "\n");
    put("memory/pod/c/memory.oom_control",
        "oom_kill_disable 0\nunder_oom 0\noom_kill " + std::to_string(oom_kills) + "\n");
  }
  void v2(std::int64_t cpu_us, std::int64_t current, std::int64_t inactive, std::int64_t peak,
          int oom_kills) {
    put("pod/c/cpu.stat", "usage_usec " + std::to_string(cpu_us) + "\nuser_usec 1\n");
    put("pod/c/memory.current", std::to_string(current) + "\n");
    put("pod/c/memory.stat", "anon 1\ninactive_file " + std::to_string(inactive) + "\n");
    put("pod/c/memory.peak", std::to_string(peak) + "\n");
    put("pod/c/memory.events",
        "low 0\nhigh 0\nmax 2\noom 1\noom_kill " + std::to_string(oom_kills) + "\n");
  }

  fs::path root_;
};

TEST_F(FakeTree, ReadsV1AndResetsThePeak) {
  v1(5'000'000'000, 300, 100, 900, 2);
  const CgroupUsage usage = read_cgroup_usage({root_, cri::CgroupVersion::V1}, "/pod/c");
  EXPECT_EQ(usage.cpu_usage_ns, 5'000'000'000);
  EXPECT_EQ(usage.memory_usage_bytes, 300);
  EXPECT_EQ(usage.inactive_file_bytes, 100);  // total_, not the cgroup-local inactive_file
  EXPECT_EQ(usage.memory_peak_bytes, 900);
  EXPECT_EQ(usage.oom_kills, 2);
  EXPECT_EQ(get("memory/pod/c/memory.max_usage_in_bytes"), "0");
}

TEST_F(FakeTree, ReadsV2) {
  v2(2'000'000, 300, 100, 900, 1);
  const CgroupUsage usage = read_cgroup_usage({root_, cri::CgroupVersion::V2}, "/pod/c");
  EXPECT_EQ(usage.cpu_usage_ns, 2'000'000'000);
  EXPECT_EQ(usage.memory_usage_bytes, 300);
  EXPECT_EQ(usage.inactive_file_bytes, 100);
  EXPECT_EQ(usage.memory_peak_bytes, 900);
  EXPECT_EQ(usage.oom_kills, 1);
  fs::remove(root_ / "pod/c/memory.peak");  // kernels before 5.19
  EXPECT_FALSE(read_cgroup_usage({root_, cri::CgroupVersion::V2}, "/pod/c").memory_peak_bytes);
}

TEST_F(FakeTree, UnreadableCountersNameTheFile) {
  put("pod/c/cpu.stat", "user_usec 1\n");
  try {
    read_cgroup_usage({root_, cri::CgroupVersion::V2}, "/pod/c");
    FAIL();
  } catch (const cri::CgroupError& e) {
    EXPECT_NE(std::string(e.what()).find("cpu.stat has no \"usage_usec\""), std::string::npos);
  }
  put("pod/c/cpu.stat", "usage_usec 1\n");
  put("pod/c/memory.current", "lots\n");
  EXPECT_THROW(read_cgroup_usage({root_, cri::CgroupVersion::V2}, "/pod/c"), cri::CgroupError);
  EXPECT_THROW(read_cgroup_usage({root_, cri::CgroupVersion::V1}, "/gone"), cri::CgroupError);
  EXPECT_THROW(read_cgroup_usage({root_, cri::CgroupVersion::V1}, "relative"), cri::CgroupError);
}

TEST(UsagePoint, RatesPeaksAndCounterResets) {
  struct Case {
    const char* name;
    CgroupUsage before, after;
    std::int64_t ms;
    double cores;
    std::int64_t working_set, peak, ooms;
  };
  const Case cases[] = {
      {"1.5 cores over 2 s",
       {.cpu_usage_ns = 1'000'000'000},
       {.cpu_usage_ns = 4'000'000'000, .memory_usage_bytes = 500, .inactive_file_bytes = 200},
       2000,
       1.5,
       300,
       500,
       0},
      {"inactive above usage",
       {},
       {.memory_usage_bytes = 100, .inactive_file_bytes = 200},
       1000,
       0,
       0,
       100,
       0},
      {"v1 peak since the read",
       {.memory_peak_bytes = 900},
       {.memory_usage_bytes = 100, .memory_peak_bytes = 900, .peak_since_previous_read = true},
       1000,
       0,
       100,
       900,
       0},
      {"v2 peak unchanged: usage stands for it",
       {.memory_peak_bytes = 900},
       {.memory_usage_bytes = 100, .memory_peak_bytes = 900},
       1000,
       0,
       100,
       100,
       0},
      {"v2 peak rose",
       {.memory_peak_bytes = 900},
       {.memory_usage_bytes = 100, .memory_peak_bytes = 1200},
       1000,
       0,
       100,
       1200,
       0},
      {"OOM kills counted", {.oom_kills = 2}, {.oom_kills = 5}, 1000, 0, 0, 0, 3},
      {"new cgroup: counters restart",
       {.cpu_usage_ns = 9'000'000'000, .oom_kills = 4},
       {.cpu_usage_ns = 500'000'000, .oom_kills = 1},
       1000,
       0.5,
       0,
       0,
       1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const auto point = usage_point(c.before, 1000, c.after, 1000 + c.ms);
    ASSERT_TRUE(point);
    EXPECT_DOUBLE_EQ(point->cpu_cores, c.cores);
    EXPECT_EQ(point->working_set_bytes, c.working_set);
    EXPECT_EQ(point->peak_bytes, c.peak);
    EXPECT_EQ(point->oom_kills, c.ooms);
  }
  EXPECT_FALSE(usage_point({}, 1000, {}, 1000));
}

TEST_F(FakeTree, SamplerAggregatesWindowsAndKeepsMetrics) {
  kube::metrics::Registry registry;
  std::vector<std::vector<UsageWindow>> flushed;
  std::vector<SampledContainer> containers = {{{"shop", "web", "uid", "app", "c"}, "/pod/c"}};
  UsageSampler sampler([&] { return containers; },
                       [&](std::vector<UsageWindow> w) { flushed.push_back(std::move(w)); },
                       {.cgroups = {root_, cri::CgroupVersion::V2},
                        .interval = std::chrono::seconds(5),
                        .window = std::chrono::seconds(10),
                        .registry = &registry});
  v2(0, 100, 0, 100, 0);
  sampler.sample(0);                // first read: no rate yet
  v2(5'000'000, 400, 100, 500, 0);  // 1 core
  sampler.sample(5000);
  EXPECT_NE(
      registry.serialize().find(
          R"(tailor_node_container_cpu_usage_cores{container="app",namespace="shop",pod="web"} 1)"),
      std::string::npos);
  EXPECT_TRUE(flushed.empty());
  v2(15'000'000, 200, 0, 500, 1);  // 2 cores, an OOM kill
  sampler.sample(10000);
  ASSERT_EQ(flushed.size(), 1u);
  ASSERT_EQ(flushed[0].size(), 1u);
  const UsageWindow& w = flushed[0][0];
  EXPECT_EQ(w.container.container, "app");
  EXPECT_EQ(w.samples, 2u);
  EXPECT_EQ(w.start_ms, 5000);
  EXPECT_EQ(w.end_ms, 10000);
  EXPECT_DOUBLE_EQ(w.cpu_cores_mean, 1.5);
  EXPECT_DOUBLE_EQ(w.cpu_cores_max, 2.0);
  EXPECT_EQ(w.working_set_max_bytes, 300);
  EXPECT_EQ(w.working_set_last_bytes, 200);
  EXPECT_EQ(w.peak_bytes, 500);
  EXPECT_EQ(w.oom_kills, 1u);

  // A container that is gone: its last partial window is flushed and its series removed.
  v2(20'000'000, 200, 0, 500, 1);
  sampler.sample(15000);
  containers.clear();
  sampler.sample(20000);
  ASSERT_EQ(flushed.size(), 2u);
  EXPECT_EQ(flushed[1][0].samples, 1u);
  EXPECT_EQ(registry.serialize().find("pod=\"web\""), std::string::npos);
}

TEST(UsageSamplerOptions, RejectsAWindowShorterThanTheInterval) {
  kube::metrics::Registry registry;
  EXPECT_THROW(UsageSampler([] { return std::vector<SampledContainer>{}; }, [](auto) {},
                            {.interval = std::chrono::seconds(5),
                             .window = std::chrono::seconds(1),
                             .registry = &registry}),
               std::invalid_argument);
}

}  // namespace
}  // namespace tailor::node::usage
