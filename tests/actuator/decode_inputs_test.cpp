#include "actuator/decode_inputs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fixtures.h"
#include "kube/model/decode.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;

TEST(DecodeLimitRange, ItemsAsInTheApi) {
  auto items = decode_limit_range(R"({"apiVersion":"v1","kind":"LimitRange",
    "metadata":{"name":"limits","namespace":"ns"},
    "spec":{"limits":[
      {"type":"Container","max":{"cpu":"2","memory":"1Gi"},"min":{"cpu":"100m"},
       "default":{"cpu":"500m"},"defaultRequest":{"cpu":"200m"},"maxLimitRequestRatio":{"cpu":"4"}},
      {"type":"Pod","max":{"cpu":4}},
      {"type":"PersistentVolumeClaim","min":{"storage":"1Gi"}}]}})");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].type, "Container");
  EXPECT_EQ(items[0].max, rl("cpu=2,memory=1Gi"));
  EXPECT_EQ(items[0].default_limit, rl("cpu=500m"));
  EXPECT_EQ(items[0].default_request, rl("cpu=200m"));
  EXPECT_EQ(items[0].max_limit_request_ratio, rl("cpu=4"));
  EXPECT_EQ(items[1].max, rl("cpu=4"));
  auto container = container_limit_range(items);
  ASSERT_TRUE(container);
  EXPECT_EQ(container->min, rl("cpu=100m"));
}

TEST(DecodeLimitRange, BadQuantityHasItsPath) {
  try {
    decode_limit_range(R"({"spec":{"limits":[{"type":"Container"},{"max":{"cpu":"two"}}]}})");
    FAIL() << "no error";
  } catch (const kube::DecodeError& e) {
    EXPECT_THAT(e.what(), testing::StartsWith("spec.limits[1].max.cpu: invalid quantity"));
  }
}

TEST(DecodeHpa, ResourceAndContainerResourceMetrics) {
  HorizontalScaler hpa = decode_horizontal_pod_autoscaler(R"({
    "apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
    "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "minReplicas":1,"maxReplicas":10,
      "metrics":[
        {"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":60}}},
        {"type":"ContainerResource","containerResource":{"name":"memory","container":"app",
          "target":{"type":"AverageValue","averageValue":"500Mi"}}},
        {"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"10"}}}]}})");
  EXPECT_EQ(hpa.name, "web");
  EXPECT_EQ(hpa.scale_target_ref.kind, "Deployment");
  EXPECT_EQ(hpa.resources, (std::vector<std::string>{"cpu", "app/memory"}));
  EXPECT_THROW(decode_horizontal_pod_autoscaler(R"({"spec":{"metrics":{}}})"), kube::DecodeError);
}

// autoscaling/v2 defaulting: no metrics means 80% average CPU utilization.
TEST(DecodeHpa, NoMetricsScalesOnCpuAndKeepsItsNamespace) {
  HorizontalScaler hpa = decode_horizontal_pod_autoscaler(R"({
    "metadata":{"name":"web","namespace":"shop"},
    "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
      "maxReplicas":10}})");
  EXPECT_EQ(hpa.namespace_, "shop");
  EXPECT_EQ(hpa.resources, (std::vector<std::string>{"cpu"}));
  hpa = decode_horizontal_pod_autoscaler(R"({"metadata":{"name":"web"},"spec":{"metrics":[
    {"type":"Pods","pods":{"metric":{"name":"rps"},"target":{"type":"AverageValue","averageValue":"10"}}}]}})");
  EXPECT_TRUE(hpa.resources.empty());
}

}  // namespace
}  // namespace tailor::actuator
