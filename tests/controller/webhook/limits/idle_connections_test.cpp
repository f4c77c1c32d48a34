// What idle clients can hold of the admission webhook (issue 16 finding 5): its server is the
// same kube::http::Server as tailor-cluster's (max_connections 512, read deadlines), so 2,500
// idle TCP connections leave memory within 50 MB of before, as
// tests/embedded/limits/connections_test.cpp shows for the API server, with the same helper. The
// controller's /metrics and health endpoint is that server too, with max_connections 64;
// bench/RESULTS.md records both through the real tailor-controller (bench_idle_connections
// --controller).
#include "tests/support/idle_connections.h"

#include <gtest/gtest.h>

#include "controller/webhook/webhook_server.h"
#include "kube/http/client.h"

namespace tailor::controller::webhook {
namespace {

constexpr const char* kReview =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-1",
        "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"ns",
        "object":{"spec":{"containers":[{"name":"app"}]}}}})";

int review_status(const WebhookServer& server) {
  kube::http::Client client({.base_url = "https://127.0.0.1:" + std::to_string(server.port()),
                             .tls = {.ca_pem = server.ca_pem()}});
  return client
      .send({.method = "POST",
             .target = "/mutate-pods",
             .headers = {{"Content-Type", "application/json"}},
             .body = kReview})
      .status;
}

TEST(WebhookServerLimits, IdleConnectionsLeaveMemoryWithin50MB) {
  ASSERT_GE(kube::testing::raise_open_files_limit(), 4000u)
      << "2,500 connections and the server's ends need descriptors";
  WebhookServer server({.address = "127.0.0.1"},
                       [](const AdmissionRequest& r) { return AdmissionResponse{.uid = r.uid}; });
  server.start();
  ASSERT_EQ(review_status(server), 200);
  kube::testing::expect_idle_connections_bounded(server.port(), 2500, 512);
  EXPECT_EQ(review_status(server), 200);  // and it serves on
}

}  // namespace
}  // namespace tailor::controller::webhook
