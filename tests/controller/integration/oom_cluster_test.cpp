// Issue 15's OOM kill, through tailor-controller against a live tailor-cluster: a container at
// its 300Mi limit, using 200Mi, is OOM-killed in its main process. The node agent's counter
// never sees such a kill (the container restarts in a new cgroup); the pod status does
// (lastState.terminated.reason OOMKilled). The next pass must raise memory, not lower it, under
// a VerticalScalingPolicy and under a VPA object, with either strategy; the vpa strategy's bump
// is VPA's: max(+100Mi, x1.2) of the memory request (recommender/input/oom/observer.go reads the
// request).
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "controller/app/controller.h"
#include "controller/usage/usage_feed.h"
#include "kube/client/rest_client.h"
#include "kube/model/quantity.h"
#include "tests/controller/integration/controller_cluster.h"
#include "tests/support/vpa_oom_target.h"

namespace tailor::controller {
namespace {

constexpr double kMiB = 1024.0 * 1024;

constexpr const char* kDeployment = R"({"apiVersion":"apps/v1","kind":"Deployment",
 "metadata":{"name":"web"},
 "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
   "template":{"metadata":{"labels":{"app":"web"}},
     "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})";

constexpr const char* kVpa = R"(apiVersion: autoscaling.k8s.io/v1
kind: VerticalPodAutoscaler
metadata: {name: web, namespace: default}
spec:
  targetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
  updatePolicy: {updateMode: InPlaceOrRecreate}
)";

constexpr const char* kAt300Mi = R"({"requests":{"cpu":"100m","memory":"300Mi"},
   "limits":{"cpu":"200m","memory":"300Mi"}})";

// web-1 running with `resources` (at first 300Mi, request = limit, as in issue 15) as the node
// applied them by `generation`; `last_state` is its lastState.
std::string running_status(const std::string& last_state, int restarts,
                           const std::string& resources = kAt300Mi, int generation = 1) {
  return R"({"status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z",
 "observedGeneration":)" +
         std::to_string(generation) + R"(,
 "conditions":[{"type":"Ready","status":"True"}],
 "containerStatuses":[{"name":"app","ready":true,"restartCount":)" +
         std::to_string(restarts) + R"(,"image":"busybox",
   "imageID":"","started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}},
   "lastState":)" +
         last_state + R"(,
   "resources":)" +
         resources + "}]}}";
}

enum class PolicyKind { Vsp, Vpa };

class OomClusterTest : public testing::OneNodePlayedTest<
                           testing::PolicyClusterTest<embedded::testing::KubectlClusterTest>> {
 protected:
  // Deployment web -> ReplicaSet web-5d9 -> Pod web-1 at 300Mi, as the controllers would make
  // them (a VPA object reaches its pods through the owner chain).
  void SetUp() override {
    PolicyClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crd());
    create("deployment", kDeployment);
    create("replicaset", R"({"apiVersion":"apps/v1","kind":"ReplicaSet",
     "metadata":{"name":"web-5d9","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1",
       "kind":"Deployment","name":"web","uid":")" +
                             uid_of("deployment web") + R"(","controller":true}]},
     "spec":{"replicas":1,"selector":{"matchLabels":{"app":"web"}},
       "template":{"metadata":{"labels":{"app":"web"}},
         "spec":{"containers":[{"name":"app","image":"busybox"}]}}}})");
    create("pod", R"({"apiVersion":"v1","kind":"Pod",
     "metadata":{"name":"web-1","labels":{"app":"web"},"ownerReferences":[{"apiVersion":"apps/v1",
       "kind":"ReplicaSet","name":"web-5d9","uid":")" +
                      uid_of("replicaset web-5d9") + R"(","controller":true}]},
     "spec":{"nodeName":"node-1","containers":[{"name":"app","image":"busybox",
       "resources":{"requests":{"cpu":"100m","memory":"300Mi"},
                    "limits":{"cpu":"200m","memory":"300Mi"}}}]}})");
    ASSERT_NO_FATAL_FAILURE(report_running(running_status("{}", 0)));
    pod_uid_ = uid_of("pod web-1");
    client_ = std::make_unique<kube::RestClient>(rest_config());
  }

  void apply_vpa() {
    write("vpa-crd.yaml", testing::kVpaCrd);
    ASSERT_EQ(kubectl("apply -f vpa-crd.yaml").exit_code, 0);
    ASSERT_EQ(kubectl("wait --for=condition=Established --timeout=10s "
                      "crd/verticalpodautoscalers.autoscaling.k8s.io")
                  .exit_code,
              0);
    write("vpa.yaml", kVpa);
    auto applied = kubectl("apply -f vpa.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
  }

  std::unique_ptr<Controller> start_controller(PolicyKind kind, const std::string& strategy) {
    ControllerOptions o;
    o.view.watch_vpa = kind == PolicyKind::Vpa;
    o.strategy = strategy;
    auto c = std::make_unique<Controller>(*client_, o);
    c->start();
    EXPECT_TRUE(c->wait_for_sync(std::chrono::seconds(10)));
    // The VPA informer is not waited for by wait_for_sync (the CRD is optional).
    for (int i = 0; i < 50 && c->view().snapshot(now()).policies.empty(); ++i) settle();
    EXPECT_EQ(c->view().snapshot(now()).policies.size(), 1u);
    return c;
  }

  // Two hours of minute windows of web-1 using 0.1 core and 200Mi, ending `end_ms`; the last
  // one counts `oom_kills` (the agent's counter).
  void feed_usage(Controller& c, std::int64_t end_ms, std::uint32_t last_oom_kills = 0) {
    for (std::int64_t end = end_ms - 2 * 3600 * 1000; end <= end_ms; end += 60'000) {
      c.on_usage({.node = "node-1",
                  .ns = "default",
                  .pod = "web-1",
                  .pod_uid = pod_uid_,
                  .container = "app",
                  .start_unix_ms = end - 60'000,
                  .end_unix_ms = end,
                  .samples = 12,
                  .cpu_cores_mean = 0.1,
                  .cpu_cores_max = 0.1,
                  .memory_working_set_max_bytes = 200 * kMiB,
                  .memory_peak_bytes = 200 * kMiB,
                  .oom_kills = end + 60'000 > end_ms ? last_oom_kills : 0});
    }
  }

  // The status the kubelet writes after the main process was OOM-killed at `finished_at`; with
  // `resized`, also having applied the resize the pod's spec asks for.
  void report_oom_killed(const std::string& finished_at, bool resized = false) {
    const std::string last_state =
        R"({"terminated":{"exitCode":137,"reason":"OOMKilled","startedAt":"2026-01-01T00:00:00Z",
            "finishedAt":")" +
        finished_at + R"("}})";
    if (!resized) {
      ASSERT_NO_FATAL_FAILURE(report_running(running_status(last_state, 1)));
      return;
    }
    const std::string resources =
        kubectl("get pod web-1 -o 'jsonpath={.spec.containers[0].resources}'").out;
    const int generation =
        std::stoi(kubectl("get pod web-1 -o 'jsonpath={.metadata.generation}'").out);
    ASSERT_NO_FATAL_FAILURE(report_running(running_status(last_state, 1, resources, generation)));
  }

  std::string published_memory_target(PolicyKind kind) {
    return kubectl(std::string("get ") +
                   (kind == PolicyKind::Vpa ? "verticalpodautoscalers" : "vsp") +
                   " web -o "
                   "'jsonpath={.status.recommendation.containerRecommendations[0].target.memory}'")
        .out;
  }

  kube::Quantity memory_limit() {
    return kube::Quantity::parse(
        kubectl("get pod web-1 -o 'jsonpath={.spec.containers[0].resources.limits.memory}'").out);
  }

  void settle() { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }
  static kube::TimePoint now() { return kube::TimePoint(std::chrono::system_clock::now()); }

  // Issue 15's case under `kind` with `strategy`: returns the memory target published after the
  // first pass that saw the kill; checks the limit was raised then and not lowered after.
  kube::Quantity oom_raises_memory(PolicyKind kind, const std::string& strategy,
                                   bool agent_counts_it_too) {
    if (kind == PolicyKind::Vpa) {
      apply_vpa();
    } else {
      apply_policy("InPlaceOrRecreate");
    }
    auto c = start_controller(kind, strategy);
    settle();
    EXPECT_EQ(c->run_pass(now()), 0u);  // learns which pod is under which policy
    const std::int64_t now_ms = usage::unix_now_ms();
    // The kill a few seconds ago: the status says so, and in one run so does the agent's window.
    const kube::TimePoint killed =
        kube::TimePoint(std::chrono::milliseconds(now_ms)) - std::chrono::seconds(5);
    feed_usage(*c, now_ms, agent_counts_it_too ? 1 : 0);
    report_oom_killed(kube::format_rfc3339(killed));
    settle();
    EXPECT_EQ(c->run_pass(now()), 1u);  // the raise goes out in the pass that sees the kill
    const kube::Quantity raised = memory_limit();
    EXPECT_GE(raised, kube::Quantity::parse("400Mi")) << raised.to_string();
    // The same kill counts once, whichever sources told of it.
    EXPECT_EQ(c->stats().ooms_from_status + c->stats().ooms_from_agents, 1u);
    EXPECT_EQ(c->stats().ooms_from_agents, agent_counts_it_too ? 1u : 0u);
    // The next passes (the resize in flight, then applied by the node) never lower it.
    settle();
    c->run_pass(now());
    EXPECT_GE(memory_limit(), raised);
    report_oom_killed(kube::format_rfc3339(killed), true);
    for (int pass = 0; pass < 2; ++pass) {
      settle();
      c->run_pass(now());
      EXPECT_GE(memory_limit(), raised) << "pass " << pass;
    }
    EXPECT_EQ(c->stats().ooms_from_status + c->stats().ooms_from_agents, 1u);
    raised_ = raised;
    return kube::Quantity::parse(published_memory_target(kind));
  }

  // VPA's target after the kill of web-1's 300Mi request (at 200Mi of usage): its bump,
  // max(300Mi + 100Mi, 300Mi x 1.2) = 400Mi, through VPA's estimator.
  static kube::Quantity vpa_formula_target() { return testing::vpa_oom_target(300 * kMiB); }

  kube::Quantity raised_;  // the limit the kill raised web-1 to
  std::string pod_uid_;
  std::unique_ptr<kube::RestClient> client_;
};

TEST_F(OomClusterTest, VerticalScalingPolicyDefaultStrategyRaisesTheLimitOfTheKilledContainer) {
  const kube::Quantity target = oom_raises_memory(PolicyKind::Vsp, "default", false);
  // The default strategy bumps the limit that was hit: at least 300Mi + 100Mi.
  EXPECT_GE(target, kube::Quantity::parse("400Mi")) << target.to_string();
}

TEST_F(OomClusterTest, VerticalScalingPolicyVpaStrategyBumpsByVpasFormula) {
  EXPECT_EQ(oom_raises_memory(PolicyKind::Vsp, "vpa", false), vpa_formula_target());
}

TEST_F(OomClusterTest, VpaObjectVpaStrategyBumpsByVpasFormula) {
  EXPECT_EQ(oom_raises_memory(PolicyKind::Vpa, "vpa", false), vpa_formula_target());
}

TEST_F(OomClusterTest, VpaObjectDefaultStrategyRaisesTheLimitOfTheKilledContainer) {
  const kube::Quantity target = oom_raises_memory(PolicyKind::Vpa, "default", false);
  EXPECT_GE(target, kube::Quantity::parse("400Mi")) << target.to_string();
}

// The agent's counter and the status both tell of the kill: it is fed once, and the bump is the
// same as from one source.
TEST_F(OomClusterTest, AKillSeenByTheAgentAndTheStatusBumpsOnce) {
  EXPECT_EQ(oom_raises_memory(PolicyKind::Vsp, "vpa", true), vpa_formula_target());
}

// A controller that starts again within the hour reads which kills were fed from its state
// ConfigMap: the kill, still in web-1's lastState, is not fed a second time from the request it
// raised (which would bump 400Mi to 500Mi).
TEST_F(OomClusterTest, ARestartedControllerDoesNotBumpTheSameKillAgain) {
  oom_raises_memory(PolicyKind::Vsp, "vpa", false);
  ControllerOptions o;
  o.view.watch_vpa = false;
  o.strategy = "vpa";
  Controller again(*client_, o);
  again.load_state();
  again.start();
  ASSERT_TRUE(again.wait_for_sync(std::chrono::seconds(10)));
  settle();
  again.run_pass(now());
  feed_usage(again, usage::unix_now_ms());
  for (int pass = 0; pass < 2; ++pass) {
    settle();
    again.run_pass(now());
  }
  EXPECT_EQ(again.stats().ooms_from_status, 0u);
  EXPECT_EQ(memory_limit(), raised_) << memory_limit().to_string();
}

}  // namespace
}  // namespace tailor::controller
