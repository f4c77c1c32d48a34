// tailor-controller's usage stream against a live tailor-cluster (issue 16 finding 1): the pods'
// nodes come from the controller's own informer, so an agent's certificate for one node cannot
// report a pod the API server has bound to another, and a client without a certificate from the
// usage CA cannot report at all. Judged from outside: gRPC, /metrics.
#include <gtest/gtest.h>

#include <string>

#include "controller/app/controller_process.h"
#include "tests/controller/app/process_probes.h"
#include "tests/controller/integration/policy_cluster.h"
#include "tests/controller/usage/usage_agent_client.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::controller {
namespace {

using kube::testing::http_get;
using kube::testing::metrics_sample;
using testing::eventually;
using usage::testing::report;
using usage::testing::send;
using usage::testing::UsagePki;

// Two pods of one workload, bound to two nodes.
constexpr const char* kPods = R"(apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: Pod
metadata: {name: web-a, namespace: shop, labels: {app: web}}
spec:
  nodeName: node-a
  containers: [{name: app, image: busybox, resources: {requests: {cpu: 178m, memory: 250Mi}}}]
---
apiVersion: v1
kind: Pod
metadata: {name: web-b, namespace: shop, labels: {app: web}}
spec:
  nodeName: node-b
  containers: [{name: app, image: busybox, resources: {requests: {cpu: 178m, memory: 250Mi}}}]
)";

std::string rejected(const std::string& reason) {
  return "tailor_controller_usage_windows_rejected_total{reason=\"" + reason + "\"}";
}

class UsageTrustClusterTest
    : public testing::PolicyClusterTest<embedded::testing::ApiOnlyKubectlTest> {
 protected:
  void SetUp() override {
    PolicyClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crds());
    write("pods.yaml", kPods);
    auto applied = kubectl("apply -f pods.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
  }

  ProcessOptions options() const {
    ProcessOptions o;
    o.common.kubeconfig = kubeconfig_;
    o.common.metrics_bind_address = {"127.0.0.1", 0};
    o.usage_address = "127.0.0.1:0";
    o.usage_tls = pki_.files();
    o.webhook_port = 0;
    o.leader_elect = false;
    o.controller.view.watch_vpa = false;
    return o;
  }

  UsagePki pki_;
};

TEST_F(UsageTrustClusterTest, AForgedWindowIsRejectedAndAnAgentsOwnPodIsTaken) {
  ControllerProcess process(options());
  process.start();
  const int metrics = process.metrics_port();
  ASSERT_TRUE(eventually([&] { return http_get(metrics, "/readyz").status == 200; }));
  const std::string taken = "tailor_controller_usage_windows_total{matched=\"false\"}";
  const double taken_before = metrics_sample(metrics, taken);
  const double wrong_node_before = metrics_sample(metrics, rejected("wrong_node"));

  // The forger of the finding: plaintext, naming node-b, for web-b.
  EXPECT_EQ(
      send(process.usage_port(), grpc::InsecureChannelCredentials(), {report("node-b", {"web-b"})})
          .status.error_code(),
      grpc::StatusCode::UNAVAILABLE);
  // node-a's agent about its own pod and about node-b's.
  const auto sent =
      send(process.usage_port(), pki_.agent("node-a"), {report("node-a", {"web-a", "web-b"})});
  ASSERT_TRUE(sent.status.ok()) << sent.status.error_message();
  EXPECT_EQ(sent.summary.windows(), 1u);
  EXPECT_EQ(metrics_sample(metrics, rejected("wrong_node")), wrong_node_before + 1);
  EXPECT_EQ(metrics_sample(metrics, taken), taken_before + 1);  // web-a reached the recommender
  process.stop();
}

}  // namespace
}  // namespace tailor::controller
