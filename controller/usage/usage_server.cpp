#include "controller/usage/usage_server.h"

#include <grpc/grpc_security_constants.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "controller/usage/stall_watch.h"
#include "controller/usage/streamed_containers.h"
#include "controller/usage/usage_feed.h"
#include "controller/usage/usage_gate.h"
#include "controller/usage/usage_report.h"
#include "kube/client/rate_limiter.h"
#include "kube/observe/log.h"
#include "kube/observe/metrics.h"
#include "kube/observe/options.h"
#include "proto/usage/usage.grpc.pb.h"

namespace tailor::controller::usage {
namespace {

namespace pb = tailor::usage::v1;

std::shared_ptr<grpc::ServerCredentials> credentials(const UsageServerOptions& o) {
  if (o.insecure) return grpc::InsecureServerCredentials();
  if (o.tls.cert_file.empty() || o.tls.key_file.empty() || o.tls.client_ca_file.empty()) {
    throw std::invalid_argument(
        "usage server: node agents must authenticate: set --usage-tls-cert-file, "
        "--usage-tls-key-file and --usage-client-ca-file (--usage-insecure only for tests)");
  }
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  using kube::config::read_flag_file;
  ssl.pem_root_certs = read_flag_file(o.tls.client_ca_file, "usage-client-ca-file");
  ssl.pem_key_cert_pairs.push_back({read_flag_file(o.tls.key_file, "usage-tls-key-file"),
                                    read_flag_file(o.tls.cert_file, "usage-tls-cert-file")});
  return grpc::SslServerCredentials(ssl);
}

// The node the peer's verified client certificate names; nullopt when it names none.
std::optional<std::string> peer_node(const grpc::ServerContext& context) {
  const auto subjects = context.auth_context()->FindPropertyValues(GRPC_X509_SUBJECT_PROPERTY_NAME);
  if (subjects.size() != 1) return std::nullopt;
  return node_of_subject(std::string_view(subjects[0].data(), subjects[0].size()));
}

// tailor_controller_usage_windows_rejected_total{reason}, every reason at zero from the start.
class RejectionCounters {
 public:
  RejectionCounters() {
    auto family = kube::metrics::registry().counter(
        {.subsystem = "controller",
         .name = "usage_windows_rejected_total",
         .help = "Usage windows dropped before the recommender, by reason: unauthenticated, "
                 "wrong_node, unknown_pod, rate_limited, invalid."});
    for (Rejection r : kRejections) {
      counters_[static_cast<std::size_t>(r)] =
          &family.with({{"reason", std::string(rejection_reason(r))}});
    }
  }
  void add(Rejection r, double n = 1) { counters_[static_cast<std::size_t>(r)]->Increment(n); }

 private:
  std::array<prometheus::Counter*, kRejectionCount> counters_{};
};

RejectionCounters& rejection_counters() {
  static RejectionCounters counters;
  return counters;
}

}  // namespace

std::string usage_bind_address(const std::string& flag, const std::string& pod_ip,
                               int port_number) {
  if (!flag.empty()) return flag;
  const std::string port = ":" + std::to_string(port_number);
  if (pod_ip.empty()) return "127.0.0.1" + port;
  if (pod_ip.find(':') != std::string::npos) return "[" + pod_ip + "]" + port;
  return pod_ip + port;
}

struct UsageServer::Impl final : pb::UsageService::Service {
  UsageServerOptions options;
  UsageSink sink;
  std::unique_ptr<StallWatch> watch;  // outlives the server's handlers
  std::unique_ptr<UsageGate> gate;    // on the usage port when connections are capped
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::atomic<std::uint64_t> reports{0}, windows{0};
  std::array<std::atomic<std::uint64_t>, kRejectionCount> rejected{};

  // The client's address: through the gate, gRPC sees the relay's loopback one.
  std::string peer(const grpc::ServerContext& context) const {
    return gate ? gate->peer_of(context.peer()) : context.peer();
  }

  void reject(Rejection r, std::uint64_t n = 1) {
    rejected[static_cast<std::size_t>(r)] += n;
    rejection_counters().add(r, static_cast<double>(n));
  }

  // Why a window must be dropped; nullopt when it may reach the recommender. The budget comes
  // first, so that a flood costs no informer look-ups.
  std::optional<Rejection> judge(const std::optional<std::string>& node, const UsageWindow& w,
                                 kube::TokenBucket& budget) const {
    if (!budget.try_take(kube::TokenBucket::Clock::now())) return Rejection::kRateLimited;
    if (!node) return Rejection::kWrongNode;
    if (!window_problem(w, unix_now_ms()).empty()) return Rejection::kInvalid;
    if (!options.pod_node) return std::nullopt;
    return binding_problem(*node, options.pod_node(w.ns, w.pod));
  }

  // A client the usage CA signed whose certificate names no node (a CA shared with other uses,
  // a wrong certificate): its first report is counted and the stream refused.
  grpc::Status refuse(const grpc::ServerContext& context,
                      grpc::ServerReader<pb::UsageReport>* reader) {
    pb::UsageReport report;
    if (reader->Read(&report)) reject(Rejection::kUnauthenticated, report.windows_size());
    kube::log::warning("Usage stream refused: the client certificate names no node",
                       {{"peer", peer(context)}});
    return {grpc::StatusCode::UNAUTHENTICATED,
            "the client certificate names no node: want subject CN=system:node:<nodeName>, "
            "O=system:nodes"};
  }

  grpc::Status Report(grpc::ServerContext* context, grpc::ServerReader<pb::UsageReport>* reader,
                      pb::ReportSummary* summary) override {
    const Reporter reporter{.insecure = options.insecure,
                            .node = options.insecure ? std::nullopt : peer_node(*context)};
    if (!reporter.insecure && !reporter.node) return refuse(*context, reader);
    kube::TokenBucket budget(options.windows_per_second, options.windows_burst,
                             kube::TokenBucket::Clock::now());
    pb::UsageReport report;
    std::uint64_t mine_reports = 0, mine_windows = 0;
    StallWatch::Watched watched(*watch, *context, peer(*context));
    while (reader->Read(&report)) {
      watched.delivered();
      ++mine_reports;
      ++reports;
      const std::optional<std::string> node = reporter.node_of(report);
      for (const pb::ContainerWindow& w : report.windows()) {
        UsageWindow window = window_from_proto(node.value_or(""), w);
        if (const auto problem = judge(node, window, budget)) {
          reject(*problem);
          continue;
        }
        ++mine_windows;
        ++windows;
        if (options.streamed) options.streamed->record(window);
        sink(window);
      }
    }
    summary->set_reports(mine_reports);
    summary->set_windows(mine_windows);
    return grpc::Status::OK;
  }
};

UsageServer::UsageServer(UsageServerOptions options, UsageSink sink)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->sink = std::move(sink);
}

UsageServer::~UsageServer() { stop(); }

void UsageServer::start() {
  rejection_counters();  // the series exist, at zero, before the first stream
  const UsageServerOptions& o = impl_->options;
  // Capped: the gate holds the usage port and gRPC listens on loopback behind it (usage_gate.h).
  const bool gated = o.limits.max_connections > 0;
  grpc::ServerBuilder builder;
  int grpc_port = 0;
  builder.AddListeningPort(gated ? "127.0.0.1:0" : o.address, credentials(o), &grpc_port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(impl_->options.max_message_bytes));
  apply_limits(builder, impl_->options.limits);
  builder.RegisterService(impl_.get());
  impl_->watch = std::make_unique<StallWatch>(impl_->options.limits.stall_timeout);
  impl_->server = builder.BuildAndStart();
  if (!impl_->server || grpc_port == 0) {
    throw std::runtime_error("usage server: cannot listen on " +
                             (gated ? "127.0.0.1 (behind the gate)" : o.address));
  }
  impl_->port = grpc_port;
  if (!gated) return;
  impl_->gate =
      std::make_unique<UsageGate>(GateOptions{.address = o.address,
                                              .upstream_port = grpc_port,
                                              .max_connections = o.limits.max_connections,
                                              .first_byte_timeout = o.limits.handshake_timeout,
                                              .half_closed_timeout = o.limits.handshake_timeout});
  impl_->gate->start();
  impl_->port = impl_->gate->port();
}

void UsageServer::stop() {
  if (!impl_->server) return;
  // Agents keep their streams open: give them a moment, then cancel.
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  impl_->server->Wait();
  impl_->server.reset();
  // Then the connections gRPC has not closed yet (silent ones) and the port.
  if (impl_->gate) impl_->gate->stop();
  impl_->gate.reset();
}

int UsageServer::port() const { return impl_->port; }

UsageStats UsageServer::stats() const {
  UsageStats stats{.reports = impl_->reports.load(),
                   .windows = impl_->windows.load(),
                   .streams_cut = impl_->watch ? impl_->watch->cut() : 0};
  if (impl_->gate) {
    const GateStats gate = impl_->gate->stats();
    stats.connections = gate.open;
    stats.silent_closed = gate.silent_closed;
  }
  for (std::size_t i = 0; i < kRejectionCount; ++i) {
    stats.rejected[i] = impl_->rejected[i].load();
    stats.dropped += stats.rejected[i];
  }
  return stats;
}

}  // namespace tailor::controller::usage
