// `kubectl patch pod --subresource resize` against tailor-cluster: what kubectl prints on success
// and on each rejection, and that plain pod patches cannot change resources.
#include <boost/json.hpp>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

const char* kPod = R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
 "spec":{"containers":[{"name":"app","image":"nginx:1.25","resources":{
   "requests":{"cpu":"100m","memory":"128Mi","ephemeral-storage":"1Gi"},
   "limits":{"cpu":"200m","memory":"256Mi"}}}]}})";

class ResizeKubectlTest : public ApiOnlyKubectlTest {
 protected:
  void SetUp() override {
    ApiOnlyKubectlTest::SetUp();
    if (HasFatalFailure()) return;
    create("web", kPod);
  }

  KubectlResult resize(const std::string& patch, const std::string& type = "strategic") {
    return kubectl("patch pod web --subresource resize --type " + type + " -p '" + patch + "'");
  }

  std::string jsonpath(const std::string& path) {
    KubectlResult r = kubectl("get pod web -o jsonpath='{" + path + "}'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
};

TEST_F(ResizeKubectlTest, ValidResizeBumpsGeneration) {
  EXPECT_EQ(jsonpath(".metadata.generation"), "1");
  KubectlResult r = resize(
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"},"limits":{"cpu":"300m"}}}]}})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web patched\n");
  EXPECT_EQ(jsonpath(".metadata.generation"), "2");
  EXPECT_EQ(jsonpath(".spec.containers[0].resources.requests.cpu"), "150m");
  EXPECT_EQ(jsonpath(".spec.containers[0].resources.limits.cpu"), "300m");
  EXPECT_EQ(jsonpath(".status.qosClass"), "Burstable");
}

TEST_F(ResizeKubectlTest, JsonPatchAndNoChange) {
  KubectlResult r = resize(
      R"([{"op":"replace","path":"/spec/containers/0/resources/requests/memory","value":"200Mi"}])",
      "json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web patched\n");
  r = resize(
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"memory":"200Mi"}}}]}})",
      "strategic");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web patched (no change)\n");
  EXPECT_EQ(jsonpath(".metadata.generation"), "2");
}

TEST_F(ResizeKubectlTest, OtherFieldsOfTheRequestAreIgnored) {
  KubectlResult r = resize(
      R"({"metadata":{"labels":{"x":"y"}},"spec":{"containers":[{"name":"app","image":"nginx:9","resources":{"requests":{"cpu":"120m"}}}]}})");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(jsonpath(".spec.containers[0].image"), "nginx:1.25");
  EXPECT_EQ(jsonpath(".metadata.labels"), "");
  EXPECT_EQ(jsonpath(".spec.containers[0].resources.requests.cpu"), "120m");
}

TEST_F(ResizeKubectlTest, QosChangeIsInvalid) {
  KubectlResult r = resize(
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"200m","memory":"256Mi"}}}]}})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: spec: Invalid value: \"Burstable\": Pod QOS Class may not "
            "change as a result of resizing\n");
}

TEST_F(ResizeKubectlTest, OnlyCpuAndMemoryAreMutable) {
  KubectlResult r = resize(
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"ephemeral-storage":"2Gi"}}}]}})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: spec: Forbidden: only cpu and memory resources are "
            "mutable\n");
}

TEST_F(ResizeKubectlTest, LimitsCannotBeRemoved) {
  KubectlResult r =
      resize(R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":null}}}]}})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: spec.containers[0].resources.limits: Forbidden: resource "
            "limits cannot be removed\n");
}

TEST_F(ResizeKubectlTest, ContainersMayNotBeRenamed) {
  KubectlResult r =
      resize(R"({"spec":{"containers":[{"name":"other","resources":{"requests":{"cpu":"1"}}}]}})",
             "merge");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: spec.containers[0].name: Forbidden: containers may not "
            "be renamed or reordered on resize\n");
  EXPECT_EQ(jsonpath(".spec.containers[0].name"), "app");
}

TEST_F(ResizeKubectlTest, SeveralCausesArePrintedOnePerLine) {
  KubectlResult r = resize(
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1","ephemeral-storage":"2Gi"}}}]}})");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: \n"
            "* spec.containers[0].resources.requests: Invalid value: \"1\": must be less than or "
            "equal to cpu limit of 200m\n"
            "* spec: Forbidden: only cpu and memory resources are mutable\n");
}

TEST_F(ResizeKubectlTest, PlainPatchCannotChangeResources) {
  KubectlResult r = kubectl(
      R"(patch pod web -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]}}')");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(r.err.starts_with(
      "The Pod \"web\" is invalid: spec: Forbidden: pod updates may not change fields other than "
      "`spec.containers[*].image`,"))
      << r.err;
  EXPECT_EQ(jsonpath(".spec.containers[0].resources.requests.cpu"), "100m");
  // The image stays mutable through a plain patch.
  r = kubectl(
      R"(patch pod web -p '{"spec":{"containers":[{"name":"app","image":"nginx:1.26"}]}}')");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(ResizeKubectlTest, GetOnTheSubresourceReturnsThePod) {
  KubectlResult r = kubectl("get --raw /api/v1/namespaces/default/pods/web/resize");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  boost::json::object pod = boost::json::parse(r.out).as_object();
  EXPECT_EQ(pod["kind"].as_string(), "Pod");
  EXPECT_EQ(pod["metadata"].as_object()["name"].as_string(), "web");
}

}  // namespace
}  // namespace tailor::embedded::testing
