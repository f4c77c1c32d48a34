// Tailor's resize paths end to end, on the shared `tailor cluster up` environment: each scenario
// is a single-replica Deployment in its own namespace with a VerticalScalingPolicy whose
// minAllowed = maxAllowed pins the recommendation (so the target is known once the first usage
// window arrives), judged from what the API server and the pod's cgroups say.
//
// All scenarios start together in SetUpTestSuite and run side by side; each test then waits for
// and checks its own. Pods that must start on the small node (to be Deferred or Infeasible there)
// are kept off the big node by a per-namespace node label (required node affinity DoesNotExist)
// that is removed once they are scheduled, so their replacements may go anywhere.
//
// Small node memory budget (1Gi): the Deferred filler 700Mi + four 64Mi pods = 956Mi.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/e2e/e2e_cluster.h"
#include "tests/e2e/workload_manifests.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};  // pod scheduled and Ready (image import, sandbox)
constexpr seconds kAct{90};    // a usage window, a pass, the resize or eviction, the node
constexpr const char* kApp = "app=app";

std::string avoid_label(const std::string& ns) { return "e2e.tailor.dev/avoid-" + ns; }

struct Workload {
  std::string command = "sleep 3600";
  Resources requests = {{"cpu", "50m"}, {"memory", "64Mi"}};
  Resources limits{};           // empty: none
  std::string node{};           // nodeSelector hostname; "" : none
  bool start_on_small = false;  // kept off the big node until scheduled
};

std::string deployment_yaml(const std::string& ns, const Workload& w) {
  return deployment_manifest(
      {.name = "app",
       .node = w.node,
       .avoid_label = w.start_on_small ? avoid_label(ns) : "",
       .containers = {{.command = shell(w.command), .requests = w.requests, .limits = w.limits}}});
}

// A policy on the Deployment whose recommendation is pinned to `pinned` (minAllowed = maxAllowed).
std::string policy_yaml(const std::string& mode, const Resources& pinned,
                        const std::string& deferred_timeout = "") {
  return policy_manifest({.name = "app",
                          .deployment = "app",
                          .mode = mode,
                          .min_replicas = 1,
                          .deferred_timeout = deferred_timeout,
                          .containers = {e2e::pinned(pinned)}});
}

const std::string kFillerYaml = pod_manifest(small_node_filler());

constexpr const char* kPdbYaml = R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: app}
spec:
  minAvailable: 1
  selector: {matchLabels: {app: app}}
)";

bool has_condition(const PodView& pod, const std::string& type, const std::string& reason) {
  const ConditionView* c = pod.condition(type);
  return c && c->status == "True" && c->reason == reason;
}

std::vector<EventView> events_with(const TestNamespace& ns, const std::string& reason) {
  std::vector<EventView> out;
  for (EventView& e : ns.events()) {
    if (e.reason == reason) out.push_back(std::move(e));
  }
  return out;
}

std::string describe(const std::vector<EventView>& events) {
  std::string out;
  for (const EventView& e : events) {
    out += "\n    " + e.reason + " x" + std::to_string(e.count) + " " + e.object_kind + "/" +
           e.object_name + ": " + e.message;
  }
  return out;
}

class Scenarios : public ::testing::Test {
 protected:
  struct Scenario {
    std::unique_ptr<TestNamespace> ns;
    std::string first_uid, first_name;  // the Deployment's first pod
  };

  static void SetUpTestSuite() {
    E2eCluster& cluster = E2eCluster::get();
    auto start = [&](const std::string& name, const Workload& w, const std::string& policy,
                     const std::string& extra = "") {
      Scenario& s = scenarios()[name];
      s.ns = std::make_unique<TestNamespace>("e2e-" + name);
      if (w.start_on_small) cluster.label_node(kBigNode, avoid_label(s.ns->name()), "true");
      if (!extra.empty()) s.ns->apply(extra);
      s.ns->apply(deployment_yaml(s.ns->name(), w));
      s.ns->apply(policy);
    };
    const Workload on_small{.start_on_small = true};
    // A CPU burner under a 100m limit; pinned to 150m/96Mi, limits follow in proportion.
    start("inplace",
          {.command = "while :; do :; done",
           .requests = {{"cpu", "50m"}, {"memory", "32Mi"}},
           .limits = {{"cpu", "100m"}, {"memory", "64Mi"}},
           .node = kBigNode},
          policy_yaml("InPlaceOrRecreate", {{"cpu", "150m"}, {"memory", "96Mi"}}));
    // 700Mi filler + 384Mi > 1Gi: Deferred on the small node (384Mi alone would fit).
    start("deferred", on_small,
          policy_yaml("InPlaceOrRecreate", {{"cpu", "50m"}, {"memory", "384Mi"}}, "5s"),
          kFillerYaml);
    // 1536Mi > the small node's 1Gi: Infeasible there, fits the big node.
    start("infeasible", on_small,
          policy_yaml("InPlaceOrRecreate", {{"cpu", "50m"}, {"memory", "1536Mi"}}));
    start("pdb", on_small, policy_yaml("InPlaceOrRecreate", {{"cpu", "50m"}, {"memory", "1536Mi"}}),
          kPdbYaml);
    start("off", {.node = kBigNode}, policy_yaml("Off", {{"cpu", "100m"}, {"memory", "128Mi"}}));
    start("inplace-only", on_small, policy_yaml("InPlace", {{"cpu", "50m"}, {"memory", "1536Mi"}}));
    for (auto& [name, s] : scenarios()) {
      const std::vector<PodView> ready =
          wait_for_ready_pods(*s.ns, name + ": the first pod Ready", kApp, 1, kStart);
      if (ready.empty()) continue;
      s.first_uid = ready[0].uid;
      s.first_name = ready[0].name;
      cluster.label_node(kBigNode, avoid_label(s.ns->name()), std::nullopt);
    }
  }

  static void TearDownTestSuite() { scenarios().clear(); }

  static std::map<std::string, Scenario>& scenarios() {
    static std::map<std::string, Scenario> all;
    return all;
  }

  static std::string describe_pods(const TestNamespace& ns) {
    std::string out;
    for (const PodView& p : ns.pods()) out += "\n    " + p.summary();
    return out.empty() ? "no pods" : out;
  }

  // The scenario's namespace and first pod; fails the test when setup did not get that far.
  const Scenario& scenario(const std::string& name) {
    const Scenario& s = scenarios().at(name);
    EXPECT_FALSE(s.first_uid.empty()) << name << ": the first pod never became Ready";
    return s;
  }

  // Waits for the policy to publish its recommendation for container app; returns it.
  static std::optional<ContainerRecommendationView> recommendation(const TestNamespace& ns) {
    std::optional<ContainerRecommendationView> out;
    wait_until(ns.name() + ": policy app has a recommendation", kAct, [&](std::string& seen) {
      std::optional<PolicyView> p = ns.policy("app");
      seen = p ? p->summary() : "no policy";
      const ConditionView* provided = p ? p->condition("RecommendationProvided") : nullptr;
      if (!provided || provided->status != "True" || !p->recommendation("app")) return false;
      out = *p->recommendation("app");
      return true;
    });
    return out;
  }

  // Waits for the Deployment's pod to be a new one (not `old_uid`), Ready; returns it.
  static std::optional<PodView> replacement(const TestNamespace& ns, const std::string& old_uid) {
    std::optional<PodView> out;
    wait_until(ns.name() + ": a Ready replacement of pod " + old_uid, kAct, [&](std::string& seen) {
      std::optional<PodView> p = only_ready_pod(ns, kApp);
      seen = describe_pods(ns) + describe(ns.events());
      if (!p || p->uid == old_uid) return false;
      out = p;
      return true;
    });
    return out;
  }

  // The replacement carries the recommendation from the webhook (the template asks 64Mi).
  static void expect_right_sized(const PodView& pod, const ContainerRecommendationView& rec) {
    const ContainerView& app = *pod.container("app");
    EXPECT_EQ(bytes(app.requests.at("memory")), bytes(rec.target.at("memory"))) << pod.summary();
    EXPECT_EQ(milli_cpu(app.requests.at("cpu")), milli_cpu(rec.target.at("cpu"))) << pod.summary();
    EXPECT_EQ(app.restart_count, 0) << pod.summary();
  }

  // Waits until the controller has run `passes` more passes than now.
  static void wait_for_passes(int passes) {
    E2eCluster& cluster = E2eCluster::get();
    const double from = cluster.controller_passes();
    wait_until(std::to_string(passes) + " controller passes",
               kPassInterval * passes * 3 + seconds(10), [&](std::string& seen) {
                 const double now = cluster.controller_passes();
                 seen = std::to_string(now - from) + " passes";
                 return now - from >= passes;
               });
  }
};

// A Deployment under load converges to its recommendation in place: same pod, no restart, the
// desired, allocated and actual resources and the container's cgroup files all at the target.
TEST_F(Scenarios, InPlaceResizeConverges) {
  const Scenario& s = scenario("inplace");
  ASSERT_FALSE(s.first_uid.empty());
  std::optional<ContainerRecommendationView> rec = recommendation(*s.ns);
  ASSERT_TRUE(rec);
  EXPECT_EQ(milli_cpu(rec->target.at("cpu")), 150);
  EXPECT_EQ(bytes(rec->target.at("memory")), 96 << 20);
  std::optional<PodView> pod;
  ASSERT_TRUE(
      wait_until("inplace: the pod at its target, resize done", kAct, [&](std::string& seen) {
        pod = s.ns->pod(s.ns->pods(kApp).at(0).name);
        seen = pod ? pod->summary() : "no pod";
        if (!pod) return false;
        const ContainerView& app = *pod->container("app");
        auto at_target = [&](const Resources& r) {
          return r.count("cpu") && r.count("memory") && milli_cpu(r.at("cpu")) == 150 &&
                 bytes(r.at("memory")) == 96 << 20;
        };
        return at_target(app.requests) && at_target(app.allocated) &&
               at_target(app.actual_requests) && !pod->condition("PodResizePending") &&
               !pod->condition("PodResizeInProgress");
      }));
  EXPECT_EQ(pod->uid, s.first_uid) << "the pod was recreated instead of resized in place";
  const ContainerView& app = *pod->container("app");
  EXPECT_EQ(app.restart_count, 0);
  // A pod starts at generation 1 and a resize through pods/resize bumps it. (Not compared with
  // the generation seen once Ready: the setup waits for the scenarios in turn, and the strategy's
  // rule may have resized this pod, a CPU burner at twice its request, before its turn.)
  EXPECT_GT(pod->generation, 1) << "a resize through pods/resize bumps it";
  // RequestsAndLimits: the limits keep their ratio (2x) to the requests.
  EXPECT_EQ(milli_cpu(app.limits.at("cpu")), 300);
  EXPECT_EQ(bytes(app.limits.at("memory")), 192 << 20);
  EXPECT_EQ(app.actual_limits, app.limits);
  EXPECT_EQ(
      read_container_cgroup(*pod, "app"),
      (CgroupFiles{
          .cpu_shares = 153, .cpu_quota = 30000, .cpu_period = 100000, .memory_limit = 192 << 20}))
      << pod->summary();
  EXPECT_FALSE(events_with(*s.ns, "ResizeRequested").empty()) << describe(s.ns->events());
  EXPECT_TRUE(events_with(*s.ns, "Recreating").empty()) << describe(s.ns->events());
}

// Deferred on the small node for longer than the policy's deferredTimeout (5 s): the pod is
// evicted and its replacement comes up with the recommendation, elsewhere.
TEST_F(Scenarios, DeferredPastTimeoutIsRecreatedRightSized) {
  const Scenario& s = scenario("deferred");
  ASSERT_FALSE(s.first_uid.empty());
  std::optional<ContainerRecommendationView> rec = recommendation(*s.ns);
  ASSERT_TRUE(rec);
  std::optional<PodView> pod = replacement(*s.ns, s.first_uid);
  ASSERT_TRUE(pod);
  expect_right_sized(*pod, *rec);
  EXPECT_EQ(bytes(pod->container("app")->requests.at("memory")), 384 << 20);
  EXPECT_EQ(pod->node, kBigNode) << "the small node is full (filler 700Mi)";
  std::vector<EventView> recreating = events_with(*s.ns, "Recreating");
  ASSERT_EQ(recreating.size(), 1u) << describe(s.ns->events());
  EXPECT_EQ(recreating[0].object_uid, s.first_uid);
  EXPECT_NE(recreating[0].message.find("Deferred"), std::string::npos) << recreating[0].message;
  std::optional<PodView> first = s.ns->pod(s.first_name);
  EXPECT_TRUE(!first || first->deleting) << first->summary();
}

// Infeasible on the small node (1536Mi > 1Gi): recreated at once, right-sized, onto the big node.
TEST_F(Scenarios, InfeasibleIsRecreatedRightSizedOnTheBigNode) {
  const Scenario& s = scenario("infeasible");
  ASSERT_FALSE(s.first_uid.empty());
  std::optional<ContainerRecommendationView> rec = recommendation(*s.ns);
  ASSERT_TRUE(rec);
  std::optional<PodView> pod = replacement(*s.ns, s.first_uid);
  ASSERT_TRUE(pod);
  expect_right_sized(*pod, *rec);
  EXPECT_EQ(bytes(pod->container("app")->requests.at("memory")), 1536ll << 20);
  EXPECT_EQ(pod->node, kBigNode);
  std::vector<EventView> recreating = events_with(*s.ns, "Recreating");
  ASSERT_EQ(recreating.size(), 1u) << describe(s.ns->events());
  EXPECT_NE(recreating[0].message.find("Infeasible"), std::string::npos) << recreating[0].message;
}

// A PodDisruptionBudget that allows no disruption keeps the Infeasible pod where it is: the
// eviction is refused (429), the controller says so and retries; once the budget goes, it evicts.
TEST_F(Scenarios, PodDisruptionBudgetBlocksTheRecreation) {
  const Scenario& s = scenario("pdb");
  ASSERT_FALSE(s.first_uid.empty());
  ASSERT_TRUE(wait_until("pdb: the eviction refused twice (a retry)", kAct, [&](std::string& seen) {
    std::vector<EventView> refused = events_with(*s.ns, "EvictionRefused");
    seen = describe(s.ns->events());
    return !refused.empty() && refused[0].count >= 2;
  }));
  std::optional<PodView> pod = s.ns->pod(s.ns->pods(kApp).at(0).name);
  ASSERT_TRUE(pod);
  EXPECT_EQ(pod->uid, s.first_uid);
  EXPECT_TRUE(pod->ready()) << pod->summary();
  EXPECT_FALSE(pod->deleting);
  EXPECT_TRUE(has_condition(*pod, "PodResizePending", "Infeasible")) << pod->summary();
  EXPECT_TRUE(events_with(*s.ns, "Recreating").empty()) << describe(s.ns->events());
  const EventView refused = events_with(*s.ns, "EvictionRefused").at(0);
  EXPECT_EQ(refused.object_uid, s.first_uid);
  EXPECT_NE(refused.message.find("disruption budget"), std::string::npos) << refused.message;

  CommandResult removed = s.ns->kubectl("delete pdb app");
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  std::optional<ContainerRecommendationView> rec = recommendation(*s.ns);
  ASSERT_TRUE(rec);
  std::optional<PodView> after = replacement(*s.ns, s.first_uid);
  ASSERT_TRUE(after);
  expect_right_sized(*after, *rec);
  EXPECT_EQ(after->node, kBigNode);
}

// Off: the recommendation is written to the policy's status; the pod is left as it was.
TEST_F(Scenarios, OffModeOnlyWritesStatus) {
  const Scenario& s = scenario("off");
  ASSERT_FALSE(s.first_uid.empty());
  std::optional<ContainerRecommendationView> rec = recommendation(*s.ns);
  ASSERT_TRUE(rec);
  EXPECT_EQ(milli_cpu(rec->target.at("cpu")), 100);
  EXPECT_EQ(bytes(rec->target.at("memory")), 128 << 20);
  wait_for_passes(3);  // passes that saw the recommendation and could have acted on it
  std::vector<PodView> pods = s.ns->pods(kApp);
  ASSERT_EQ(pods.size(), 1u);
  EXPECT_EQ(pods[0].uid, s.first_uid);
  EXPECT_EQ(pods[0].generation, 1) << pods[0].summary();  // as created: never resized
  EXPECT_EQ(pods[0].container("app")->requests, (Resources{{"cpu", "50m"}, {"memory", "64Mi"}}));
  EXPECT_EQ(pods[0].container("app")->restart_count, 0);
  EXPECT_TRUE(events_with(*s.ns, "ResizeRequested").empty()) << describe(s.ns->events());
  EXPECT_TRUE(events_with(*s.ns, "Recreating").empty()) << describe(s.ns->events());
}

// InPlace never evicts: the Infeasible resize stays pending on the same pod.
TEST_F(Scenarios, InPlaceModeNeverEvicts) {
  const Scenario& s = scenario("inplace-only");
  ASSERT_FALSE(s.first_uid.empty());
  std::optional<PodView> pod;
  ASSERT_TRUE(wait_until("inplace-only: the resize Infeasible", kAct, [&](std::string& seen) {
    pod = s.ns->pod(s.ns->pods(kApp).at(0).name);
    seen = pod ? pod->summary() : "no pod";
    return pod && has_condition(*pod, "PodResizePending", "Infeasible");
  }));
  // InPlaceOrRecreate recreates an Infeasible pod on the next pass; give InPlace several.
  wait_for_passes(3);
  pod = s.ns->pod(pod->name);
  ASSERT_TRUE(pod) << "the pod is gone: " << describe(s.ns->events());
  EXPECT_EQ(pod->uid, s.first_uid);
  EXPECT_FALSE(pod->deleting);
  EXPECT_TRUE(pod->ready()) << pod->summary();
  EXPECT_TRUE(has_condition(*pod, "PodResizePending", "Infeasible")) << pod->summary();
  EXPECT_EQ(pod->container("app")->restart_count, 0);
  EXPECT_EQ(bytes(pod->container("app")->allocated.at("memory")), 64 << 20) << pod->summary();
  EXPECT_TRUE(events_with(*s.ns, "Recreating").empty()) << describe(s.ns->events());
  EXPECT_TRUE(events_with(*s.ns, "EvictionRefused").empty()) << describe(s.ns->events());
}

}  // namespace
}  // namespace tailor::e2e
