// The kubelet's /metrics/resource as the agent writes it: names, labels, HELP/TYPE lines, exact
// decimal values with the read's timestamp; and the sampler's readings behind it (the node's CPU
// never going down when a container goes or restarts).
#include "node-agent/usage/resource_metrics.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "node-agent/usage/usage_sampler.h"

namespace tailor::node::usage {
namespace {
namespace fs = std::filesystem;

TEST(ResourceMetricsText, KubeletNamesLabelsExactValuesAndTimestamps) {
  const std::vector<ContainerReading> containers = {{.key = {"shop", "web-1", "uid", "app", "id1"},
                                                     .cpu_usage_ns = 12'500'000'001,
                                                     .working_set_bytes = 52428800,
                                                     .start_ms = 1700000000123,
                                                     .at_ms = 1700000005000}};
  const std::string text = resource_metrics_text(
      {.cpu_usage_ns = 40'000'000'000, .working_set_bytes = 1073741824, .at_ms = 1700000005001},
      containers);
  EXPECT_EQ(text,
            "# HELP container_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by "
            "the container in core-seconds\n"
            "# TYPE container_cpu_usage_seconds_total counter\n"
            "container_cpu_usage_seconds_total{container=\"app\",namespace=\"shop\",pod=\"web-1\"}"
            " 12.500000001 1700000005000\n"
            "# HELP container_memory_working_set_bytes [STABLE] Current working set of the "
            "container in bytes\n"
            "# TYPE container_memory_working_set_bytes gauge\n"
            "container_memory_working_set_bytes{container=\"app\",namespace=\"shop\",pod=\"web-1\"}"
            " 52428800 1700000005000\n"
            "# HELP container_start_time_seconds [STABLE] Start time of the container since unix "
            "epoch in seconds\n"
            "# TYPE container_start_time_seconds gauge\n"
            "container_start_time_seconds{container=\"app\",namespace=\"shop\",pod=\"web-1\"}"
            " 1700000000.123 1700000005000\n"
            "# HELP node_cpu_usage_seconds_total [STABLE] Cumulative cpu time consumed by the "
            "node in core-seconds\n"
            "# TYPE node_cpu_usage_seconds_total counter\n"
            "node_cpu_usage_seconds_total 40.000000000 1700000005001\n"
            "# HELP node_memory_working_set_bytes [STABLE] Current working set of the node in "
            "bytes\n"
            "# TYPE node_memory_working_set_bytes gauge\n"
            "node_memory_working_set_bytes 1073741824 1700000005001\n"
            "# HELP scrape_error [STABLE] 1 if there was an error while getting container "
            "metrics, 0 otherwise\n"
            "# TYPE scrape_error gauge\n"
            "scrape_error 0\n");
}

TEST(ResourceMetricsText, NothingReadYetIsOnlyScrapeError) {
  const std::string text = resource_metrics_text({}, {});
  EXPECT_EQ(text.find("node_cpu"), std::string::npos) << text;
  EXPECT_EQ(text.find("container_"), std::string::npos) << text;
  EXPECT_NE(text.find("\nscrape_error 0\n"), std::string::npos) << text;
}

TEST(ResourceMetricsText, LabelValuesAreEscaped) {
  const std::string text =
      resource_metrics_text({}, {{.key = {"n", "p\"q", "", "a\\b\nc", ""}, .at_ms = 1}});
  EXPECT_NE(text.find(R"({container="a\\b\nc",namespace="n",pod="p\"q"})"), std::string::npos)
      << text;
}

class SamplerReadings : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("tailor-readings-" + std::to_string(::getpid()));
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void v2(const std::string& id, std::int64_t cpu_us, std::int64_t current, std::int64_t inactive) {
    put(id + "/cpu.stat", "usage_usec " + std::to_string(cpu_us) + "\n");
    put(id + "/memory.current", std::to_string(current) + "\n");
    put(id + "/memory.stat", "inactive_file " + std::to_string(inactive) + "\n");
    put(id + "/memory.events", "oom_kill 0\n");
  }
  void put(const std::string& file, const std::string& text) {
    fs::create_directories((root_ / "pod" / file).parent_path());
    std::ofstream(root_ / "pod" / file) << text;
  }
  fs::path root_;
};

TEST_F(SamplerReadings, LastReadsAndANodeCounterThatNeverGoesDown) {
  kube::metrics::Registry registry;
  std::vector<SampledContainer> containers = {{{"shop", "web", "uid", "app", "c1"}, "/pod/c1"},
                                              {{"shop", "web", "uid", "side", "s1"}, "/pod/s1"}};
  UsageSampler sampler([&] { return containers; }, [](std::vector<UsageWindow>) {},
                       {.cgroups = {root_, cri::CgroupVersion::V2},
                        .interval = std::chrono::seconds(5),
                        .window = std::chrono::seconds(60),
                        .registry = &registry});
  EXPECT_TRUE(sampler.container_readings().empty());
  EXPECT_EQ(sampler.node_reading().at_ms, 0);

  v2("c1", 1'000'000, 500, 100);  // 1 s of CPU, working set 400
  v2("s1", 500'000, 50, 0);
  sampler.sample(1000);
  auto readings = sampler.container_readings();
  ASSERT_EQ(readings.size(), 2u);
  EXPECT_EQ(readings[0].key.container, "app");
  EXPECT_EQ(readings[0].cpu_usage_ns, 1'000'000'000);
  EXPECT_EQ(readings[0].working_set_bytes, 400);
  EXPECT_EQ(readings[0].start_ms, 1000);
  EXPECT_EQ(readings[0].at_ms, 1000);
  NodeReading node = sampler.node_reading();
  EXPECT_EQ(node.cpu_usage_ns, 1'500'000'000);
  EXPECT_EQ(node.working_set_bytes, 450);
  EXPECT_EQ(node.at_ms, 1000);

  // app restarts (a new container, its counter from 0); side goes.
  containers = {{{"shop", "web", "uid", "app", "c2"}, "/pod/c2"}};
  v2("c2", 200'000, 300, 0);
  sampler.sample(6000);
  readings = sampler.container_readings();
  ASSERT_EQ(readings.size(), 1u);
  EXPECT_EQ(readings[0].key.container_id, "c2");
  EXPECT_EQ(readings[0].start_ms, 6000);
  node = sampler.node_reading();
  EXPECT_EQ(node.cpu_usage_ns, 1'700'000'000);  // + the new container's 0.2 s
  EXPECT_EQ(node.working_set_bytes, 300);

  v2("c2", 700'000, 300, 0);
  sampler.sample(11000);
  EXPECT_EQ(sampler.node_reading().cpu_usage_ns, 2'200'000'000);
  EXPECT_EQ(sampler.container_readings()[0].start_ms, 6000);
}

}  // namespace
}  // namespace tailor::node::usage
