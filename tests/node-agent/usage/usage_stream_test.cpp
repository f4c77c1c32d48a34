// The usage stream against an in-process UsageService: reports arrive as sent, and a
// recommender that is not there costs reports, never the agent.
#include "node-agent/usage/usage_stream.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "kube/http/tls_certs.h"
#include "proto/usage/usage.grpc.pb.h"

namespace tailor::node::usage {
namespace {
namespace pb = tailor::usage::v1;

class Recommender final : public pb::UsageService::Service {
 public:
  grpc::Status Report(grpc::ServerContext* context, grpc::ServerReader<pb::UsageReport>* reader,
                      pb::ReportSummary* summary) override {
    for (const auto& subject : context->auth_context()->FindPropertyValues("x509_subject")) {
      std::lock_guard lock(mutex);
      subjects.emplace_back(subject.data(), subject.size());
    }
    pb::UsageReport report;
    while (reader->Read(&report)) {
      std::lock_guard lock(mutex);
      reports.push_back(report);
      summary->set_reports(summary->reports() + 1);
      summary->set_windows(summary->windows() + report.windows_size());
    }
    return grpc::Status::OK;
  }
  std::mutex mutex;
  std::vector<pb::UsageReport> reports;
  std::vector<std::string> subjects;  // of the clients' certificates
};

// The usage CA, a controller certificate for 127.0.0.1 and node n1's agent certificate, in files.
class AgentPki {
 public:
  AgentPki() {
    char pattern[] = "/tmp/usage-stream-tls-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    const auto agent = kube::http::make_client_certificate(ca_, "system:node:n1", {"system:nodes"});
    write("ca.crt", ca_.cert_pem);
    write("agent.crt", agent.cert_pem);
    write("agent.key", agent.key_pem);
    // As the kubelet keeps its client certificate: certificate and key in one file.
    write("kubelet-client-current.pem", agent.cert_pem + agent.key_pem);
  }
  ~AgentPki() { std::filesystem::remove_all(dir_); }

  UsageStreamTls files() const {
    return {.ca_file = dir_ / "ca.crt",
            .cert_file = dir_ / "agent.crt",
            .key_file = dir_ / "agent.key"};
  }
  // A controller that requires and verifies client certificates from the usage CA; its own
  // certificate from `signer`.
  std::unique_ptr<grpc::Server> serve(Recommender& service, int& port,
                                      const kube::http::CertificateAndKey& signer) const {
    const auto cert = kube::http::make_server_certificate(signer, "tailor-controller",
                                                          {"tailor-controller"}, {"127.0.0.1"});
    grpc::SslServerCredentialsOptions ssl(
        GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
    ssl.pem_root_certs = ca_.cert_pem;
    ssl.pem_key_cert_pairs.push_back({cert.key_pem, cert.cert_pem});
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::SslServerCredentials(ssl), &port);
    builder.RegisterService(&service);
    return builder.BuildAndStart();
  }
  const kube::http::CertificateAndKey& ca() const { return ca_; }
  std::filesystem::path kubelet_file() const { return dir_ / "kubelet-client-current.pem"; }
  // Replaces the agent's certificate files (a rotation).
  void rotate_agent_certificate(const kube::http::CertificateAndKey& signer) const {
    const auto agent =
        kube::http::make_client_certificate(signer, "system:node:n1", {"system:nodes"});
    write("agent.crt", agent.cert_pem);
    write("agent.key", agent.key_pem);
  }

 private:
  void write(const char* name, const std::string& pem) const { std::ofstream(dir_ / name) << pem; }
  kube::http::CertificateAndKey ca_ = kube::http::make_ca("usage-ca");
  std::filesystem::path dir_;
};

// A controller without TLS on a free loopback port.
std::unique_ptr<grpc::Server> serve_insecure(grpc::Service& service, int& port) {
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  return builder.BuildAndStart();
}

UsageWindow window(const std::string& container, double cpu) {
  UsageWindow w;
  w.container = {"shop", "web", "uid-1", container, "id-" + container};
  w.start_ms = 1000;
  w.end_ms = 61000;
  w.samples = 12;
  w.cpu_cores_mean = cpu;
  w.cpu_cores_max = cpu * 2;
  w.working_set_max_bytes = 300;
  w.peak_bytes = 400;
  w.oom_kills = 1;
  return w;
}

TEST(UsageStream, DeliversReportsOnOneStream) {
  Recommender service;
  int port = 0;
  auto server = serve_insecure(service, port);
  ASSERT_GT(port, 0);

  UsageStream stream(
      {.endpoint = "127.0.0.1:" + std::to_string(port), .node_name = "n1", .insecure = true});
  EXPECT_TRUE(stream.send({window("app", 0.5), window("sidecar", 0.1)}));
  EXPECT_TRUE(stream.send({window("app", 0.7)}));
  EXPECT_EQ(stream.close(), 2u);  // the recommender counted both reports on one stream
  ASSERT_EQ(service.reports.size(), 2u);
  const auto& first = service.reports[0];
  EXPECT_EQ(first.node(), "n1");
  ASSERT_EQ(first.windows_size(), 2);
  EXPECT_EQ(first.windows(0).container().container(), "app");
  EXPECT_EQ(first.windows(0).container().namespace_(), "shop");
  EXPECT_DOUBLE_EQ(first.windows(0).cpu_cores_mean(), 0.5);
  EXPECT_EQ(first.windows(0).samples(), 12u);
  EXPECT_EQ(first.windows(0).memory_peak_bytes(), 400);
  EXPECT_EQ(first.windows(0).oom_kills(), 1u);
  EXPECT_EQ(stream.stats().sent, 2u);
  server->Shutdown();
}

// A controller that ends every stream after its first report, as tailor-controller cuts a
// stream that stays quiet past its stall timeout.
class CutsEachStream final : public pb::UsageService::Service {
 public:
  grpc::Status Report(grpc::ServerContext* context, grpc::ServerReader<pb::UsageReport>* reader,
                      pb::ReportSummary*) override {
    pb::UsageReport report;
    if (reader->Read(&report)) ++reports;
    context->TryCancel();
    return grpc::Status::OK;
  }
  std::atomic<int> reports{0};
};

TEST(UsageStream, AReportAfterTheControllerEndedTheStreamGoesOnANewOne) {
  CutsEachStream service;
  int port = 0;
  auto server = serve_insecure(service, port);
  ASSERT_GT(port, 0);

  UsageStream stream(
      {.endpoint = "127.0.0.1:" + std::to_string(port), .node_name = "n1", .insecure = true});
  for (int i = 1; i <= 3; ++i) {
    EXPECT_TRUE(stream.send({window("app", 0.5)}));
    for (int waited = 0; service.reports < i && waited < 100; ++waited) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));  // the cut reaches the agent
  }
  EXPECT_EQ(service.reports, 3);
  EXPECT_EQ(stream.stats().sent, 3u);
  EXPECT_EQ(stream.stats().dropped, 0u);
  server->Shutdown();
}

TEST(UsageStream, AuthenticatesWithTheNodesCertificate) {
  AgentPki pki;
  Recommender service;
  int port = 0;
  auto server = pki.serve(service, port, pki.ca());
  ASSERT_GT(port, 0);
  UsageStream stream(
      {.endpoint = "127.0.0.1:" + std::to_string(port), .node_name = "n1", .tls = pki.files()});
  EXPECT_TRUE(stream.send({window("app", 0.5)}));
  EXPECT_EQ(stream.close(), 1u);
  ASSERT_EQ(service.subjects.size(), 1u);
  EXPECT_NE(service.subjects[0].find("CN=system:node:n1"), std::string::npos)
      << service.subjects[0];
  EXPECT_NE(service.subjects[0].find("O=system:nodes"), std::string::npos) << service.subjects[0];
  server->Shutdown();
}

// The chart hands the agent its kubelet's client certificate, key in the same file.
TEST(UsageStream, AuthenticatesWithTheKubeletsCombinedCertificateFile) {
  AgentPki pki;
  Recommender service;
  int port = 0;
  auto server = pki.serve(service, port, pki.ca());
  UsageStreamTls tls = pki.files();
  tls.cert_file = tls.key_file = pki.kubelet_file();
  UsageStream stream(
      {.endpoint = "127.0.0.1:" + std::to_string(port), .node_name = "n1", .tls = tls});
  EXPECT_TRUE(stream.send({window("app", 0.5)}));
  EXPECT_EQ(stream.close(), 1u);
  ASSERT_EQ(service.subjects.size(), 1u);
  EXPECT_NE(service.subjects[0].find("CN=system:node:n1"), std::string::npos);
  server->Shutdown();
}

// A server whose certificate the usage CA did not sign gets no windows: they could tell another
// party the node's workloads.
TEST(UsageStream, RefusesAControllerTheUsageCaDidNotSign) {
  AgentPki pki;
  Recommender service;
  int port = 0;
  const auto impostor_ca = kube::http::make_ca("usage-ca");
  auto server = pki.serve(service, port, impostor_ca);
  UsageStream stream({.endpoint = "127.0.0.1:" + std::to_string(port),
                      .node_name = "n1",
                      .tls = pki.files(),
                      .connect_timeout = std::chrono::milliseconds(500)});
  EXPECT_FALSE(stream.send({window("app", 0.5)}));
  EXPECT_EQ(stream.stats().dropped, 1u);
  EXPECT_TRUE(service.reports.empty());
  server->Shutdown();
}

// The agent's certificate was not (or no longer) accepted: once the files hold one that is, the
// stream reads them again and delivers, without a restart.
TEST(UsageStream, ReadsItsCertificateAgainAfterAFailedHandshake) {
  AgentPki pki;
  Recommender service;
  int port = 0;
  auto server = pki.serve(service, port, pki.ca());
  pki.rotate_agent_certificate(kube::http::make_ca("usage-ca"));  // one the controller refuses
  UsageStream stream({.endpoint = "127.0.0.1:" + std::to_string(port),
                      .node_name = "n1",
                      .tls = pki.files(),
                      .connect_timeout = std::chrono::milliseconds(500)});
  EXPECT_FALSE(stream.send({window("app", 0.5)}));
  pki.rotate_agent_certificate(pki.ca());
  EXPECT_TRUE(stream.send({window("app", 0.6)}));
  EXPECT_EQ(stream.close(), 1u);
  EXPECT_EQ(service.reports.size(), 1u);
  server->Shutdown();
}

TEST(UsageStream, NeedsItsCertificateUnlessInsecure) {
  try {
    UsageStream stream({.endpoint = "127.0.0.1:1", .node_name = "n1"});
    ADD_FAILURE() << "made a stream without a certificate";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "usage stream: the controller accepts only authenticated agents: set "
                 "--usage-ca-file, --usage-cert-file and --usage-key-file (--usage-insecure only "
                 "for tests)");
  }
  EXPECT_THROW(UsageStream({.endpoint = "127.0.0.1:1",
                            .node_name = "n1",
                            .tls = {.ca_file = "/nonexistent/ca.crt",
                                    .cert_file = "/nonexistent/tls.crt",
                                    .key_file = "/nonexistent/tls.key"}}),
               std::runtime_error);
}

TEST(UsageStream, AMissingRecommenderDropsReports) {
  UsageStream stream({.endpoint = "unix:///nonexistent/tailor-recommender.sock",
                      .node_name = "n1",
                      .insecure = true,
                      .connect_timeout = std::chrono::milliseconds(100)});
  EXPECT_FALSE(stream.send({window("app", 0.5)}));
  EXPECT_EQ(stream.stats().dropped, 1u);
  EXPECT_FALSE(stream.close());
  EXPECT_THROW(UsageStream({.endpoint = "", .insecure = true}), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::node::usage
