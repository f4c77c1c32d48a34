// tailor-controller's work against a live tailor-cluster, judged through the real kubectl: the
// policy CRD from the chart, a policy and a pod, usage windows, then passes.
#include "tests/controller/integration/controller_cluster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <thread>

#include "controller/app/controller.h"
#include "controller/app/quantities.h"
#include "controller/webhook/webhook_server.h"
#include "embedded/storage/status_error.h"
#include "kube/client/rest_client.h"
#include "recommender/replay.h"
#include "recommender/trace.h"

namespace tailor::controller {
namespace {

using embedded::ClusterOptions;
using testing::kVpaCrd;
using testing::policy_yaml;

constexpr const char* kPod = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-1","labels":{"app":"web"}},
 "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"busybox",
   "resources":{"requests":{"cpu":"100m","memory":"100Mi"},
                "limits":{"cpu":"200m","memory":"200Mi"}}}]}})";

class ControllerClusterTest
    : public testing::WebhookClusterTest<embedded::testing::KubectlClusterTest> {
 protected:
  virtual const char* nodes() const { return testing::kOneNode; }

  // The test plays the node: pod status is its own.
  ClusterOptions cluster_options() override {
    return testing::test_played_nodes(nodes_file(), nodes());
  }

  std::string nodes_file() const {
    return "/tmp/tailor-controller-nodes-" + std::to_string(::getpid()) + ".yaml";
  }

  void SetUp() override {
    WebhookClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crd());
    write("pod.json", kPod);
    ASSERT_EQ(kubectl("create -f pod.json").exit_code, 0);
    ASSERT_NO_FATAL_FAILURE(report_running());
    client_ = std::make_unique<kube::RestClient>(rest_config());
  }

  std::unique_ptr<Controller> start_controller() {
    ControllerOptions o;
    o.view.watch_vpa = false;
    return start_controller(o);
  }

  std::unique_ptr<Controller> start_controller(ControllerOptions o,
                                               const std::string& strategy = "vpa") {
    o.strategy = strategy;
    auto c = std::make_unique<Controller>(*client_, o);
    c->start();
    EXPECT_TRUE(c->wait_for_sync(std::chrono::seconds(10)));
    return c;
  }

  // The informers see what kubectl wrote a moment ago.
  void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }

  // A pass that learns which pod is under which policy (once the informers have seen it), then
  // two hours of the app using a whole core and 400 MiB, ending now.
  void learn_usage(Controller& c) {
    settle();
    c.run_pass(now());
    testing::feed_usage(c, testing::kBusyApp);
  }

  // A controller and the webhook that admits pods through it (stopped first).
  struct WebhookRun {
    std::unique_ptr<Controller> controller;
    std::unique_ptr<webhook::WebhookServer> hook;
  };

  // A controller under a policy of `mode`, its webhook registered, that has learned the app's
  // usage (no hook, with a failure, when kubectl refused the policy or the webhook).
  WebhookRun learn_with_webhook(const std::string& mode) {
    apply_policy(mode);
    if (HasFatalFailure()) return {};
    WebhookRun run{start_controller(), nullptr};
    run.hook = serve_webhook(*run.controller);
    if (run.hook) learn_usage(*run.controller);
    return run;
  }

  // The policy's published target for `resource` (cpu or memory) of its only container.
  embedded::testing::KubectlResult published_target(const std::string& resource) {
    return kubectl(
        "get vsp web -o 'jsonpath={.status.recommendation.containerRecommendations[0].target." +
        resource + "}'");
  }

  // A second pod like web-1, created through the API server (and so its admission webhooks).
  void create_second_pod() {
    std::string second = kPod;
    second.replace(second.find("web-1"), 5, "web-2");
    write("pod2.json", second);
    auto created = kubectl("create -f pod2.json");
    ASSERT_EQ(created.exit_code, 0) << created.err;
  }

  kube::TimePoint now() const { return kube::TimePoint(std::chrono::system_clock::now()); }

  std::unique_ptr<kube::RestClient> client_;
};

// Live and replay see the same inputs (issue 14, point 5), end to end: agent windows through
// Controller::on_usage, recorded by --record-usage, and the recording through `tailor replay`'s
// path give the policy's published target. The default strategy: its model does not depend on
// the requests the pod ran with, which replay decides for itself, as long as no window is twice
// over them (that ends a sample period early, sample_period.h): the pod is given 2 cores first,
// more than twice the usage below, and replay starts at the first period's peak, above half of it.
TEST_F(ControllerClusterTest, PublishesWhatAReplayOfItsRecordingRecommends) {
  apply_policy("Off");
  auto resized =
      kubectl(R"(patch pod web-1 --subresource resize -p '{"spec":{"containers":[{"name":"app",)"
              R"("resources":{"requests":{"cpu":"2"},"limits":{"cpu":"2"}}}]}}')");
  ASSERT_EQ(resized.exit_code, 0) << resized.err;
  ControllerOptions o;
  o.view.watch_vpa = false;
  o.record_usage = nodes_file() + ".usage.csv";
  std::filesystem::remove(o.record_usage);
  auto c = start_controller(o, "default");
  settle();
  c->run_pass(now());
  // Two hours of 15 s agent windows ending on the last period boundary: CPU cycling within each
  // period with bursts, its level stepping between periods; memory wandering within each period
  // to the same peak (replay starts the pod at the first period's peak: no OOM kill, which only
  // replay would simulate).
  const std::int64_t end = usage::unix_now_ms() / 300'000 * 300'000;
  for (std::int64_t i = 0; i < 480; ++i) {
    const std::int64_t start = end - 7'200'000 + i * 15'000;
    const double phase = static_cast<double>(i % 20) / 19;
    const double level = 0.2 * static_cast<double>(i / 20 % 3);
    c->on_usage({.node = "node-1",
                 .ns = "default",
                 .pod = "web-1",
                 .pod_uid = "uid-1",
                 .container = "app",
                 .start_unix_ms = start,
                 .end_unix_ms = start + 15'000,
                 .samples = 3,
                 .cpu_cores_mean = 0.3 + level + 0.5 * phase,
                 .cpu_cores_max = 0.4 + level + 1.2 * phase * phase,
                 .memory_working_set_max_bytes = (300 + 40 * phase) * 1024 * 1024,
                 .memory_peak_bytes = (302 + 40 * phase) * 1024 * 1024});
  }
  ASSERT_EQ(c->stats().windows, 480u) << "windows not matched to the policy";
  c->run_pass(now());

  recommender::TraceDiagnostics diag;
  const auto series = recommender::read_traces({o.record_usage}, diag);
  std::filesystem::remove(o.record_usage);
  ASSERT_EQ(diag.rows_rejected, 0u);
  ASSERT_EQ(series.size(), 1u);
  ASSERT_EQ(series[0].windows.size(), 24u);
  std::vector<recommender::TimelinePoint> timeline;
  recommender::replay_strategy(series[0], *recommender::make_default_strategy(), {}, &timeline);
  for (const recommender::TimelinePoint& p : timeline) {
    ASSERT_LE(p.memory_usage, p.memory_request) << "replay simulated an OOM kill at " << p.time;
  }
  const kube::ResourceList want = to_resource_list(timeline.back().target);
  EXPECT_EQ(published_target("cpu").out, kube::find_resource(want, "cpu")->to_string());
  EXPECT_EQ(published_target("memory").out, kube::find_resource(want, "memory")->to_string());
}

TEST_F(ControllerClusterTest, RecommendsAndResizesInPlace) {
  apply_policy("InPlaceOrRecreate");
  auto c = start_controller();
  learn_usage(*c);
  EXPECT_GT(c->stats().windows, 100u);
  EXPECT_EQ(c->run_pass(now()), 1u);
  EXPECT_EQ(c->stats().resizes, 1u);

  auto provided = kubectl(
      "get vsp web -o "
      "'jsonpath={.status.conditions[?(@.type==\"RecommendationProvided\")].status}'");
  EXPECT_EQ(provided.out, "True") << provided.err;
  auto target = published_target("cpu");
  EXPECT_FALSE(target.out.empty()) << target.err;
  // The resize went through pods/web-1/resize: desired resources changed, generation bumped.
  auto cpu = kubectl("get pod web-1 -o 'jsonpath={.spec.containers[0].resources.requests.cpu}'");
  EXPECT_NE(cpu.out, "100m");
  EXPECT_EQ(kubectl("get pod web-1 -o 'jsonpath={.metadata.generation}'").out, "2");
  auto events = kubectl("get events --field-selector reason=ResizeRequested -o name");
  EXPECT_FALSE(events.out.empty());
  // kubectl get vsp shows the printer columns with the target.
  auto table = kubectl("get vsp web");
  EXPECT_NE(table.out.find("InPlaceOrRecreate"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(target.out), std::string::npos) << table.out;
}

TEST_F(ControllerClusterTest, OffModeOnlyWritesStatus) {
  apply_policy("Off");
  auto c = start_controller();
  learn_usage(*c);
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(kubectl("get pod web-1 -o 'jsonpath={.metadata.generation}'").out, "1");
  auto target = published_target("memory");
  EXPECT_FALSE(target.out.empty());
}

TEST_F(ControllerClusterTest, TrackedResizeSurvivesARestart) {
  apply_policy("InPlaceOrRecreate");
  std::string uid = kubectl("get pod web-1 -o 'jsonpath={.metadata.uid}'").out;
  {
    auto c = start_controller();
    learn_usage(*c);
    ASSERT_EQ(c->run_pass(now()), 1u);
  }
  auto state =
      kubectl("get configmap tailor-controller-state -n kube-system -o 'jsonpath={.data.state}'");
  ASSERT_EQ(state.exit_code, 0) << state.err;
  EXPECT_NE(state.out.find(uid), std::string::npos) << state.out;
  // A new controller reads the state back: the resize in flight is followed, not sent again.
  auto again = start_controller();
  again->load_state();
  learn_usage(*again);
  EXPECT_EQ(again->run_pass(now()), 0u);
  EXPECT_EQ(again->stats().resizes, 0u);
}

TEST_F(ControllerClusterTest, InvalidPolicyGetsConfigInvalid) {
  write("bad.yaml", policy_yaml("InPlaceOrRecreate") + R"(  resourcePolicy:
    containerPolicies:
    - containerName: "*"
      minAllowed: {cpu: "2"}
      maxAllowed: {cpu: "1"}
)");
  ASSERT_EQ(kubectl("apply -f bad.yaml").exit_code, 0);
  auto c = start_controller();
  settle();
  EXPECT_EQ(c->run_pass(now()), 0u);
  auto invalid = kubectl(
      "get vsp web -o 'jsonpath={.status.conditions[?(@.type==\"ConfigInvalid\")].message}'");
  EXPECT_NE(invalid.out.find("maxAllowed"), std::string::npos) << invalid.out << invalid.err;
  settle();
  EXPECT_EQ(c->run_pass(now()), 0u);  // the condition is stored: nothing new to tell
  c.reset();                          // flushes the events
  // One Warning event on the policy, with the condition's message, for both passes.
  auto events = kubectl(
      "get events --field-selector reason=ConfigInvalid -o "
      "'jsonpath={range .items[*]}{.type} {.involvedObject.kind}/{.involvedObject.name} "
      "{.count} {.message}{\"\\n\"}{end}'");
  EXPECT_EQ(events.out, "Warning VerticalScalingPolicy/web 1 " + invalid.out + "\n") << events.err;
}

TEST_F(ControllerClusterTest, WebhookSizesNewPodsThroughTheApiServer) {
  auto run = learn_with_webhook("InPlaceOrRecreate");
  ASSERT_TRUE(run.hook);
  auto& c = run.controller;
  c->run_pass(now());
  ASSERT_NO_FATAL_FAILURE(create_second_pod());
  auto cpu = kubectl("get pod web-2 -o 'jsonpath={.spec.containers[0].resources.requests.cpu}'");
  EXPECT_NE(cpu.out, "100m") << "the webhook did not size the new pod";
  EXPECT_FALSE(cpu.out.empty());
  auto target = published_target("cpu");
  EXPECT_EQ(cpu.out, target.out);
  EXPECT_GE(run.hook->stats().patched, 1u);
}

std::string vpa_yaml(const std::string& name, const std::string& recommenders) {
  return R"(apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: )" +
         name + R"(, namespace: default}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {updateMode: InPlaceOrRecreate}
)" + recommenders;
}

// VPA objects another recommender acts on: no status written, no pod touched, and an event
// on each saying why (the pod's usage is still known to Tailor).
TEST_F(ControllerClusterTest, VpaObjectsOfAnotherRecommenderAreLeftAloneVisibly) {
  write("vpa-crd.yaml", kVpaCrd);
  ASSERT_EQ(kubectl("apply -f vpa-crd.yaml").exit_code, 0);
  ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=10s "
                    "crd/verticalpodautoscalers.autoscaling.k8s.io")
                .exit_code,
            0);
  write("vpas.yaml", vpa_yaml("other", "  recommenders: [{name: other}]\n") + "---\n" +
                         vpa_yaml("upstream", ""));
  auto applied = kubectl("apply -f vpas.yaml");
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  ControllerOptions o;
  o.view.watch_vpa = true;
  o.view.upstream_vpa_running = true;
  auto c = start_controller(o);
  // The VPA informer is not waited for by wait_for_sync (the CRD is optional).
  for (int i = 0; i < 50 && c->view().snapshot(now()).policies.size() < 2; ++i) settle();
  ASSERT_EQ(c->view().snapshot(now()).policies.size(), 2u);
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(c->run_pass(now()), 0u);
  c.reset();  // flushes the events
  auto statuses =
      kubectl("get verticalpodautoscalers other upstream -o 'jsonpath={.items[*].status}'");
  EXPECT_EQ(statuses.exit_code, 0) << statuses.err;
  EXPECT_EQ(statuses.out, "");
  EXPECT_EQ(kubectl("get pod web-1 -o 'jsonpath={.metadata.generation}'").out, "1");
  auto events = kubectl(
      "get events --field-selector reason=LeftToOtherRecommender --sort-by=.involvedObject.name "
      "-o 'jsonpath={range .items[*]}{.type} {.involvedObject.kind}/{.involvedObject.name} "
      "{.count} {.message}{\"\\n\"}{end}'");
  EXPECT_EQ(events.out,
            "Normal VerticalPodAutoscaler/other 1 spec.recommenders names \"other\", not Tailor; "
            "left to that recommender\n"
            "Normal VerticalPodAutoscaler/upstream 1 no spec.recommenders: the upstream VPA's "
            "default recommender acts on it\n")
      << events.err;
}

// Initial: the webhook sizes pods as they are created; running pods keep what they have.
TEST_F(ControllerClusterTest, InitialModeSizesOnlyNewPods) {
  auto run = learn_with_webhook("Initial");
  ASSERT_TRUE(run.hook);
  auto& c = run.controller;
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(c->stats().resizes + c->stats().recreations, 0u);
  auto running = kubectl(
      "get pod web-1 -o 'jsonpath={.metadata.generation} "
      "{.spec.containers[0].resources.requests.cpu} {.metadata.deletionTimestamp}'");
  EXPECT_EQ(running.out, "1 100m ") << running.err;
  ASSERT_NO_FATAL_FAILURE(create_second_pod());
  auto target = published_target("cpu");
  ASSERT_FALSE(target.out.empty()) << target.err;
  auto cpu = kubectl("get pod web-2 -o 'jsonpath={.spec.containers[0].resources.requests.cpu}'");
  EXPECT_EQ(cpu.out, target.out);
  EXPECT_GE(run.hook->stats().patched, 1u);
}

// A namespace quota the recommendation does not fit: the resize is refused with 403 "exceeded
// quota", which the policy's ResizeQuotaExceeded condition and an event on the pod say; the pod is
// not evicted (a new pod would not fit either), and the resize is tried again on later passes.
TEST_F(ControllerClusterTest, QuotaRefusedResizeIsToldAndRetriedWithoutEviction) {
  write("quota.yaml", R"(apiVersion: v1
kind: ResourceQuota
metadata: {name: cpu, namespace: default}
spec: {hard: {requests.cpu: 500m}}
)");
  ASSERT_EQ(kubectl("apply -f quota.yaml").exit_code, 0);
  apply_policy("InPlaceOrRecreate");
  auto c = start_controller();
  learn_usage(*c);
  EXPECT_EQ(c->run_pass(now()), 1u);  // the resize, refused
  settle();
  EXPECT_EQ(c->run_pass(now()), 1u);  // tried again
  EXPECT_EQ(c->stats().resizes, 0u);
  EXPECT_EQ(c->stats().resize_errors, 2u);
  EXPECT_EQ(c->stats().recreations, 0u);
  auto quota = kubectl(
      "get vsp web -o "
      "'jsonpath={.status.conditions[?(@.type==\"ResizeQuotaExceeded\")].message}'");
  EXPECT_NE(quota.out.find("exceeded quota: cpu"), std::string::npos) << quota.out << quota.err;
  EXPECT_EQ(kubectl("get pod web-1 -o 'jsonpath={.metadata.generation}'").out, "1");
  auto refused = kubectl(
      "get events --field-selector reason=ResizeRefused,involvedObject.name=web-1 "
      "-o 'jsonpath={.items[0].type}'");
  EXPECT_EQ(refused.out, "Warning") << refused.err;

  // With room in the quota the next pass resizes, and the one after clears the condition.
  ASSERT_EQ(kubectl("patch resourcequota cpu --type merge -p "
                    "'{\"spec\":{\"hard\":{\"requests.cpu\":\"4\"}}}'")
                .exit_code,
            0);
  EXPECT_EQ(c->run_pass(now()), 1u);
  EXPECT_EQ(c->stats().resizes, 1u);
  settle();
  c->run_pass(now());
  auto cleared = kubectl(
      "get vsp web -o "
      "'jsonpath={.status.conditions[?(@.type==\"ResizeQuotaExceeded\")].type}'");
  EXPECT_EQ(cleared.out, "") << cleared.err;
}

// An API server whose admission refuses every resize of web-1 as invalid (422), counting the
// requests that reach it.
class RefusedResizeClusterTest : public ControllerClusterTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = ControllerClusterTest::cluster_options();
    o.api.extensions.validating.push_back([sent = sent_](embedded::AdmissionRequest& r) {
      if (r.resource.resource != "pods" || r.subresource != "resize") return;
      ++*sent;
      throw embedded::invalid(
          "", "Pod", r.name,
          {{"FieldValueForbidden", "Forbidden: refused by the test's admission", "spec"}});
    });
    return o;
  }
  std::shared_ptr<std::atomic<int>> sent_ = std::make_shared<std::atomic<int>>(0);
};

// The refused resize is sent once, not on every pass; a change of the pod sends it again.
TEST_F(RefusedResizeClusterTest, RefusedResizeIsSentOnceUntilThePodChanges) {
  apply_policy("InPlaceOrRecreate");
  auto c = start_controller();
  learn_usage(*c);
  EXPECT_EQ(c->run_pass(now()), 1u);  // sent and refused
  EXPECT_EQ(sent_->load(), 1);
  for (int pass = 0; pass < 5; ++pass) EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(sent_->load(), 1);
  EXPECT_EQ(c->stats().resize_errors, 1u);
  EXPECT_EQ(c->stats().recreations, 0u);
  // A restarted controller reads the refusal back from its state and does not send it either.
  c.reset();
  c = start_controller();
  c->load_state();
  learn_usage(*c);
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(sent_->load(), 1);

  // A new image: the pod's generation moves, and the resize is tried once more.
  auto patched = kubectl(
      "patch pod web-1 -p "
      "'{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"busybox:1\"}]}}'");
  ASSERT_EQ(patched.exit_code, 0) << patched.err;
  EXPECT_EQ(kubectl("get pod web-1 -o 'jsonpath={.metadata.generation}'").out, "2");
  settle();
  EXPECT_EQ(c->run_pass(now()), 1u);
  EXPECT_EQ(sent_->load(), 2);
  EXPECT_EQ(c->run_pass(now()), 0u);
  EXPECT_EQ(sent_->load(), 2);
  c.reset();  // flushes the events
  auto refused = kubectl(
      "get events --field-selector reason=ResizeRefused,involvedObject.name=web-1 "
      "-o 'jsonpath={.items[*].message}'");
  EXPECT_NE(refused.out.find("refused by the test's admission"), std::string::npos)
      << refused.out << refused.err;
}

// A server without pods/resize answers 404 "the server could not find the requested resource"
// (before Kubernetes 1.33), or 405 where the subresource does not take PATCH: the pod is recreated
// through an eviction instead.
struct ResizeUnsupported {
  int code;
  const char* reason;
  const char* message;
};

class NoResizeClusterTest : public ControllerClusterTest,
                            public ::testing::WithParamInterface<ResizeUnsupported> {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = ControllerClusterTest::cluster_options();
    o.api.extensions.mutating.push_back([answer = GetParam()](embedded::AdmissionRequest& r) {
      if (r.resource.resource == "pods" && r.subresource == "resize") {
        throw embedded::StatusError(answer.code, answer.reason, answer.message);
      }
    });
    return o;
  }
};

INSTANTIATE_TEST_SUITE_P(
    Answers, NoResizeClusterTest,
    ::testing::Values(
        ResizeUnsupported{404, "NotFound", "the server could not find the requested resource"},
        ResizeUnsupported{405, "MethodNotAllowed",
                          "patch is not supported on resources of kind \"pods/resize\""}));

TEST_P(NoResizeClusterTest, PodIsRecreatedThroughEviction) {
  apply_policy("InPlaceOrRecreate");
  auto c = start_controller();
  learn_usage(*c);
  EXPECT_EQ(c->run_pass(now()), 1u);
  EXPECT_EQ(c->stats().resizes, 0u);
  EXPECT_EQ(c->stats().recreations, 1u);
  // Evicted: deleted gracefully (no kubelet here to finish it), its resources never patched.
  auto evicted = kubectl(
      "get pod web-1 -o 'jsonpath={.metadata.deletionTimestamp} "
      "{.metadata.generation} {.spec.containers[0].resources.requests.cpu}'");
  ASSERT_EQ(evicted.exit_code, 0) << evicted.err;
  EXPECT_NE(evicted.out.rfind(" 1 100m"), std::string::npos) << evicted.out;
  EXPECT_GT(evicted.out.find(' '), 0u) << "no deletionTimestamp: " << evicted.out;
  c.reset();  // flushes the events
  auto recreating =
      kubectl("get events --field-selector reason=Recreating -o 'jsonpath={.items[*].message}'");
  EXPECT_NE(
      recreating.out.find(std::string("in-place resize not supported: ") + GetParam().message),
      std::string::npos)
      << recreating.out << recreating.err;
}

// A node of half a core: the recommendation (over a core) is capped by the webhook to what
// the largest node can hold, and the 2:1 limit with it, so the new pod can be scheduled.
class SmallNodeClusterTest : public ControllerClusterTest {
 protected:
  const char* nodes() const override {
    return R"(nodes:
- name: node-1
  capacity: {cpu: 500m, memory: 8Gi, pods: "110"}
)";
  }
};

TEST_F(SmallNodeClusterTest, WebhookNeverProposesMoreThanTheLargestNode) {
  auto run = learn_with_webhook("InPlaceOrRecreate");
  ASSERT_TRUE(run.hook);
  auto& c = run.controller;
  c->run_pass(now());
  auto target = published_target("cpu");
  ASSERT_GT(kube::Quantity::parse(target.out).as_double(), 0.5) << target.out;
  ASSERT_NO_FATAL_FAILURE(create_second_pod());
  auto cpu = kubectl(
      "get pod web-2 -o 'jsonpath={.spec.containers[0].resources.requests.cpu} "
      "{.spec.containers[0].resources.limits.cpu}'");
  EXPECT_EQ(cpu.out, "500m 500m");
  EXPECT_GE(run.hook->stats().patched, 1u);
}

}  // namespace
}  // namespace tailor::controller
