// Model checkpoints against a live tailor-cluster: a controller fed usage writes
// VerticalScalingCheckpoints; a new controller instance reads them back and recommends the same
// at once, without new usage; a corrupt checkpoint is reported and its model starts empty;
// checkpoints of a deleted policy are removed.
#include <gtest/gtest.h>

#include <thread>

#include "controller/app/controller.h"
#include "kube/client/rest_client.h"
#include "tests/controller/integration/controller_cluster.h"
#include "tests/support/eventually.h"

namespace tailor::controller {
namespace {

using kube::testing::eventually;

constexpr const char* kPod = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"web-1","labels":{"app":"web"}},
 "spec":{"containers":[{"name":"app","image":"busybox",
   "resources":{"requests":{"cpu":"100m","memory":"100Mi"}}}]}})";

constexpr const char* kRunning = R"({"status":{"phase":"Running",
 "conditions":[{"type":"Ready","status":"True"}],
 "containerStatuses":[{"name":"app","ready":true,"restartCount":0,"image":"busybox",
   "imageID":"","started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}}}]}})";

constexpr const char* kTarget =
    "get vsp web -o 'jsonpath={.status.recommendation.containerRecommendations[0].target}'";

class CheckpointClusterTest
    : public testing::PolicyClusterTest<embedded::testing::ApiOnlyKubectlTest>,
      public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    PolicyClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crds());
    create("pod", kPod);
    ASSERT_NO_FATAL_FAILURE(report_running(kRunning));
    ASSERT_NO_FATAL_FAILURE(apply_policy("Off"));
    client_ = std::make_unique<kube::RestClient>(rest_config());
  }

  // A controller instance as tailor-controller runs one: informers synced, then load_state()
  // (state and checkpoints) before its first pass. Checkpoints written on every pass.
  std::unique_ptr<Controller> start_controller() {
    ControllerOptions o;
    o.view.watch_vpa = false;
    o.strategy = GetParam();
    o.checkpoint_interval = std::chrono::seconds(0);
    auto c = std::make_unique<Controller>(*client_, o);
    c->start();
    EXPECT_TRUE(c->wait_for_sync(std::chrono::seconds(10)));
    c->load_state();
    return c;
  }

  // Two hours of the app at 0.7 cores and 300 MiB, ending now.
  static void feed_usage(Controller& c) {
    testing::feed_usage(c, testing::AppUsage{0.7, 0.9, 300.0 * 1024 * 1024});
  }

  // A pass that sees the policy's pod (so usage is matched), usage, and a pass that writes
  // the recommendation and the checkpoint.
  void recommend_from_usage(Controller& c) {
    ASSERT_TRUE(eventually([&] {
      c.run_pass(now());
      feed_usage(c);
      return c.stats().windows > 100;
    }));
    c.run_pass(now());
  }

  static kube::TimePoint now() { return kube::TimePoint(std::chrono::system_clock::now()); }

  std::unique_ptr<kube::RestClient> client_;
};

TEST_P(CheckpointClusterTest, NewInstanceRecommendsTheSameWithoutNewUsage) {
  std::string target;
  {
    auto first = start_controller();
    recommend_from_usage(*first);
    target = kubectl(kTarget).out;
    ASSERT_FALSE(target.empty());
    EXPECT_GE(first->stats().checkpoints_written, 1u);
  }
  auto table = kubectl("get vscp web-app");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find(" " + std::to_string(testing::kFedPeriods) + " "), std::string::npos)
      << table.out;  // samples column
  EXPECT_EQ(kubectl("get vscp web-app -o 'jsonpath={.status.strategy}'").out, GetParam());
  if (GetParam() == "vpa") {
    // VPA's checkpoint shape: the histograms are the model (restored below), no compact text.
    auto weights =
        kubectl("get vscp web-app -o 'jsonpath={.status.memoryHistogram.bucketWeights}'");
    EXPECT_NE(weights.out.find("10000"), std::string::npos) << weights.out << weights.err;
    EXPECT_EQ(kubectl("get vscp web-app -o 'jsonpath={.status.state}'").out, "");
  }
  // Forget the published recommendation: only the checkpoint can bring it back.
  auto cleared = kubectl(
      R"(patch vsp web --subresource status --type merge -p '{"status":{"recommendation":null}}')");
  ASSERT_EQ(cleared.exit_code, 0) << cleared.err;
  ASSERT_EQ(kubectl(kTarget).out, "");

  auto second = start_controller();
  EXPECT_EQ(second->stats().checkpoints_restored, 1u);
  second->run_pass(now());
  EXPECT_EQ(second->stats().windows, 0u);
  EXPECT_EQ(kubectl(kTarget).out, target);
}

TEST_P(CheckpointClusterTest, CorruptCheckpointIsReportedAndTheModelStartsEmpty) {
  create("vscp", R"({"apiVersion":"autoscaling.tailor.dev/v1alpha1",
    "kind":"VerticalScalingCheckpoint","metadata":{"name":"web-app","namespace":"default"},
    "spec":{"policyName":"web","containerName":"app"}})");
  const std::string state = GetParam() == "vpa" ? "v1;0;1;x" : "default1;1;2;3";
  auto r = kubectl(
      R"(patch vscp web-app --subresource status --type merge -p '{"status":{"strategy":")" +
      GetParam() + R"(","state":")" + state + R"("}}')");
  ASSERT_EQ(r.exit_code, 0) << r.err;

  auto c = start_controller();
  EXPECT_EQ(c->stats().checkpoints_invalid, 1u);
  EXPECT_EQ(c->stats().checkpoints_restored, 0u);
  EXPECT_TRUE(eventually([&] {
    return !kubectl("get events --field-selector reason=CheckpointInvalid -o name").out.empty();
  }));
  auto message = kubectl(
      "get events --field-selector reason=CheckpointInvalid "
      "-o 'jsonpath={.items[0].message} {.items[0].involvedObject.kind}'");
  EXPECT_NE(message.out.find("starts empty"), std::string::npos) << message.out;
  EXPECT_NE(message.out.find("VerticalScalingCheckpoint"), std::string::npos) << message.out;
  // No recommendation from the corrupt checkpoint; usage then builds a model afresh, and its
  // checkpoint replaces the corrupt one.
  c->run_pass(now());
  EXPECT_EQ(kubectl(kTarget).out, "");
  recommend_from_usage(*c);
  EXPECT_FALSE(kubectl(kTarget).out.empty());
  EXPECT_EQ(kubectl("get vscp web-app -o 'jsonpath={.status.totalSamplesCount}'").out,
            std::to_string(testing::kFedPeriods));
}

TEST_P(CheckpointClusterTest, CheckpointsOfDeletedPoliciesAreRemoved) {
  auto c = start_controller();
  recommend_from_usage(*c);
  ASSERT_EQ(kubectl("get vscp web-app").exit_code, 0);
  ASSERT_EQ(kubectl("delete vsp web").exit_code, 0);
  ASSERT_TRUE(eventually([&] {
    c->save_checkpoints(now());
    return c->stats().checkpoints_deleted == 1;
  }));
  EXPECT_NE(kubectl("get vscp web-app").exit_code, 0);
}

INSTANTIATE_TEST_SUITE_P(Strategies, CheckpointClusterTest, ::testing::Values("default", "vpa"));

}  // namespace
}  // namespace tailor::controller
