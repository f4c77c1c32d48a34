#include "controller/webhook/webhook_server.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <thread>

#include "kube/http/client.h"
#include "kube/http/tls_certs.h"

namespace tailor::controller::webhook {
namespace {

namespace bj = boost::json;
namespace fs = std::filesystem;
using kube::http::Client;
using kube::http::ClientError;
using kube::http::ClientResponse;

const std::string kReview =
    R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"u-7",
        "kind":{"group":"","version":"v1","kind":"Pod"},"operation":"CREATE","namespace":"ns",
        "object":{"spec":{"containers":[{"name":"app"}]}}}})";

AdmissionResponse set_memory(const AdmissionRequest& r) {
  AdmissionResponse out{.uid = r.uid};
  out.patch_json = container_resources_patch(
      r.object_json, {{"app", {{"memory", kube::Quantity::parse("64Mi")}}, {}}});
  return out;
}

ClientResponse post(const std::string& ca, std::uint16_t port, const std::string& body,
                    const std::string& path = "/mutate-pods") {
  Client client({.base_url = "https://127.0.0.1:" + std::to_string(port), .tls = {.ca_pem = ca}});
  return client.send({.method = "POST",
                      .target = path,
                      .headers = {{"Content-Type", "application/json"}},
                      .body = body});
}

bj::object response_of(const ClientResponse& r) {
  return bj::parse(r.body).at("response").as_object();
}

TEST(WebhookServer, AnswersAReviewWithThePatch) {
  WebhookServer server({.address = "127.0.0.1"}, set_memory);
  server.start();
  ClientResponse r = post(server.ca_pem(), server.port(), kReview);
  ASSERT_EQ(r.status, 200) << r.body;
  bj::object resp = response_of(r);
  EXPECT_EQ(resp.at("uid"), "u-7");
  EXPECT_EQ(resp.at("allowed"), true);
  EXPECT_EQ(resp.at("patchType"), "JSONPatch");
  EXPECT_EQ(server.stats().reviewed, 1u);
  EXPECT_EQ(server.stats().patched, 1u);
}

TEST(WebhookServer, LateOrFailingDecisionsAllowThePodUnchanged) {
  WebhookServer slow({.address = "127.0.0.1", .time_budget = std::chrono::milliseconds(50)},
                     [](const AdmissionRequest& r) {
                       std::this_thread::sleep_for(std::chrono::milliseconds(500));
                       return set_memory(r);
                     });
  slow.start();
  bj::object late = response_of(post(slow.ca_pem(), slow.port(), kReview));
  EXPECT_EQ(late.at("allowed"), true);
  EXPECT_FALSE(late.contains("patch"));
  EXPECT_EQ(late.at("warnings").as_array().at(0),
            "tailor: no recommendation applied: the webhook ran out of time");
  EXPECT_EQ(slow.stats().late, 1u);

  WebhookServer failing({.address = "127.0.0.1"}, [](const AdmissionRequest&) -> AdmissionResponse {
    throw std::runtime_error("no policy cache yet");
  });
  failing.start();
  bj::object failed = response_of(post(failing.ca_pem(), failing.port(), kReview));
  EXPECT_EQ(failed.at("allowed"), true);
  EXPECT_EQ(failed.at("warnings").as_array().at(0),
            "tailor: no recommendation applied: no policy cache yet");
  EXPECT_EQ(failing.stats().failed, 1u);
}

TEST(WebhookServer, RejectsBadRequests) {
  WebhookServer server({.address = "127.0.0.1", .max_request_bytes = 4096}, set_memory);
  server.start();
  EXPECT_EQ(post(server.ca_pem(), server.port(), "{not json").status, 400);
  EXPECT_EQ(post(server.ca_pem(), server.port(), std::string(5000, ' ')).status, 413);
  EXPECT_EQ(post(server.ca_pem(), server.port(), kReview, "/other").status, 404);
  EXPECT_EQ(server.stats().rejected, 2u);
  EXPECT_EQ(server.stats().reviewed, 0u);
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

TEST(WebhookServer, ReloadsRotatedCertificateFiles) {
  fs::path dir = fs::temp_directory_path() / ("webhook-certs-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto ca1 = kube::http::make_ca("ca-1");
  auto ca2 = kube::http::make_ca("ca-2");
  auto cert1 = kube::http::make_server_certificate(ca1, "w", {"localhost"}, {"127.0.0.1"});
  auto cert2 = kube::http::make_server_certificate(ca2, "w", {"localhost"}, {"127.0.0.1"});
  write(dir / "tls.crt", cert1.cert_pem);
  write(dir / "tls.key", cert1.key_pem);
  WebhookServer server({.address = "127.0.0.1",
                        .cert_file = (dir / "tls.crt").string(),
                        .key_file = (dir / "tls.key").string(),
                        .cert_check_interval = std::chrono::seconds(3600)},
                       set_memory);
  server.start();
  EXPECT_EQ(post(ca1.cert_pem, server.port(), kReview).status, 200);
  write(dir / "tls.key", "garbage");
  EXPECT_FALSE(server.reload_certificate_if_changed());  // old certificate kept
  EXPECT_EQ(post(ca1.cert_pem, server.port(), kReview).status, 200);
  write(dir / "tls.crt", cert2.cert_pem + std::string(1, '\n'));
  write(dir / "tls.key", cert2.key_pem);
  EXPECT_TRUE(server.reload_certificate_if_changed());
  EXPECT_EQ(post(ca2.cert_pem, server.port(), kReview).status, 200);
  EXPECT_THROW(post(ca1.cert_pem, server.port(), kReview), ClientError);
  EXPECT_EQ(server.stats().certificate_reloads, 1u);
  fs::remove_all(dir);
}

TEST(WebhookServer, RefusesToStartWithHalfACertificate) {
  WebhookServer server({.address = "127.0.0.1", .cert_file = "/nonexistent.crt"}, set_memory);
  EXPECT_THROW(server.start(), std::runtime_error);
}

}  // namespace
}  // namespace tailor::controller::webhook
