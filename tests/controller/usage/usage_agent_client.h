// A node agent's side of the usage stream for tests: the usage CA and the controller's serving
// certificate in files, client credentials for agents (or strangers), and reports sent over real
// gRPC. Shared by the stream's own tests and the controller's integration tests.
#pragma once

#include <grpcpp/grpcpp.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "controller/usage/usage_feed.h"
#include "controller/usage/usage_server.h"
#include "kube/http/tls_certs.h"
#include "proto/usage/usage.grpc.pb.h"

namespace tailor::controller::usage::testing {

namespace fs = std::filesystem;
namespace pb = tailor::usage::v1;
using kube::http::CertificateAndKey;

// The usage CA, the controller's serving certificate in files, and agents' credentials.
class UsagePki {
 public:
  UsagePki() {
    char pattern[] = "/tmp/usage-tls-XXXXXX";
    dir_ = ::mkdtemp(pattern);
    write("server.crt", server_.cert_pem);
    write("server.key", server_.key_pem);
    write("ca.crt", ca_.cert_pem);
  }
  ~UsagePki() { fs::remove_all(dir_); }

  UsageTlsFiles files() const {
    return {.cert_file = dir_ / "server.crt",
            .key_file = dir_ / "server.key",
            .client_ca_file = dir_ / "ca.crt"};
  }
  // An agent of `node`: CN=system:node:<node>, O=system:nodes, from the usage CA.
  std::shared_ptr<grpc::ChannelCredentials> agent(const std::string& node) const {
    return client("system:node:" + node, {"system:nodes"}, ca_);
  }
  std::shared_ptr<grpc::ChannelCredentials> client(const std::string& cn,
                                                   const std::vector<std::string>& orgs,
                                                   const CertificateAndKey& signer) const {
    const CertificateAndKey cert = kube::http::make_client_certificate(signer, cn, orgs);
    return grpc::SslCredentials({.pem_root_certs = ca_.cert_pem,
                                 .pem_private_key = cert.key_pem,
                                 .pem_cert_chain = cert.cert_pem});
  }
  // Trusts the server but shows no certificate of its own.
  std::shared_ptr<grpc::ChannelCredentials> anonymous() const {
    return grpc::SslCredentials({.pem_root_certs = ca_.cert_pem});
  }
  const CertificateAndKey& ca() const { return ca_; }
  const CertificateAndKey& other_ca() const { return other_ca_; }

 private:
  void write(const char* name, const std::string& pem) const { std::ofstream(dir_ / name) << pem; }

  CertificateAndKey ca_ = kube::http::make_ca("usage-ca");
  CertificateAndKey server_ =
      kube::http::make_server_certificate(ca_, "tailor-controller", {"localhost"}, {"127.0.0.1"});
  CertificateAndKey other_ca_ = kube::http::make_ca("usage-ca");  // same name, other key
  fs::path dir_;
};

inline pb::ContainerWindow window(const std::string& pod, double cpu) {
  pb::ContainerWindow w;
  w.mutable_container()->set_namespace_("shop");
  w.mutable_container()->set_pod(pod);
  w.mutable_container()->set_container("app");
  w.set_end_unix_ms(unix_now_ms());
  w.set_start_unix_ms(w.end_unix_ms() - 60'000);
  w.set_samples(12);
  w.set_cpu_cores_mean(cpu);
  w.set_cpu_cores_max(cpu);
  w.set_memory_working_set_max_bytes(64 << 20);
  w.set_memory_peak_bytes(783'000'000);
  return w;
}

inline pb::UsageReport report(const std::string& node, const std::vector<std::string>& pods) {
  pb::UsageReport r;
  r.set_node(node);
  for (const std::string& pod : pods) *r.add_windows() = window(pod, 0.801);
  return r;
}

struct Sent {
  grpc::Status status;
  pb::ReportSummary summary;
};

inline Sent send(const std::shared_ptr<grpc::Channel>& channel,
                 const std::vector<pb::UsageReport>& reports,
                 std::chrono::milliseconds within = std::chrono::seconds(10)) {
  auto stub = pb::UsageService::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + within);
  Sent sent;
  auto writer = stub->Report(&context, &sent.summary);
  for (const pb::UsageReport& r : reports) {
    if (!writer->Write(r)) break;
  }
  writer->WritesDone();
  sent.status = writer->Finish();
  return sent;
}

inline Sent send(int port, const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                 const std::vector<pb::UsageReport>& reports,
                 std::chrono::milliseconds within = std::chrono::seconds(10)) {
  return send(grpc::CreateChannel("127.0.0.1:" + std::to_string(port), credentials), reports,
              within);
}

// The value of a series (its name and labels as written, e.g. `a_total{reason="x"}`) in a
// /metrics text; -1 when the series is not there.
inline double series_value(const std::string& metrics_text, const std::string& series) {
  const std::string line = "\n" + series + " ";  // a sample's line, not its # HELP or # TYPE
  const auto at = ("\n" + metrics_text).find(line);
  if (at == std::string::npos) return -1;
  return std::stod(metrics_text.substr(at + line.size() - 1));
}

// The value of tailor_controller_usage_windows_rejected_total{reason} in a /metrics text; -1
// when the series is not there.
inline double rejected_windows(const std::string& metrics_text, const std::string& reason) {
  return series_value(metrics_text,
                      "tailor_controller_usage_windows_rejected_total{reason=\"" + reason + "\"}");
}

}  // namespace tailor::controller::usage::testing
