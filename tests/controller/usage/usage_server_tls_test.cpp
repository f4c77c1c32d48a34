// The usage stream's trust over real gRPC and TLS: only a node agent with a certificate from the
// usage CA may stream, and only about pods bound to its node; what is refused is counted by
// reason. Issue 16 finding 1: before, a plaintext client could report any pod.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <map>
#include <mutex>
#include <vector>

#include "controller/usage/usage_server.h"
#include "kube/observe/metrics.h"
#include "tests/controller/usage/usage_agent_client.h"

namespace tailor::controller::usage {
namespace {

using testing::report;
using testing::send;
using testing::Sent;
using testing::UsagePki;

// Pods as the controller's informer has them: web-a on node-a, web-b on node-b.
std::optional<std::string> pod_node(const std::string& ns, const std::string& pod) {
  static const std::map<std::string, std::string> nodes = {{"shop/web-a", "node-a"},
                                                           {"shop/web-b", "node-b"}};
  auto it = nodes.find(ns + "/" + pod);
  if (it == nodes.end()) return std::nullopt;
  return it->second;
}

double rejected_metric(const std::string& reason) {
  return testing::rejected_windows(kube::metrics::registry().serialize(), reason);
}

class UsageServerTls : public ::testing::Test {
 protected:
  void start(UsageServerOptions options) {
    options.address = "127.0.0.1:0";
    server_ = std::make_unique<UsageServer>(std::move(options), [this](const UsageWindow& w) {
      std::lock_guard lock(mutex_);
      seen_.push_back(w);
    });
    server_->start();
  }
  std::vector<UsageWindow> seen() {
    std::lock_guard lock(mutex_);
    return seen_;
  }

  UsagePki pki_;
  std::unique_ptr<UsageServer> server_;
  std::mutex mutex_;
  std::vector<UsageWindow> seen_;
};

TEST_F(UsageServerTls, AForgedWindowFromAClientWithoutACertificateIsRefused) {
  start({.tls = pki_.files(), .pod_node = pod_node});
  const auto forged = report("node-a", {"web-a"});
  EXPECT_EQ(send(server_->port(), grpc::InsecureChannelCredentials(), {forged}).status.error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(send(server_->port(), pki_.anonymous(), {forged}).status.error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(seen().empty());
  EXPECT_EQ(server_->stats().reports, 0u);
}

TEST_F(UsageServerTls, AClientCertificateFromAnotherCaIsRefused) {
  start({.tls = pki_.files(), .pod_node = pod_node});
  const auto stranger = pki_.client("system:node:node-a", {"system:nodes"}, pki_.other_ca());
  EXPECT_EQ(send(server_->port(), stranger, {report("node-a", {"web-a"})}).status.error_code(),
            grpc::StatusCode::UNAVAILABLE);
  EXPECT_TRUE(seen().empty());
}

TEST_F(UsageServerTls, ACertificateNamingNoNodeIsRefusedAndCounted) {
  start({.tls = pki_.files(), .pod_node = pod_node});
  const double before = rejected_metric("unauthenticated");
  const Sent sent = send(server_->port(), pki_.client("mallory", {"system:nodes"}, pki_.ca()),
                         {report("node-a", {"web-a", "web-a"})});
  EXPECT_EQ(sent.status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(seen().empty());
  EXPECT_EQ(server_->stats().rejected_for(Rejection::kUnauthenticated), 2u);
  EXPECT_EQ(rejected_metric("unauthenticated"), before + 2);
}

TEST_F(UsageServerTls, AnAgentReportsOnlyThePodsOfItsOwnNode) {
  start({.tls = pki_.files(), .pod_node = pod_node});
  const double wrong_node_before = rejected_metric("wrong_node");
  const double unknown_before = rejected_metric("unknown_pod");
  const Sent sent = send(server_->port(), pki_.agent("node-a"),
                         {report("node-a", {"web-a", "web-b", "ghost"}),
                          // The certificate says node-a: a report claiming node-b is not its own.
                          report("node-b", {"web-b"})});
  ASSERT_TRUE(sent.status.ok()) << sent.status.error_message();
  EXPECT_EQ(sent.summary.reports(), 2u);
  EXPECT_EQ(sent.summary.windows(), 1u);
  const std::vector<UsageWindow> windows = seen();
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].pod, "web-a");
  EXPECT_EQ(windows[0].node, "node-a");
  const UsageStats stats = server_->stats();
  EXPECT_EQ(stats.rejected_for(Rejection::kWrongNode), 2u);
  EXPECT_EQ(stats.rejected_for(Rejection::kUnknownPod), 1u);
  EXPECT_EQ(stats.dropped, 3u);
  EXPECT_EQ(rejected_metric("wrong_node"), wrong_node_before + 2);
  EXPECT_EQ(rejected_metric("unknown_pod"), unknown_before + 1);
}

TEST_F(UsageServerTls, WindowsBeyondAStreamsBudgetAreDroppedAndCounted) {
  // One window a second after a burst of 3; the test sends 10 at once.
  start({.tls = pki_.files(), .pod_node = pod_node, .windows_per_second = 1, .windows_burst = 3});
  const double before = rejected_metric("rate_limited");
  const Sent sent = send(server_->port(), pki_.agent("node-a"),
                         {report("node-a", std::vector<std::string>(10, "web-a"))});
  ASSERT_TRUE(sent.status.ok()) << sent.status.error_message();
  // Rarely a second passes within the test and refills one window.
  EXPECT_GE(seen().size(), 3u);
  EXPECT_LE(seen().size(), 4u);
  EXPECT_EQ(server_->stats().rejected_for(Rejection::kRateLimited), 10 - seen().size());
  EXPECT_EQ(rejected_metric("rate_limited"), before + static_cast<double>(10 - seen().size()));
  // Another stream has a budget of its own.
  EXPECT_EQ(
      send(server_->port(), pki_.agent("node-b"), {report("node-b", {"web-b"})}).summary.windows(),
      1u);
}

TEST_F(UsageServerTls, InvalidWindowsOfAnAgentAreCountedAsInvalid) {
  start({.tls = pki_.files(), .pod_node = pod_node});
  tailor::usage::v1::UsageReport r = report("node-a", {"web-a", "web-a"});
  r.mutable_windows(1)->set_cpu_cores_mean(-1);
  ASSERT_TRUE(send(server_->port(), pki_.agent("node-a"), {r}).status.ok());
  EXPECT_EQ(seen().size(), 1u);
  EXPECT_EQ(server_->stats().rejected_for(Rejection::kInvalid), 1u);
}

TEST(UsageServerTlsFiles, AreRequiredUnlessInsecure) {
  UsageServer missing({.address = "127.0.0.1:0"}, [](const UsageWindow&) {});
  EXPECT_THROW(missing.start(), std::invalid_argument);
  UsageServer unreadable({.address = "127.0.0.1:0",
                          .tls = {.cert_file = "/nonexistent/tls.crt",
                                  .key_file = "/nonexistent/tls.key",
                                  .client_ca_file = "/nonexistent/ca.crt"}},
                         [](const UsageWindow&) {});
  try {
    unreadable.start();
    ADD_FAILURE() << "started without its certificate";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "cannot read --usage-client-ca-file /nonexistent/ca.crt");
  }
}

}  // namespace
}  // namespace tailor::controller::usage
