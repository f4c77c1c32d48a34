#include "node-agent/usage/usage_stream.h"

#include <grpcpp/grpcpp.h>

#include <mutex>

#include "kube/observe/log.h"
#include "kube/observe/options.h"
#include "proto/usage/usage.grpc.pb.h"

namespace tailor::node::usage {
namespace {
namespace pb = tailor::usage::v1;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void fill(pb::ContainerWindow& out, const UsageWindow& in) {
  auto& ref = *out.mutable_container();
  ref.set_namespace_(in.container.ns);
  ref.set_pod(in.container.pod);
  ref.set_pod_uid(in.container.pod_uid);
  ref.set_container(in.container.container);
  ref.set_container_id(in.container.container_id);
  out.set_start_unix_ms(in.start_ms);
  out.set_end_unix_ms(in.end_ms);
  out.set_samples(in.samples);
  out.set_cpu_cores_mean(in.cpu_cores_mean);
  out.set_cpu_cores_max(in.cpu_cores_max);
  out.set_memory_working_set_max_bytes(in.working_set_max_bytes);
  out.set_memory_working_set_last_bytes(in.working_set_last_bytes);
  out.set_memory_peak_bytes(in.peak_bytes);
  out.set_oom_kills(in.oom_kills);
}

std::shared_ptr<grpc::Channel> make_channel(const std::string& target,
                                            const UsageStreamOptions& o) {
  if (o.insecure) return grpc::CreateChannel(target, grpc::InsecureChannelCredentials());
  using kube::config::read_flag_file;
  const UsageStreamTls& tls = o.tls;
  if (tls.ca_file.empty() || tls.cert_file.empty() || tls.key_file.empty()) {
    throw std::invalid_argument(
        "usage stream: the controller accepts only authenticated agents: set --usage-ca-file, "
        "--usage-cert-file and --usage-key-file (--usage-insecure only for tests)");
  }
  auto credentials =
      grpc::SslCredentials({.pem_root_certs = read_flag_file(tls.ca_file, "usage-ca-file"),
                            .pem_private_key = read_flag_file(tls.key_file, "usage-key-file"),
                            .pem_cert_chain = read_flag_file(tls.cert_file, "usage-cert-file")});
  grpc::ChannelArguments args;
  if (!tls.server_name.empty()) args.SetSslTargetNameOverride(tls.server_name);
  return grpc::CreateCustomChannel(target, credentials, args);
}

}  // namespace

struct UsageStream::Impl {
  explicit Impl(UsageStreamOptions o) : options(std::move(o)) {}
  UsageStreamOptions options;
  std::string target;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<pb::UsageService::Stub> stub;
  bool unreachable = false;  // the last attempt did not connect
  mutable std::mutex mutex;
  std::unique_ptr<grpc::ClientContext> context;
  pb::ReportSummary summary;
  std::unique_ptr<grpc::ClientWriter<pb::UsageReport>> writer;
  UsageStreamStats stats;

  void connect() {
    channel = make_channel(target, options);
    stub = pb::UsageService::NewStub(channel);
  }

  // A controller that could not be reached may be one whose handshake our certificate no longer
  // passes (the kubelet rotated its client certificate, a new usage CA): the next attempt reads
  // the files again. Until they read, the channel made from the last good ones stays.
  void reconnect() {
    unreachable = false;
    if (options.insecure) return;
    try {
      connect();
    } catch (const std::exception& e) {
      kube::log::warning("Usage stream: keeping the certificates read before",
                         {{"error", std::string(e.what())}});
    }
  }

  bool open() {
    if (writer) return true;
    if (unreachable) reconnect();
    if (!channel->WaitForConnected(std::chrono::system_clock::now() + options.connect_timeout)) {
      unreachable = true;
      return false;
    }
    context = std::make_unique<grpc::ClientContext>();
    summary.Clear();
    writer = stub->Report(context.get(), &summary);
    return writer != nullptr;
  }

  // Sends on the open stream, opening one if needed; a stream that broke is ended, so that
  // the next write opens a new one.
  bool write(const pb::UsageReport& report) {
    if (open() && writer->Write(report)) return true;
    finish();
    return false;
  }

  std::optional<std::uint64_t> finish() {
    if (!writer) return std::nullopt;
    writer->WritesDone();
    const grpc::Status status = writer->Finish();
    writer.reset();
    context.reset();
    if (!status.ok()) {
      kube::log::warning("Usage stream ended with an error", {{"error", status.error_message()}});
      return std::nullopt;
    }
    return summary.reports();
  }
};

UsageStream::UsageStream(UsageStreamOptions options) : impl_(std::make_unique<Impl>(options)) {
  std::string& target = impl_->target;
  target = options.endpoint;
  if (target.empty())
    throw std::invalid_argument("usage stream: the recommender endpoint is empty");
  if (target.front() == '/') target = "unix://" + target;
  impl_->connect();
}

UsageStream::~UsageStream() { close(); }

bool UsageStream::send(const std::vector<UsageWindow>& windows) {
  pb::UsageReport report;
  report.set_node(impl_->options.node_name);
  report.set_sent_unix_ms(now_ms());
  for (const auto& window : windows) fill(*report.add_windows(), window);
  std::lock_guard lock(impl_->mutex);
  // A stream the controller has ended since the last report (it restarted, or cut the stream
  // after a quiet spell: no containers, no reports) fails this write: the report goes on a
  // new stream. A second failure means the controller is gone.
  const bool had_stream = impl_->writer != nullptr;
  if (impl_->write(report) || (had_stream && impl_->write(report))) {
    ++impl_->stats.sent;
    return true;
  }
  ++impl_->stats.dropped;
  return false;
}

std::optional<std::uint64_t> UsageStream::close() {
  std::lock_guard lock(impl_->mutex);
  return impl_->finish();
}

UsageStreamStats UsageStream::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace tailor::node::usage
