// The controller's webhook self-registration against tailor-cluster, judged by kubectl: the
// configuration is created, re-pointed when the controller comes back on another port with
// another CA, and the API server really calls the registered URL on pod CREATE.
#include <gtest/gtest.h>

#include <atomic>

#include "controller/webhook/registration.h"
#include "controller/webhook/webhook_server.h"
#include "kube/client/rest_client.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::controller::webhook {
namespace {

using embedded::testing::ApiOnlyKubectlTest;

constexpr const char* kPod = R"({"apiVersion":"v1","kind":"Pod",
 "metadata":{"name":"p","namespace":"default"},
 "spec":{"containers":[{"name":"app","image":"busybox"}]}})";

class WebhookRegistrationTest : public ApiOnlyKubectlTest {
 protected:
  std::unique_ptr<WebhookServer> serve(std::atomic<int>& calls) {
    auto server = std::make_unique<WebhookServer>(
        WebhookOptions{.address = "127.0.0.1", .dns_names = {"localhost"}},
        [&calls](const AdmissionRequest& r) {
          ++calls;
          return AdmissionResponse{.uid = r.uid};
        });
    server->start();
    return server;
  }
  std::string registered_url() {
    return kubectl(
               "get mutatingwebhookconfiguration tailor-controller "
               "-o jsonpath={.webhooks[0].clientConfig.url}")
        .out;
  }
};

TEST_F(WebhookRegistrationTest, CreatesThenRepointsAndTheApiServerCallsIt) {
  kube::RestClient client(rest_config());
  std::atomic<int> first_calls{0}, second_calls{0};
  auto first = serve(first_calls);
  register_webhook(client, {.url = first->url(), .ca_pem = first->ca_pem()});
  EXPECT_EQ(registered_url(), first->url());
  EXPECT_EQ(kubectl("get mutatingwebhookconfiguration tailor-controller "
                    "-o jsonpath={.webhooks[0].failurePolicy}")
                .out,
            "Ignore");

  auto second = serve(second_calls);  // a restarted controller: new port, new CA
  ASSERT_NE(second->url(), first->url());
  register_webhook(client, {.url = second->url(), .ca_pem = second->ca_pem()});
  EXPECT_EQ(registered_url(), second->url());

  create("pod", kPod);
  EXPECT_EQ(second_calls.load(), 1);
  EXPECT_EQ(first_calls.load(), 0);
}

TEST_F(WebhookRegistrationTest, RefusesToRegisterWithoutUrlOrCa) {
  kube::RestClient client(rest_config());
  EXPECT_THROW(register_webhook(client, {.url = "", .ca_pem = "x"}), std::invalid_argument);
  EXPECT_THROW(register_webhook(client, {.url = "https://127.0.0.1:1/m", .ca_pem = ""}),
               std::invalid_argument);
  EXPECT_NE(kubectl("get mutatingwebhookconfiguration tailor-controller").exit_code, 0);
}

}  // namespace
}  // namespace tailor::controller::webhook
