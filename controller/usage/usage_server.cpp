#include "controller/usage/usage_server.h"

#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <cmath>

#include "controller/usage/streamed_containers.h"
#include "controller/usage/usage_feed.h"
#include "proto/usage/usage.grpc.pb.h"

namespace tailor::controller::usage {
namespace {

namespace pb = tailor::usage::v1;

// Beyond any machine Kubernetes runs on: 100,000 cores, 1 PiB.
constexpr double kMaxCores = 1e5;
constexpr double kMaxBytes = 1125899906842624.0;
constexpr std::int64_t kMaxFutureMs = 5 * 60 * 1000;

bool sane(double v, double max) { return std::isfinite(v) && v >= 0 && v <= max; }

UsageWindow from_proto(const std::string& node, const pb::ContainerWindow& w) {
  return {.node = node,
          .ns = w.container().namespace_(),
          .pod = w.container().pod(),
          .pod_uid = w.container().pod_uid(),
          .container = w.container().container(),
          .start_unix_ms = w.start_unix_ms(),
          .end_unix_ms = w.end_unix_ms(),
          .samples = w.samples(),
          .cpu_cores_mean = w.cpu_cores_mean(),
          .cpu_cores_max = w.cpu_cores_max(),
          .memory_working_set_max_bytes = static_cast<double>(w.memory_working_set_max_bytes()),
          .memory_peak_bytes = static_cast<double>(w.memory_peak_bytes()),
          .oom_kills = w.oom_kills()};
}

}  // namespace

std::string window_problem(const UsageWindow& w, std::int64_t now_unix_ms) {
  if (w.ns.empty() || w.pod.empty() || w.container.empty()) {
    return "the window names no namespace, pod or container";
  }
  if (w.samples == 0) return "the window has no samples";
  if (w.start_unix_ms <= 0 || w.end_unix_ms < w.start_unix_ms) {
    return "the window's start and end are out of order";
  }
  if (w.end_unix_ms > now_unix_ms + kMaxFutureMs) return "the window ends in the future";
  if (!sane(w.cpu_cores_mean, kMaxCores) || !sane(w.cpu_cores_max, kMaxCores)) {
    return "CPU usage is negative, not a number or absurd";
  }
  if (!sane(w.memory_working_set_max_bytes, kMaxBytes) || !sane(w.memory_peak_bytes, kMaxBytes)) {
    return "memory usage is negative or absurd";
  }
  return "";
}

struct UsageServer::Impl final : pb::UsageService::Service {
  UsageServerOptions options;
  UsageSink sink;
  std::unique_ptr<grpc::Server> server;
  int port = 0;
  std::atomic<std::uint64_t> reports{0}, windows{0}, dropped{0};

  grpc::Status Report(grpc::ServerContext*, grpc::ServerReader<pb::UsageReport>* reader,
                      pb::ReportSummary* summary) override {
    pb::UsageReport report;
    std::uint64_t mine_reports = 0, mine_windows = 0;
    while (reader->Read(&report)) {
      ++mine_reports;
      ++reports;
      for (const pb::ContainerWindow& w : report.windows()) {
        UsageWindow window = from_proto(report.node(), w);
        if (!window_problem(window, unix_now_ms()).empty()) {
          ++dropped;
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
  grpc::ServerBuilder builder;
  builder.AddListeningPort(impl_->options.address, grpc::InsecureServerCredentials(), &impl_->port);
  builder.SetMaxReceiveMessageSize(static_cast<int>(impl_->options.max_message_bytes));
  builder.RegisterService(impl_.get());
  impl_->server = builder.BuildAndStart();
  if (!impl_->server || impl_->port == 0) {
    throw std::runtime_error("usage server: cannot listen on " + impl_->options.address);
  }
}

void UsageServer::stop() {
  if (!impl_->server) return;
  // Agents keep their streams open: give them a moment, then cancel.
  impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  impl_->server->Wait();
  impl_->server.reset();
}

int UsageServer::port() const { return impl_->port; }

UsageStats UsageServer::stats() const {
  return {impl_->reports.load(), impl_->windows.load(), impl_->dropped.load()};
}

}  // namespace tailor::controller::usage
