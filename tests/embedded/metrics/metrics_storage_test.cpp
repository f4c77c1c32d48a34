// metrics-server's arithmetic in tailor-cluster: a kubelet scrape decoded, the last two points of
// each container and node kept, and the usage between them (nanocores, working set, timestamp,
// window); restarts, repeated scrapes and pods with a container short of points.
#include "embedded/metrics/metrics_storage.h"

#include <gtest/gtest.h>

#include "embedded/metrics/resource_metrics_decode.h"

namespace tailor::embedded {
namespace {

TEST(DecodeResourceMetrics, ContainersAndNodeWithTheirTimestamps) {
  const NodeScrape scrape = decode_resource_metrics(
      "# HELP container_cpu_usage_seconds_total [STABLE] x\n"
      "# TYPE container_cpu_usage_seconds_total counter\n"
      "container_cpu_usage_seconds_total{container=\"app\",namespace=\"shop\",pod=\"web\"} "
      "12.500000001 1700000005000\n"
      "container_memory_working_set_bytes{container=\"app\",namespace=\"shop\",pod=\"web\"} "
      "5.24288e+07 1700000005000\n"
      "container_start_time_seconds{container=\"app\",namespace=\"shop\",pod=\"web\"} "
      "1.700000000123e+09 1700000005000\n"
      "container_cpu_usage_seconds_total{container=\"cpu-only\",namespace=\"shop\",pod=\"web\"} "
      "1 1700000005000\n"
      "container_memory_working_set_bytes{container=\"no-time\",namespace=\"shop\",pod=\"web\"} 1\n"
      "node_cpu_usage_seconds_total 40 1700000005001\n"
      "node_memory_working_set_bytes 1073741824 1700000005001\n"
      "scrape_error 0\n");
  ASSERT_EQ(scrape.containers.size(), 1u) << "a container needs both CPU and memory";
  const ContainerMetricsPoint& c = scrape.containers[0];
  EXPECT_EQ(c.ns, "shop");
  EXPECT_EQ(c.pod, "web");
  EXPECT_EQ(c.container, "app");
  EXPECT_EQ(c.start_ms, 1700000000123);
  EXPECT_EQ(c.point.at_ms, 1700000005000);
  EXPECT_EQ(c.point.cumulative_cpu_ns, 12'500'000'001);
  EXPECT_EQ(c.point.memory_bytes, 52428800);
  ASSERT_TRUE(scrape.node);
  EXPECT_EQ(scrape.node->cumulative_cpu_ns, 40'000'000'000);
  EXPECT_EQ(scrape.node->memory_bytes, 1073741824);
  EXPECT_EQ(scrape.node->at_ms, 1700000005001);
}

TEST(DecodeResourceMetrics, EscapedLabelsAndEmptyText) {
  const NodeScrape scrape = decode_resource_metrics(
      "container_cpu_usage_seconds_total{container=\"a\\\"b\",namespace=\"n\",pod=\"p\\\\q\"} 1 5\n"
      "container_memory_working_set_bytes{container=\"a\\\"b\",namespace=\"n\",pod=\"p\\\\q\"} 2 "
      "5\n");
  ASSERT_EQ(scrape.containers.size(), 1u);
  EXPECT_EQ(scrape.containers[0].container, "a\"b");
  EXPECT_EQ(scrape.containers[0].pod, "p\\q");
  EXPECT_FALSE(scrape.node);
  EXPECT_TRUE(decode_resource_metrics("").containers.empty());
}

TEST(DecodeResourceMetrics, MalformedTextNamesTheLine) {
  const char* bad[] = {"container_cpu_usage_seconds_total{container=\"a\" 1 5",
                       "node_cpu_usage_seconds_total many 5", "node_cpu_usage_seconds_total 1 soon",
                       "node_cpu_usage_seconds_total",
                       "container_cpu_usage_seconds_total{container} 1 5"};
  for (const char* line : bad) {
    try {
      decode_resource_metrics(std::string("# ok\n") + line + "\n");
      ADD_FAILURE() << line;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(line), std::string::npos) << e.what();
    }
  }
}

MetricsPoint at(std::int64_t ms, std::int64_t cpu_ns, std::int64_t memory = 100) {
  return {ms, cpu_ns, memory};
}

TEST(UsageBetween, NanocoresWindowAndTimestamp) {
  struct Case {
    const char* name;
    MetricsPoint previous, last;
    std::optional<ResourceUsage> want;
  };
  const Case cases[] = {
      {"half a core over 15 s", at(1000, 0), at(16000, 7'500'000'000, 4096),
       ResourceUsage{500'000'000, 4096, 16000, 15000}},
      {"1 ns over 1 ms is 1000 nanocores", at(0, 5), at(1, 6), ResourceUsage{1000, 100, 1, 1}},
      {"idle", at(0, 5), at(10000, 5), ResourceUsage{0, 100, 10000, 10000}},
      {"same time", at(1000, 0), at(1000, 10), std::nullopt},
      {"older", at(2000, 0), at(1000, 10), std::nullopt},
      {"counter went back", at(0, 10), at(1000, 5), std::nullopt},
  };
  for (const Case& c : cases) {
    const auto got = usage_between(c.previous, c.last);
    ASSERT_EQ(got.has_value(), c.want.has_value()) << c.name;
    if (!got) continue;
    EXPECT_EQ(got->nanocores, c.want->nanocores) << c.name;
    EXPECT_EQ(got->memory_bytes, c.want->memory_bytes) << c.name;
    EXPECT_EQ(got->at_ms, c.want->at_ms) << c.name;
    EXPECT_EQ(got->window_ms, c.want->window_ms) << c.name;
  }
}

NodeScrape scrape_of(std::int64_t ms, std::int64_t app_cpu, std::int64_t side_cpu,
                     std::int64_t start_ms = 0) {
  NodeScrape s;
  s.node = at(ms, app_cpu + side_cpu, 1000);
  s.containers.push_back({"shop", "web", "app", start_ms, at(ms, app_cpu)});
  s.containers.push_back({"shop", "web", "side", 0, at(ms, side_cpu)});
  return s;
}

TEST(MetricsStorage, UsageNeedsTwoPointsOfEveryContainer) {
  MetricsStorage storage;
  storage.store("n1", scrape_of(1000, 0, 0));
  EXPECT_FALSE(storage.pod_usage("shop", "web"));
  EXPECT_FALSE(storage.node_usage("n1"));

  storage.store("n1", scrape_of(2000, 250'000'000, 10'000'000));
  const auto pod = storage.pod_usage("shop", "web");
  ASSERT_TRUE(pod);
  ASSERT_EQ(pod->containers.size(), 2u);
  EXPECT_EQ(pod->containers[0].name, "app");
  EXPECT_EQ(pod->containers[0].usage.nanocores, 250'000'000);
  EXPECT_EQ(pod->containers[1].usage.nanocores, 10'000'000);
  EXPECT_EQ(pod->at_ms, 2000);
  EXPECT_EQ(pod->window_ms, 1000);
  const auto node = storage.node_usage("n1");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->nanocores, 260'000'000);
  EXPECT_EQ(node->memory_bytes, 1000);

  // The same scrape again (nothing new read): the pair stays.
  storage.store("n1", scrape_of(2000, 250'000'000, 10'000'000));
  EXPECT_TRUE(storage.pod_usage("shop", "web"));

  // app restarted (a new start time): until its next point the pod has no metrics.
  storage.store("n1", scrape_of(3000, 1'000'000, 20'000'000, 2500));
  EXPECT_FALSE(storage.pod_usage("shop", "web"));
  storage.store("n1", scrape_of(4000, 101'000'000, 30'000'000, 2500));
  ASSERT_TRUE(storage.pod_usage("shop", "web"));
  EXPECT_EQ(storage.pod_usage("shop", "web")->containers[0].usage.nanocores, 100'000'000);

  EXPECT_FALSE(storage.pod_usage("shop", "other"));
  EXPECT_FALSE(storage.node_usage("n2"));
}

TEST(MetricsStorage, ANodeThatFailsOrDropsAPodReportsNothingOfIt) {
  MetricsStorage storage;
  storage.store("n1", scrape_of(1000, 0, 0));
  storage.store("n1", scrape_of(2000, 1, 1));
  ASSERT_TRUE(storage.pod_usage("shop", "web"));
  storage.store("n1", NodeScrape{});  // the pod is gone, and the node's own counters
  EXPECT_FALSE(storage.pod_usage("shop", "web"));
  EXPECT_FALSE(storage.node_usage("n1"));

  storage.store("n1", scrape_of(3000, 1, 1));
  storage.store("n1", scrape_of(4000, 2, 2));
  ASSERT_TRUE(storage.node_usage("n1"));
  storage.forget("n1");
  EXPECT_FALSE(storage.node_usage("n1"));
  EXPECT_FALSE(storage.pod_usage("shop", "web"));

  // A node that is no longer listed (deleted, or naming no kubelet endpoint) is forgotten.
  storage.store("n1", scrape_of(5000, 1, 1));
  storage.store("n1", scrape_of(6000, 2, 2));
  storage.store("n2", NodeScrape{at(5000, 0), {}});
  storage.store("n2", NodeScrape{at(6000, 1), {}});
  ASSERT_TRUE(storage.pod_usage("shop", "web"));
  storage.retain({"n2"});
  EXPECT_FALSE(storage.node_usage("n1"));
  EXPECT_FALSE(storage.pod_usage("shop", "web")) << "web ran on n1";
  EXPECT_TRUE(storage.node_usage("n2"));
}

}  // namespace
}  // namespace tailor::embedded
