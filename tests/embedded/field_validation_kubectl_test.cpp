// fieldValidation through the real kubectl (1.32 sends fieldValidation=Strict unless told
// --validate=warn|false): a re-apply is a strategic merge patch whose unknown field is the patch
// handler's 422, and autoscaling/v1 HorizontalPodAutoscalers (served from v2) reject their unknown
// fields as every kind does.
#include <gtest/gtest.h>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

using Result = KubectlResult;

const char* kConfigMap =
    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"1\"\n";

std::string hpa_v1(const std::string& extra_spec = "") {
  return "apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: web\n"
         "spec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}\n"
         "  minReplicas: 1\n  maxReplicas: 3\n  targetCPUUtilizationPercentage: 50\n" +
         extra_spec;
}

class FieldValidationKubectlTest : public ApiOnlyKubectlTest {};

TEST_F(FieldValidationKubectlTest, ReapplyWithAnUnknownFieldIsAnInvalidPatch) {
  ASSERT_EQ(kubectl("apply -f " + write("cm.yaml", kConfigMap)).exit_code, 0);
  write("cm.yaml", std::string(kConfigMap) + "datta:\n  b: \"2\"\n");
  Result strict = kubectl("apply -f cm.yaml");
  EXPECT_EQ(strict.exit_code, 1);
  // The value is the patch kubectl computed, as Go prints a map (keys sorted, strings bare).
  EXPECT_EQ(
      strict.err,
      R"(The request is invalid: patch: Invalid value: "map[datta:map[b:2] metadata:map[annotations:map[kubectl.kubernetes.io/last-applied-configuration:{\"apiVersion\":\"v1\",\"data\":{\"a\":\"1\"},\"datta\":{\"b\":\"2\"},\"kind\":\"ConfigMap\",\"metadata\":{\"annotations\":{},\"name\":\"conf\",\"namespace\":\"default\"}}\n]]]": strict decoding error: unknown field "datta")"
      "\n");
  // Nothing was stored: the last applied configuration is still the first one.
  EXPECT_EQ(kubectl("get cm conf -o yaml").out.find("datta"), std::string::npos);
  Result warned = kubectl("apply -f cm.yaml --validate=warn");
  ASSERT_EQ(warned.exit_code, 0) << warned.err;
  EXPECT_EQ(warned.err, "Warning: unknown field \"datta\"\n");
  EXPECT_EQ(warned.out, "configmap/conf configured\n");
}

// kubectl create: without --validate a strict decoding error (400), as for every kind, and
// autoscaling/v1 HorizontalPodAutoscalers (served from v2) too; --validate=warn creates the object
// without the unknown field and prints the warning.
TEST_F(FieldValidationKubectlTest, CreateWithUnknownFieldsFollowsValidate) {
  struct Case {
    const char* file;
    std::string manifest;
    const char* strict_error;
    const char* warning;
    const char* created;
    const char* get;      // prints the stored object
    const char* unknown;  // the field it must not hold
  };
  const Case cases[] = {
      {"cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndatta:\n  a: \"1\"\n",
       "Error from server (BadRequest): error when creating \"cm.yaml\": ConfigMap in version "
       "\"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"datta\"\n",
       "Warning: unknown field \"datta\"\n", "configmap/conf created\n", "get cm conf -o yaml",
       "datta"},
      {"hpa.yaml", hpa_v1("  colour: blue\n"),
       "Error from server (BadRequest): error when creating \"hpa.yaml\": "
       "HorizontalPodAutoscaler in version \"v1\" cannot be handled as a "
       "HorizontalPodAutoscaler: strict decoding error: unknown field \"spec.colour\"\n",
       "Warning: unknown field \"spec.colour\"\n",
       "horizontalpodautoscaler.autoscaling/web created\n", "get hpa.v1.autoscaling web -o yaml",
       "colour"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    write(c.file, c.manifest);
    Result strict = kubectl(std::string("create -f ") + c.file);
    EXPECT_EQ(strict.exit_code, 1);
    EXPECT_EQ(strict.err, c.strict_error);
    Result warned = kubectl(std::string("create -f ") + c.file + " --validate=warn");
    ASSERT_EQ(warned.exit_code, 0) << warned.err;
    EXPECT_EQ(warned.err, c.warning);
    EXPECT_EQ(warned.out, c.created);
    EXPECT_EQ(kubectl(c.get).out.find(c.unknown), std::string::npos) << c.get;
  }
}

}  // namespace
}  // namespace tailor::embedded::testing
