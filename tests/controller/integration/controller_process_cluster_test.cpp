// ControllerProcess, tailor-controller's wiring, against a live tailor-cluster: started with
// every part on (leader election, the webhook registering itself, the ports file), it answers
// /readyz once its informers synced, takes the lease and runs passes; stopped, it releases the
// lease and leaves no port open and no thread running. An option found bad once the informers
// run is refused with its reason, and an API server that is gone leaves the process alive but
// unready. Judged from outside: HTTP, TCP and kubectl.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "controller/app/controller_process.h"
#include "tests/controller/app/process_probes.h"
#include "tests/controller/integration/policy_cluster.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::controller {
namespace {

using kube::testing::free_loopback_port;
using kube::testing::http_get;
using kube::testing::metrics_sample;
using testing::accepts_connections;
using ::testing::EndsWith;
using testing::eventually;
using ::testing::HasSubstr;
using testing::thread_ids;
using testing::threads_started_since;

constexpr const char* kLeaseHolder =
    "get lease -n kube-system tailor-controller -o jsonpath={.spec.holderIdentity}";

std::string read_file(const std::filesystem::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

class ControllerProcessClusterTest
    : public testing::PolicyClusterTest<embedded::testing::ApiOnlyKubectlTest> {
 protected:
  void SetUp() override {
    PolicyClusterTest::SetUp();
    ASSERT_NO_FATAL_FAILURE(install_crds());
  }

  // As a local cluster runs it (tailor cluster up): loopback, ports the kernel picks.
  ProcessOptions options() const {
    ProcessOptions o;
    o.common.kubeconfig = kubeconfig_;
    o.common.metrics_bind_address = {"127.0.0.1", 0};
    o.usage_address = "127.0.0.1:0";
    o.usage_insecure = true;  // no agent streams here (usage_trust_cluster_test.cpp does)
    o.webhook_address = "127.0.0.1";
    o.webhook_ephemeral_port = true;
    o.webhook_register = true;
    o.ports_file = (dir_ / "ports.json").string();
    o.identity = "process-test";
    o.pass_interval = std::chrono::milliseconds(200);
    o.controller.view.watch_vpa = false;
    return o;
  }

  // With fixed ports, so that a test can see them closed after a failed start.
  ProcessOptions options_on_fixed_ports() const {
    ProcessOptions o = options();
    o.common.metrics_bind_address.port = metrics_port_;
    o.usage_address = "127.0.0.1:" + std::to_string(usage_port_);
    return o;
  }

  void expect_nothing_listening() const {
    EXPECT_FALSE(accepts_connections(metrics_port_));
    EXPECT_FALSE(accepts_connections(usage_port_));
  }

  std::uint16_t metrics_port_ = free_loopback_port();
  std::uint16_t usage_port_ = free_loopback_port();
};

TEST_F(ControllerProcessClusterTest, StartsReadyLeadsAndStopsCleanly) {
  const auto threads_before = thread_ids();
  const std::string passes = "tailor_controller_pass_duration_seconds_count";
  ControllerProcess process(options());
  process.start();
  const int metrics = process.metrics_port(), usage = process.usage_port(),
            webhook = process.webhook_port();
  EXPECT_EQ(read_file(dir_ / "ports.json"), "{\"usage\":" + std::to_string(usage) +
                                                ",\"webhook\":" + std::to_string(webhook) +
                                                ",\"metrics\":" + std::to_string(metrics) + "}\n");
  const double passes_before = metrics_sample(metrics, passes);

  EXPECT_TRUE(eventually([&] { return http_get(metrics, "/readyz").status == 200; }));
  EXPECT_EQ(http_get(metrics, "/livez").status, 200);
  EXPECT_TRUE(accepts_connections(usage));
  EXPECT_TRUE(accepts_connections(webhook));
  EXPECT_THAT(kubectl("get mutatingwebhookconfiguration tailor-controller "
                      "-o jsonpath={.webhooks[0].clientConfig.url}")
                  .out,
              EndsWith(":" + std::to_string(webhook) + "/mutate-pods"));
  EXPECT_TRUE(eventually([&] { return kubectl(kLeaseHolder).out == "process-test"; }));
  EXPECT_TRUE(eventually([&] { return metrics_sample(metrics, passes) > passes_before; }));

  EXPECT_LT(testing::time_of([&] { process.stop(); }), std::chrono::seconds(5));
  for (int port : {metrics, usage, webhook}) EXPECT_FALSE(accepts_connections(port)) << port;
  EXPECT_EQ(kubectl(kLeaseHolder).out, "");  // released: a standby takes over at once
  EXPECT_TRUE(eventually([&] { return threads_started_since(threads_before) == 0; }))
      << threads_started_since(threads_before) << " threads left running";
}

// The webhook starts after the informers, the endpoints and the usage stream: all are stopped
// again before start() throws.
TEST_F(ControllerProcessClusterTest, AWebhookCertificateWithoutItsKeyIsNamed) {
  ProcessOptions o = options_on_fixed_ports();
  o.webhook_cert_file = (dir_ / "tls.crt").string();
  const auto threads_before = thread_ids();
  ControllerProcess process(o);
  try {
    process.start();
    ADD_FAILURE() << "start() succeeded";
  } catch (const std::exception& e) {
    EXPECT_THAT(e.what(), HasSubstr("give both a certificate file and a key file"));
  }
  expect_nothing_listening();
  EXPECT_TRUE(eventually([&] { return threads_started_since(threads_before) == 0; }))
      << threads_started_since(threads_before) << " threads left running";
}

// The informers retry for as long as it takes (the API server may come back): the process is
// alive but not ready, and stops when asked, though only once each informer's list in flight has
// used up its retries (seconds each, one informer after the other), within the 30 s a kubelet
// waits before SIGKILL.
TEST_F(ControllerProcessClusterTest, AnApiServerThatIsGoneLeavesItAliveButUnready) {
  cluster_.reset();
  ProcessOptions o = options_on_fixed_ports();
  o.webhook_register = false;  // it would fail too, but after five attempts: a minute in all
  const auto threads_before = thread_ids();
  ControllerProcess process(o);
  process.start();
  EXPECT_EQ(http_get(metrics_port_, "/livez").status, 200);
  const auto readyz = http_get(metrics_port_, "/readyz");
  EXPECT_EQ(readyz.status, 500);
  EXPECT_THAT(readyz.body, HasSubstr("[-]informers failed"));
  EXPECT_TRUE(accepts_connections(usage_port_));

  EXPECT_LT(testing::time_of([&] { process.stop(); }), std::chrono::seconds(30));
  expect_nothing_listening();
  EXPECT_TRUE(eventually([&] { return threads_started_since(threads_before) == 0; }))
      << threads_started_since(threads_before) << " threads left running";
}

}  // namespace
}  // namespace tailor::controller
