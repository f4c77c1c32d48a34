// Invalid pods through the real kubectl (`create -f` and `apply -f`): each is refused with what
// kubectl prints for kube-apiserver's answer, nothing is stored, and quantities kube-apiserver
// accepts with surrounding whitespace are stored canonical, so the pod can be resized.
#include <gtest/gtest.h>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class PodValidationKubectlTest : public ApiOnlyKubectlTest {
 protected:
  // A pod "web" with one container "app" whose resources are `resources` (a JSON object).
  std::string pod_file(const std::string& file, const std::string& resources) {
    return write(file, R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
      "spec":{"containers":[{"name":"app","image":"nginx","resources":)" +
                           resources + "}]}}");
  }

  void expect_nothing_stored() {
    KubectlResult r = kubectl("get pods -o name");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "");
  }
};

struct BadPod {
  const char* resources;
  std::string printed;  // kubectl's stderr
};

TEST_F(PodValidationKubectlTest, EachInvalidPodIsRefusedWithUpstreamsMessage) {
  const std::string invalid = "The Pod \"web\" is invalid: ";
  const std::string at = "spec.containers[0].resources.";
  const BadPod cases[] = {
      {R"({"requests":{"cpu":"-1"}})",
       invalid + at + "requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0\n"},
      {R"({"limits":{"cpu":"-5","memory":"64Mi"}})",
       invalid + "\n* " + at + "limits[cpu]: Invalid value: \"-5\": must be greater than or " +
           "equal to 0\n* " + at + "requests[cpu]: Invalid value: \"-5\": must be greater " +
           "than or equal to 0\n"},
      {R"({"requests":{"memory":"2Gi"},"limits":{"memory":"1Gi"}})",
       invalid + at + "requests: Invalid value: \"2Gi\": must be less than or equal to memory " +
           "limit of 1Gi\n"},
      {R"({"requests":{"BAD RESOURCE":"1"}})",
       invalid + "\n* " + at + "requests[BAD RESOURCE]: Invalid value: \"BAD RESOURCE\": name " +
           "part must consist of alphanumeric characters, '-', '_' or '.', and must start and " +
           "end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', " +
           "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')\n* " + at +
           "requests[BAD RESOURCE]: Invalid value: \"BAD RESOURCE\": must be a standard resource " +
           "for containers\n"},
      {R"({"requests":{"cpu":"ten"}})",
       "Error from server (BadRequest): error when creating \"bad.json\": Pod in version \"v1\" "
       "cannot be handled as a Pod: quantities must match the regular expression "
       "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\n"},
  };
  for (const BadPod& c : cases) {
    SCOPED_TRACE(c.resources);
    KubectlResult r = kubectl("create -f " + pod_file("bad.json", c.resources));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err, c.printed);
    expect_nothing_stored();
  }
}

TEST_F(PodValidationKubectlTest, ApplyPrintsTheSameRefusal) {
  KubectlResult r = kubectl("apply -f " + pod_file("bad.json", R"({"requests":{"cpu":"-1"}})"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: spec.containers[0].resources.requests[cpu]: Invalid "
            "value: \"-1\": must be greater than or equal to 0\n");
  expect_nothing_stored();
}

TEST_F(PodValidationKubectlTest, ContainerNamesPortsAndProbes) {
  write("bad.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
    "spec":{"containers":[
      {"name":"app","image":"nginx","ports":[{"containerPort":70000}],
       "livenessProbe":{"periodSeconds":5}},
      {"name":"app","image":"busybox"}]}})");
  KubectlResult r = kubectl("create -f bad.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: \n"
            "* spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 "
            "and 65535, inclusive\n"
            "* spec.containers[0].livenessProbe: Required value: must specify a handler type\n"
            "* spec.containers[1].name: Duplicate value: \"app\"\n");
  expect_nothing_stored();
}

// ValidatePodUpdate validates the new pod's spec as a create does.
TEST_F(PodValidationKubectlTest, AnUpdateIsValidatedToo) {
  ASSERT_EQ(
      kubectl("create -f " + pod_file("web.json", R"({"requests":{"cpu":"100m"}})")).exit_code, 0);
  KubectlResult r =
      kubectl(R"(patch pod web -p '{"spec":{"containers":[{"name":"app","image":""}]}}')");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "The Pod \"web\" is invalid: spec.containers[0].image: Required value\n");
  EXPECT_EQ(kubectl("get pod web -o jsonpath='{.spec.containers[0].image}'").out, "nginx");
}

// ValidatePodTemplateSpec: a workload whose pods would be refused is refused itself, its errors
// named from the template.
TEST_F(PodValidationKubectlTest, WorkloadTemplatesAreValidatedAsPods) {
  write("deploy.yaml", R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: nginx, resources: {requests: {cpu: "-1"}}}
)");
  KubectlResult r = kubectl("apply -f deploy.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Deployment \"web\" is invalid: spec.template.spec.containers[0].resources."
            "requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0\n");
  write("cron.yaml", R"(apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - {name: job}
)");
  r = kubectl("create -f cron.yaml");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The CronJob \"nightly\" is invalid: "
            "spec.jobTemplate.spec.template.spec.containers[0].image: Required value\n");
  EXPECT_EQ(kubectl("get deployments,cronjobs -o name").out, "");
}

// kube-apiserver trims a quantity's surrounding whitespace while decoding and stores the
// canonical form; a pod so created resizes like any other.
TEST_F(PodValidationKubectlTest, WhitespaceQuantitiesAreStoredCanonicalAndResizable) {
  KubectlResult r = kubectl(
      "create -f " +
      pod_file("web.json", R"({"requests":{"cpu":" 10m","memory":"1Gi "},"limits":{"cpu":" 1"}})"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = kubectl("get pod web -o jsonpath='{.spec.containers[0].resources}'");
  EXPECT_EQ(r.out, R"({"limits":{"cpu":"1"},"requests":{"cpu":"10m","memory":"1Gi"}})");
  r = kubectl(
      "patch pod web --subresource resize -p "
      R"('{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":" 20m"}}}]}}')");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = kubectl("get pod web -o jsonpath='{.spec.containers[0].resources.requests.cpu}'");
  EXPECT_EQ(r.out, "20m");
}

}  // namespace
}  // namespace tailor::embedded::testing
