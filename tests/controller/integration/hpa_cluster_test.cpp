// A Deployment scaled by a HorizontalPodAutoscaler on CPU, under a policy: tailor-controller
// (informers on a live tailor-cluster, judged through the real kubectl) resizes its memory and
// leaves its CPU alone, with the HorizontalScalerConflict condition and event.
#include <gtest/gtest.h>

#include <thread>

#include "controller/app/controller.h"
#include "controller/webhook/webhook_server.h"
#include "kube/client/rest_client.h"
#include "tests/controller/integration/controller_cluster.h"

namespace tailor::controller {
namespace {

constexpr const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
 "metadata":{"name":"web"},
 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
   "template":{"metadata":{"labels":{"app":"web"}},
     "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})";

constexpr const char* kPolicy = R"(apiVersion: autoscaling.tailor.dev/v1alpha1
kind: VerticalScalingPolicy
metadata: {name: web}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {mode: InPlaceOrRecreate}
)";

constexpr const char* kHpa = R"(apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web-cpu}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  minReplicas: 1
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
)";

class HpaClusterTest : public testing::OneNodePlayedTest<
                           testing::WebhookClusterTest<embedded::testing::KubectlClusterTest>> {
 protected:
  // A pod of ReplicaSet web-5d9, as its controller would make it.
  std::string pod_json(const std::string& name) {
    return R"({"apiVersion":"v1","kind":"Pod",
     "metadata":{"name":")" +
           name + R"(","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1",
       "kind":"ReplicaSet","name":"web-5d9","uid":")" +
           uid_of("replicaset web-5d9") + R"(","controller":true}]},
     "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"busybox",
       "resources":{"requests":{"cpu":"100m","memory":"100Mi"},
                    "limits":{"cpu":"200m","memory":"200Mi"}}}]}})";
  }

  // Deployment web -> ReplicaSet web-5d9 -> Pod web-1, as the controllers would make them.
  void SetUp() override {
    WebhookClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crd());
    create("deployment", kDeployment);
    create("replicaset", R"({"apiVersion":"apps/v1","kind":"ReplicaSet",
     "metadata":{"name":"web-5d9","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1",
       "kind":"Deployment","name":"web","uid":")" +
                             uid_of("deployment web") + R"(","controller":true}]},
     "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
       "template":{"metadata":{"labels":{"app":"web"}},
         "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})");
    create("pod", pod_json("web-1"));
    ASSERT_NO_FATAL_FAILURE(report_running());
    write("vsp.yaml", kPolicy);
    ASSERT_EQ(kubectl("apply -f vsp.yaml").exit_code, 0);
    write("hpa.yaml", kHpa);
    auto hpa = kubectl("apply -f hpa.yaml");
    ASSERT_EQ(hpa.exit_code, 0) << hpa.err;
    client_ = std::make_unique<kube::RestClient>(rest_config());
  }

  // Two hours of the app using a whole core and 400 MiB, ending now.
  static void feed_usage(Controller& c) { testing::feed_usage(c, testing::kBusyApp); }

  std::unique_ptr<Controller> start_controller() {
    ControllerOptions o;
    o.view.watch_vpa = false;
    o.strategy = "vpa";
    auto c = std::make_unique<Controller>(*client_, o);
    c->start();
    EXPECT_TRUE(c->wait_for_sync(std::chrono::seconds(10)));
    // The HPA informer is optional (not waited for): give it the moment the others had.
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    return c;
  }

  static kube::TimePoint now() { return kube::TimePoint(std::chrono::system_clock::now()); }

  std::unique_ptr<kube::RestClient> client_;
};

TEST_F(HpaClusterTest, CpuIsLeftToTheHpaAndMemoryIsResized) {
  auto started = start_controller();
  Controller& c = *started;
  c.run_pass(now());  // learns which pod is under which policy
  feed_usage(c);
  ASSERT_EQ(c.run_pass(now()), 1u);

  auto condition = kubectl(
      "get vsp web -o 'jsonpath={.status.conditions[?(@.type==\"HorizontalScalerConflict\")]."
      "message}'");
  EXPECT_EQ(condition.out,
            "HorizontalPodAutoscaler web-cpu scales Deployment web on cpu; Tailor leaves cpu alone")
      << condition.err;
  auto resources = kubectl(
      "get pod web-1 -o 'jsonpath={.spec.containers[0].resources.requests.cpu} "
      "{.spec.containers[0].resources.limits.cpu} "
      "{.spec.containers[0].resources.requests.memory}'");
  EXPECT_EQ(resources.out.substr(0, resources.out.rfind(' ')), "100m 200m") << resources.out;
  EXPECT_NE(resources.out.substr(resources.out.rfind(' ') + 1), "100Mi") << resources.out;
  // The recommendation is still published for cpu (the HPA may go one day).
  auto target = kubectl(
      "get vsp web -o 'jsonpath={.status.recommendation.containerRecommendations[0].target.cpu}'");
  EXPECT_FALSE(target.out.empty());
  // Events are sent in the background: one, on the policy.
  embedded::testing::KubectlResult event{};
  for (int i = 0; i < 50 && event.out.empty(); ++i) {
    if (i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    event = kubectl(
        "get events --field-selector reason=HorizontalScalerConflict "
        "-o 'jsonpath={.items[*].involvedObject.kind}'");
  }
  EXPECT_EQ(event.out, "VerticalScalingPolicy") << event.err;
}

// A new pod of the same ReplicaSet (a scale-out by the HPA): the webhook sets its memory and
// leaves its cpu as the template has it.
TEST_F(HpaClusterTest, WebhookLeavesTheHpasResourceToo) {
  auto c = start_controller();
  auto hook = serve_webhook(*c);
  ASSERT_TRUE(hook);
  c->run_pass(now());
  feed_usage(*c);
  c->run_pass(now());
  create("pod2", pod_json("web-2"));
  auto resources = kubectl(
      "get pod web-2 -o 'jsonpath={.spec.containers[0].resources.requests.cpu} "
      "{.spec.containers[0].resources.limits.cpu} "
      "{.spec.containers[0].resources.requests.memory}'");
  auto target = kubectl(
      "get vsp web -o "
      "'jsonpath={.status.recommendation.containerRecommendations[0].target.memory}'");
  ASSERT_FALSE(target.out.empty());
  EXPECT_EQ(resources.out, "100m 200m " + target.out);
  EXPECT_GE(hook->stats().patched, 1u);
}

}  // namespace
}  // namespace tailor::controller
