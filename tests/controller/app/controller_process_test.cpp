// ControllerProcess without an API server: options it cannot start with are refused by start()
// with an error that names the problem, leaving no port open. (A bad option found once the
// informers run, and an API server that cannot be reached, are in
// tests/controller/integration/controller_process_cluster_test.cpp: stopping informers that
// retry against a closed port takes seconds.)
#include "controller/app/controller_process.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "kube/observe/endpoint.h"
#include "kube/observe/health.h"
#include "kube/observe/metrics.h"
#include "tests/controller/app/process_probes.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::controller {
namespace {

using kube::testing::free_loopback_port;
using kube::testing::http_get;
using testing::accepts_connections;
using ::testing::HasSubstr;

// A kubeconfig naming an API server on `port`, where nothing listens.
std::string unreachable_kubeconfig(int port) {
  return "apiVersion: v1\nkind: Config\n"
         "clusters: [{name: gone, cluster: {server: 'https://127.0.0.1:" +
         std::to_string(port) +
         "', insecure-skip-tls-verify: true}}]\n"
         "users: [{name: me, user: {token: t}}]\n"
         "contexts: [{name: gone, context: {cluster: gone, user: me}}]\n"
         "current-context: gone\n";
}

class ControllerProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-controller-process-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    std::ofstream(dir_ / "kubeconfig") << unreachable_kubeconfig(free_loopback_port());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Fixed ports rather than 0, so that a test can see they are closed after a failed start.
  ProcessOptions options() const {
    ProcessOptions o;
    o.common.kubeconfig = (dir_ / "kubeconfig").string();
    o.common.metrics_bind_address = {"127.0.0.1", metrics_port_};
    o.usage_address = "127.0.0.1:" + std::to_string(usage_port_);
    o.usage_insecure = true;
    o.webhook_port = 0;
    o.leader_elect = false;
    o.controller.view.watch_vpa = false;
    return o;
  }

  // What start() throws (the test fails when it returns).
  static std::string start_error(ControllerProcess& process) {
    try {
      process.start();
    } catch (const std::exception& e) {
      return e.what();
    }
    ADD_FAILURE() << "start() succeeded";
    return "";
  }

  void expect_nothing_listening() const {
    EXPECT_FALSE(accepts_connections(metrics_port_));
    EXPECT_FALSE(accepts_connections(usage_port_));
  }

  std::filesystem::path dir_;
  std::uint16_t metrics_port_ = free_loopback_port();
  std::uint16_t usage_port_ = free_loopback_port();
};

TEST_F(ControllerProcessTest, AMissingKubeconfigIsNamed) {
  ProcessOptions o = options();
  o.common.kubeconfig = (dir_ / "missing").string();
  ControllerProcess process(o);
  EXPECT_THAT(start_error(process), HasSubstr("cannot read kubeconfig '" + o.common.kubeconfig));
  expect_nothing_listening();
  process.stop();  // after a failed start: nothing to do
}

// Found before the informers start: nothing else was started, so the failure is quick.
TEST_F(ControllerProcessTest, AMetricsPortInUseIsNamed) {
  kube::metrics::Registry registry;
  kube::health::Checks checks;
  kube::observe::Endpoint other("127.0.0.1", 0, registry, checks);  // another process's
  other.start();
  ProcessOptions o = options();
  o.common.metrics_bind_address.port = other.port();
  ControllerProcess process(o);
  EXPECT_THAT(start_error(process), HasSubstr("127.0.0.1:" + std::to_string(other.port())));
  EXPECT_TRUE(accepts_connections(other.port()));  // untouched
  EXPECT_FALSE(accepts_connections(usage_port_));
}

// The usage stream moves pods: without the files that authenticate agents the controller does not
// start, rather than accept anyone.
TEST_F(ControllerProcessTest, AUsageStreamWithoutClientAuthenticationIsRefused) {
  ProcessOptions o = options();
  o.usage_insecure = false;
  ControllerProcess process(o);
  EXPECT_THAT(start_error(process), HasSubstr("node agents must authenticate: set "
                                              "--usage-tls-cert-file, --usage-tls-key-file and "
                                              "--usage-client-ca-file"));
  expect_nothing_listening();
}

}  // namespace
}  // namespace tailor::controller
