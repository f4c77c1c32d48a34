// autoscaling/v1 <-> v2 HorizontalPodAutoscaler conversion (kube-apiserver's
// pkg/apis/autoscaling/v1/conversion.go): the CPU target in v1's fields, everything else in the
// autoscaling.alpha.kubernetes.io annotations, and a v1 round trip loses nothing.
#include "embedded/api/hpa_conversion.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "embedded/storage/json_text.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object parse(const std::string& text) { return bj::parse(text).as_object(); }

constexpr const char* kRef =
    R"("scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"})";

std::string v1_hpa(const std::string& annotations, const std::string& spec_tail,
                   const std::string& status = "") {
  std::string meta = R"({"name":"web","namespace":"default")" +
                     (annotations.empty() ? "" : R"(,"annotations":)" + annotations) + "}";
  return R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":)" + meta +
         R"(,"spec":{)" + kRef + R"(,"minReplicas":1,"maxReplicas":3)" + spec_tail + "}" +
         (status.empty() ? "" : R"(,"status":)" + status) + "}";
}

std::string v2_hpa(const std::string& annotations, const std::string& metrics,
                   const std::string& status = "") {
  std::string meta = R"({"name":"web","namespace":"default")" +
                     (annotations.empty() ? "" : R"(,"annotations":)" + annotations) + "}";
  return R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":)" + meta +
         R"(,"spec":{)" + kRef + R"(,"minReplicas":1,"maxReplicas":3,"metrics":)" + metrics + "}" +
         (status.empty() ? "" : R"(,"status":)" + status) + "}";
}

std::string cpu(int percent) {
  return R"({"type":"Resource","resource":{"name":"cpu","target":{"type":"Utilization","averageUtilization":)" +
         std::to_string(percent) + "}}}";
}

struct Case {
  const char* name;
  std::string v1;
  std::string v2;
};

// Each pair converts both ways: v1 -> v2 and v2 -> v1.
std::vector<Case> both_ways() {
  return {
      {"cpu target", v1_hpa("", R"(,"targetCPUUtilizationPercentage":50)"),
       v2_hpa("", "[" + cpu(50) + "]")},
      {"other metrics in the metrics annotation, CPU last",
       v1_hpa(
           R"({"team":"a","autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Resource\",\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"512Mi\"}},{\"type\":\"Pods\",\"pods\":{\"metricName\":\"qps\",\"targetAverageValue\":\"1\"}},{\"type\":\"External\",\"external\":{\"metricName\":\"queue\",\"targetValue\":\"30\"}},{\"type\":\"Object\",\"object\":{\"target\":{\"kind\":\"Service\",\"name\":\"s\"},\"metricName\":\"hits\",\"targetValue\":\"10\"}}]"})",
           R"(,"targetCPUUtilizationPercentage":70)"),
       v2_hpa(
           R"({"team":"a"})",
           R"([{"type":"Resource","resource":{"name":"memory","target":{"type":"AverageValue","averageValue":"512Mi"}}},)"
           R"({"type":"Pods","pods":{"metric":{"name":"qps"},"target":{"type":"AverageValue","averageValue":"1"}}},)"
           R"({"type":"External","external":{"metric":{"name":"queue"},"target":{"type":"Value","value":"30"}}},)"
           R"({"type":"Object","object":{"metric":{"name":"hits"},"target":{"type":"Value","value":"10"},"describedObject":{"kind":"Service","name":"s"}}},)" +
               cpu(70) + "]")},
      {"behavior and status: current metrics and conditions",
       v1_hpa(
           R"({"autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{\"stabilizationWindowSeconds\":60}}","autoscaling.alpha.kubernetes.io/current-metrics":"[{\"type\":\"Resource\",\"resource\":{\"name\":\"cpu\",\"currentAverageUtilization\":42,\"currentAverageValue\":\"120m\"}}]","autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"True\"}]"})",
           R"(,"targetCPUUtilizationPercentage":50)",
           R"({"currentReplicas":2,"desiredReplicas":2,"currentCPUUtilizationPercentage":42})"),
       R"({"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"web","namespace":"default"},"spec":{)" +
           std::string(kRef) + R"(,"minReplicas":1,"maxReplicas":3,"metrics":[)" + cpu(50) +
           R"(],"behavior":{"scaleDown":{"stabilizationWindowSeconds":60}}},"status":{"currentReplicas":2,"desiredReplicas":2,)"
           R"("currentMetrics":[{"type":"Resource","resource":{"current":{"averageUtilization":42,"averageValue":"120m"},"name":"cpu"}}],)"
           R"("conditions":[{"type":"AbleToScale","status":"True"}]}})"},
  };
}

TEST(HpaConversion, V1ToV2) {
  for (const Case& c : both_ways()) {
    EXPECT_EQ(hpa_v1_to_v2(parse(c.v1)), parse(c.v2)) << c.name << "\n"
                                                      << bj::serialize(hpa_v1_to_v2(parse(c.v1)));
  }
}

// JSON annotation texts are compared as parsed values (member order is not part of them).
bj::object normalized(bj::object o) {
  if (bj::value* a = o["metadata"].as_object().if_contains("annotations")) {
    for (auto& [k, v] : a->as_object()) {
      if (k.starts_with("autoscaling.alpha.kubernetes.io/")) v = bj::parse(v.as_string());
    }
  }
  return o;
}

TEST(HpaConversion, V2ToV1) {
  for (const Case& c : both_ways()) {
    EXPECT_EQ(normalized(hpa_v2_to_v1(parse(c.v2))), normalized(parse(c.v1)))
        << c.name << "\n"
        << bj::serialize(hpa_v2_to_v1(parse(c.v2)));
  }
}

TEST(HpaConversion, V1WithoutMetricsTargetsEightyPercentCpu) {
  EXPECT_EQ(hpa_v1_to_v2(parse(v1_hpa("", ""))), parse(v2_hpa("", "[" + cpu(80) + "]")));
}

TEST(HpaConversion, V2ToV1DropsStaleRoundTripAnnotations) {
  bj::object v2 = parse(v2_hpa(
      R"({"autoscaling.alpha.kubernetes.io/metrics":"[]","autoscaling.alpha.kubernetes.io/conditions":"x"})",
      "[" + cpu(60) + "]"));
  EXPECT_EQ(hpa_v2_to_v1(v2), parse(v1_hpa("", R"(,"targetCPUUtilizationPercentage":60)")));
}

// kube-apiserver's conversion reads these annotations with encoding/json: 1e999 is no number
// there. Read as Infinity, it was stored, and the stored text ("Infinity") could not be read back;
// an annotation that does not parse is ignored, as any other malformed one.
TEST(HpaConversion, AnnotationWithANumberOutOfRangeIsIgnored) {
  bj::object v2 = hpa_v1_to_v2(parse(v1_hpa(
      R"({"autoscaling.alpha.kubernetes.io/behavior":"{\"scaleDown\":{\"stabilizationWindowSeconds\":1e999}}",)"
      R"("autoscaling.alpha.kubernetes.io/conditions":"[{\"type\":\"AbleToScale\",\"status\":\"True\",\"x\":-1e400}]"})",
      "")));
  EXPECT_EQ(v2, parse(v2_hpa("", "[" + cpu(80) + "]")));
  EXPECT_NO_THROW(parse_json_text(bj::serialize(v2)));
}

}  // namespace
}  // namespace tailor::embedded
