// autoscaling/v2 HorizontalPodAutoscalers through the real kubectl: served under the short name
// `hpa`, defaulted and validated as kube-apiserver does, printed with kubectl's columns.
#include <regex>
#include <vector>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class HpaKubectlTest : public ApiOnlyKubectlTest {
 protected:
  KubectlResult apply(const std::string& name, const std::string& yaml) {
    return kubectl("apply -f " + write(name + ".yaml", yaml));
  }

  static std::string hpa(const std::string& name, const std::string& spec_tail) {
    return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name +
           "\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n" +
           spec_tail;
  }

  // kubectl's table with runs of spaces collapsed and the AGE column dropped.
  static std::string columns(const std::string& out) {
    std::string s = std::regex_replace(out, std::regex(" +"), " ");
    return std::regex_replace(s, std::regex(" [0-9]+s\n"), "\n");
  }
};

TEST_F(HpaKubectlTest, ServedWithShortNameAndDiscovery) {
  KubectlResult r = kubectl("api-resources --api-group=autoscaling");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      std::regex_replace(r.out, std::regex(" +"), " ")
          .find("\nhorizontalpodautoscalers hpa autoscaling/v2 true HorizontalPodAutoscaler\n"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(kubectl("get hpa").err, "No resources found in default namespace.\n");
}

TEST_F(HpaKubectlTest, ApplyDefaultsAndPrintsKubectlColumns) {
  KubectlResult r = apply("cpu", hpa("cpu", "  maxReplicas: 5\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "horizontalpodautoscaler.autoscaling/cpu created\n");
  // SetDefaults_HorizontalPodAutoscaler: minReplicas 1, CPU at 80% utilization.
  EXPECT_EQ(kubectl("get hpa cpu -o jsonpath={.spec.minReplicas}/{.spec.metrics}").out,
            R"(1/[{"resource":{"name":"cpu","target":{"averageUtilization":80,)"
            R"("type":"Utilization"}},"type":"Resource"}])");
  EXPECT_EQ(kubectl("get hpa cpu -o jsonpath={.metadata.generation}").out, "1");

  std::string two_metrics =
      "  minReplicas: 2\n  maxReplicas: 10\n  metrics:\n"
      "  - type: Resource\n    resource: {name: memory, target: {type: AverageValue, "
      "averageValue: 512Mi}}\n"
      "  - type: Pods\n    pods: {metric: {name: qps}, target: {type: AverageValue, "
      "averageValue: \"1000m\"}}\n"
      "  - type: External\n    external: {metric: {name: queue}, target: {type: Value, value: "
      "\"30\"}}\n";
  ASSERT_EQ(apply("mixed", hpa("mixed", two_metrics)).exit_code, 0);
  r = kubectl("get hpa");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(columns(r.out),
            "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE\n"
            "cpu Deployment/web cpu: <unknown>/80% 1 5 0\n"
            "mixed Deployment/web memory: <unknown>/512Mi, <unknown>/1 + 1 more... 2 10 0\n");
}

TEST_F(HpaKubectlTest, StatusFillsCurrentValuesAndReplicas) {
  ASSERT_EQ(apply("cpu", hpa("cpu", "  maxReplicas: 5\n")).exit_code, 0);
  KubectlResult r = kubectl(
      "patch hpa cpu --subresource status --type merge -p "
      "'{\"status\":{\"currentReplicas\":3,\"desiredReplicas\":3,\"currentMetrics\":[{\"type\":"
      "\"Resource\",\"resource\":{\"name\":\"cpu\",\"current\":{\"averageUtilization\":42,"
      "\"averageValue\":\"120m\"}}}]}}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(columns(kubectl("get hpa cpu").out),
            "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE\n"
            "cpu Deployment/web cpu: 42%/80% 1 5 3\n");
}

TEST_F(HpaKubectlTest, SecondApplyChangesSpecAndGeneration) {
  ASSERT_EQ(apply("cpu", hpa("cpu", "  maxReplicas: 5\n")).exit_code, 0);
  KubectlResult r = apply("cpu", hpa("cpu", "  maxReplicas: 8\n"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "horizontalpodautoscaler.autoscaling/cpu configured\n");
  EXPECT_EQ(kubectl("get hpa cpu -o jsonpath={.spec.maxReplicas}/{.metadata.generation}").out,
            "8/2");
}

TEST_F(HpaKubectlTest, BehaviorGetsTheControllersDefaults) {
  ASSERT_EQ(apply("b", hpa("b",
                           "  maxReplicas: 5\n  behavior:\n    scaleDown:\n"
                           "      stabilizationWindowSeconds: 60\n"))
                .exit_code,
            0);
  EXPECT_EQ(kubectl("get hpa b -o jsonpath={.spec.behavior}").out,
            R"({"scaleDown":{"policies":[{"periodSeconds":15,"type":"Percent","value":100}],)"
            R"("selectPolicy":"Max","stabilizationWindowSeconds":60},)"
            R"("scaleUp":{"policies":[{"periodSeconds":15,"type":"Pods","value":4},)"
            R"({"periodSeconds":15,"type":"Percent","value":100}],"selectPolicy":"Max",)"
            R"("stabilizationWindowSeconds":0}})");
}

// validateHorizontalPodAutoscalerSpec's messages, as kubectl prints the 422.
TEST_F(HpaKubectlTest, InvalidSpecsAreRejected) {
  struct Case {
    std::string spec_tail;
    std::string err;
  };
  const std::string prefix = "The HorizontalPodAutoscaler \"bad\" is invalid: ";
  const Case cases[] = {
      {"  minReplicas: 7\n  maxReplicas: 5\n",
       "spec.maxReplicas: Invalid value: 5: must be greater than or equal to `minReplicas`\n"},
      {"  maxReplicas: 0\n",
       "\n* spec.maxReplicas: Invalid value: 0: must be greater than 0\n"
       "* spec.maxReplicas: Invalid value: 0: must be greater than or equal to `minReplicas`\n"},
      {"  minReplicas: 0\n  maxReplicas: 3\n",
       "spec.minReplicas: Invalid value: 0: must be greater than or equal to 1\n"},
      {"  maxReplicas: 3\n  metrics:\n  - type: Resource\n"
       "    resource: {name: memory, target: {type: Utilization}}\n",
       "spec.metrics[0].resource.target.averageUtilization: Required value: must set either a "
       "target raw value or a target utilization\n"},
  };
  for (const Case& c : cases) {
    KubectlResult r = apply("bad", hpa("bad", c.spec_tail));
    EXPECT_EQ(r.exit_code, 1) << c.spec_tail;
    EXPECT_EQ(r.err, prefix + c.err);
  }
  KubectlResult r = apply("noref",
                          "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\n"
                          "metadata: {name: noref}\nspec: {maxReplicas: 2, "
                          "scaleTargetRef: {name: web}}\n");
  EXPECT_NE(r.err.find("spec.scaleTargetRef.kind: Required value"), std::string::npos) << r.err;
  EXPECT_EQ(kubectl("get hpa").err, "No resources found in default namespace.\n");
}

// kubectl autoscale POSTs autoscaling/v1: served from the stored v2 objects, converted both ways.
TEST_F(HpaKubectlTest, AutoscaleCreatesThroughAutoscalingV1) {
  ASSERT_EQ(kubectl("create deployment web --image=nginx").exit_code, 0);
  KubectlResult r = kubectl("autoscale deployment web --cpu-percent=50 --min=1 --max=3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "horizontalpodautoscaler.autoscaling/web autoscaled\n");
  EXPECT_EQ(columns(kubectl("get hpa").out),
            "NAME REFERENCE TARGETS MINPODS MAXPODS REPLICAS AGE\n"
            "web Deployment/web cpu: <unknown>/50% 1 3 0\n");
  EXPECT_EQ(kubectl("get horizontalpodautoscalers.v2.autoscaling web -o "
                    "jsonpath={.apiVersion}/{.spec.metrics}")
                .out,
            R"(autoscaling/v2/[{"resource":{"name":"cpu","target":{"averageUtilization":50,)"
            R"("type":"Utilization"}},"type":"Resource"}])");
  EXPECT_EQ(kubectl("get horizontalpodautoscalers.v1.autoscaling web -o "
                    "jsonpath={.apiVersion}/{.spec.targetCPUUtilizationPercentage}")
                .out,
            "autoscaling/v1/50");
  r = kubectl("get --raw /apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers");
  EXPECT_NE(r.out.find(R"("kind":"HorizontalPodAutoscalerList","apiVersion":"autoscaling/v1")"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"("targetCPUUtilizationPercentage":50)"), std::string::npos) << r.out;
  r = kubectl(
      "get --raw "
      "'/apis/autoscaling/v1/namespaces/default/"
      "horizontalpodautoscalers?watch=1&timeoutSeconds=1'");
  EXPECT_NE(r.out.find(R"({"type":"ADDED","object":{"apiVersion":"autoscaling/v1",)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(R"("targetCPUUtilizationPercentage":50)"), std::string::npos) << r.out;
}

// A v1 patch applies to the v1 form; the metrics v1 cannot name survive in the annotation.
TEST_F(HpaKubectlTest, V1PatchKeepsTheOtherMetrics) {
  ASSERT_EQ(
      kubectl("create -f " +
              write("mixed.yaml", hpa("mixed",
                                      "  maxReplicas: 4\n  metrics:\n  - type: Resource\n"
                                      "    resource: {name: memory, target: {type: AverageValue, "
                                      "averageValue: 512Mi}}\n  - type: Resource\n"
                                      "    resource: {name: cpu, target: {type: Utilization, "
                                      "averageUtilization: 70}}\n")))
          .exit_code,
      0);
  EXPECT_EQ(
      kubectl(
          "get horizontalpodautoscalers.v1.autoscaling mixed -o jsonpath={.metadata.annotations}")
          .out,
      R"({"autoscaling.alpha.kubernetes.io/metrics":"[{\"type\":\"Resource\",)"
      R"(\"resource\":{\"name\":\"memory\",\"targetAverageValue\":\"512Mi\"}}]"})");
  KubectlResult r = kubectl(
      "patch horizontalpodautoscalers.v1.autoscaling mixed --type merge -p "
      "'{\"spec\":{\"targetCPUUtilizationPercentage\":60}}'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "horizontalpodautoscaler.autoscaling/mixed patched\n");
  EXPECT_EQ(kubectl("get horizontalpodautoscalers.v2.autoscaling mixed -o "
                    "jsonpath={.spec.metrics[*].resource.name}/"
                    "{.spec.metrics[1].resource.target.averageUtilization}/"
                    "{.metadata.annotations}/{.metadata.generation}")
                .out,
            "memory cpu/60//2");
}

TEST_F(HpaKubectlTest, DiscoveryPrefersV2AndServesV1) {
  KubectlResult r = kubectl("get --raw /apis/autoscaling");
  EXPECT_NE(r.out.find(R"("preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"})"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(kubectl("api-versions").out.find("autoscaling/v1\n") != std::string::npos, true);
}

}  // namespace
}  // namespace tailor::embedded::testing
