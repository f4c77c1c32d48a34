// PUT of a whole pod to pods/{name}/resize with the real kubectl (`kubectl replace --subresource
// resize`): as kube-apiserver 1.33+ (podResizeStrategy), the stored pod takes only the containers'
// resources and resizePolicy from the request, keeps the request's resourceVersion as a
// precondition, and bumps metadata.generation when the spec changes.
#include <boost/json.hpp>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

const char* kPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
 "spec":{"containers":[{"name":"app","image":"nginx:1.25","resources":{
   "requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}]}})";

class ResizePutTest : public ApiOnlyKubectlTest {
 protected:
  void SetUp() override {
    ApiOnlyKubectlTest::SetUp();
    if (HasFatalFailure()) return;
    create("web", kPod);
  }

  bj::object get_pod() {
    KubectlResult r = kubectl("get pod web -o json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return bj::parse(r.out).as_object();
  }

  static bj::object& container(bj::object& pod) {
    return pod["spec"].as_object()["containers"].as_array()[0].as_object();
  }

  KubectlResult put_resize(const bj::object& pod, const std::string& how = "--subresource resize") {
    return kubectl("replace " + how + " -f " + write("put.json", bj::serialize(pod)));
  }
};

TEST_F(ResizePutTest, ResourcesOfTheRequestAreApplied) {
  bj::object pod = get_pod();
  container(pod)["resources"] = bj::parse(
      R"({"requests":{"cpu":"150m","memory":"128Mi"},"limits":{"cpu":"300m","memory":"256Mi"}})");
  KubectlResult r = put_resize(pod);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web replaced\n");

  bj::object stored = get_pod();
  EXPECT_EQ(stored["metadata"].as_object()["generation"].as_int64(), 2);
  bj::object& resources = container(stored)["resources"].as_object();
  EXPECT_EQ(resources["requests"].as_object()["cpu"].as_string(), "150m");
  EXPECT_EQ(resources["limits"].as_object()["cpu"].as_string(), "300m");
  EXPECT_EQ(resources["requests"].as_object()["memory"].as_string(), "128Mi");
}

TEST_F(ResizePutTest, RawPutToTheSubresourceIsTheSame) {
  bj::object pod = get_pod();
  container(pod)["resources"].as_object()["requests"].as_object()["memory"] = "200Mi";
  KubectlResult r = put_resize(pod, "--raw /api/v1/namespaces/default/pods/web/resize");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bj::object answered = bj::parse(r.out).as_object();  // the stored pod
  EXPECT_EQ(answered["metadata"].as_object()["generation"].as_int64(), 2);
  EXPECT_EQ(container(answered)["resources"].as_object()["requests"].as_object()["memory"],
            "200Mi");
}

TEST_F(ResizePutTest, EverythingButResourcesIsIgnored) {
  bj::object pod = get_pod();
  bj::object& meta = pod["metadata"].as_object();
  meta["labels"] = bj::object{{"app", "other"}};
  meta["annotations"] = bj::object{{"note", "x"}};
  container(pod)["image"] = "nginx:9";
  container(pod)["env"] = bj::array{bj::object{{"name", "A"}, {"value", "1"}}};
  pod["spec"].as_object()["activeDeadlineSeconds"] = 30;
  pod["status"].as_object()["phase"] = "Running";
  container(pod)["resources"].as_object()["requests"].as_object()["cpu"] = "120m";
  KubectlResult r = put_resize(pod);
  ASSERT_EQ(r.exit_code, 0) << r.err;

  bj::object stored = get_pod();
  bj::object& stored_meta = stored["metadata"].as_object();
  EXPECT_EQ(bj::serialize(stored_meta["labels"]), R"({"app":"web"})");
  EXPECT_FALSE(stored_meta.contains("annotations"));
  EXPECT_EQ(container(stored)["image"].as_string(), "nginx:1.25");
  EXPECT_FALSE(container(stored).contains("env"));
  EXPECT_FALSE(stored["spec"].as_object().contains("activeDeadlineSeconds"));
  EXPECT_EQ(stored["status"].as_object()["phase"].as_string(), "Pending");
  EXPECT_EQ(container(stored)["resources"].as_object()["requests"].as_object()["cpu"], "120m");
  EXPECT_EQ(stored_meta["generation"].as_int64(), 2);
}

TEST_F(ResizePutTest, OnlyOtherChangesLeaveThePodAsItWas) {
  bj::object before = get_pod();
  bj::object pod = before;
  container(pod)["image"] = "nginx:9";
  KubectlResult r = put_resize(pod);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web replaced\n");
  bj::object after = get_pod();
  EXPECT_EQ(after["metadata"].as_object()["generation"].as_int64(), 1);
  EXPECT_EQ(after["metadata"].as_object()["resourceVersion"],
            before["metadata"].as_object()["resourceVersion"]);
  EXPECT_EQ(container(after)["image"].as_string(), "nginx:1.25");
}

TEST_F(ResizePutTest, StaleResourceVersionIsAConflict) {
  bj::object stale = get_pod();
  bj::object pod = stale;
  container(pod)["resources"].as_object()["requests"].as_object()["cpu"] = "150m";
  ASSERT_EQ(put_resize(pod).exit_code, 0);
  container(stale)["resources"].as_object()["requests"].as_object()["cpu"] = "110m";
  KubectlResult r = put_resize(stale);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Conflict): error when replacing \"put.json\": Operation cannot be "
            "fulfilled on pods \"web\": the object has been modified; please apply your changes "
            "to the latest version and try again\n");
  bj::object stored = get_pod();
  EXPECT_EQ(container(stored)["resources"].as_object()["requests"].as_object()["cpu"], "150m");
}

TEST_F(ResizePutTest, InvalidResizeIsRejectedWithTheFieldErrors) {
  bj::object pod = get_pod();
  container(pod)["resources"].as_object()["requests"].as_object()["cpu"] = "1";
  KubectlResult r = put_resize(pod);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "The Pod \"web\" is invalid: spec.containers[0].resources.requests: Invalid value: "
            "\"1\": must be less than or equal to cpu limit of 200m\n");
}

}  // namespace
}  // namespace tailor::embedded::testing
