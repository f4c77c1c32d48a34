// What the usage gate (controller/usage/usage_gate.h) costs an agent: the same usage server with
// mutual TLS in this process, once behind the gate (the default) and once with gRPC listening
// itself (--usage-max-connections=0), measured in alternating rounds in one run. Two figures per
// round: reports per second on one stream (each report a node's 100 container windows), and the
// latency of a whole stream of one report (open, report, summary back) over a connection already
// up, p50 and p99. Usage: bench_usage_gate [rounds] [reports per stream] [short streams]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "controller/usage/usage_server.h"
#include "tests/controller/usage/usage_agent_client.h"

namespace {

using namespace tailor::controller::usage;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
namespace t = tailor::controller::usage::testing;

struct Round {
  double reports_per_second = 0;
  double p50_us = 0, p99_us = 0;
};

std::vector<std::string> pods(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back("pod-" + std::to_string(i));
  return names;
}

Round measure(const std::shared_ptr<grpc::Channel>& channel, int reports, int streams) {
  Round round;
  const t::pb::UsageReport node = t::report("node-a", pods(100));
  {
    auto stub = t::pb::UsageService::NewStub(channel);
    grpc::ClientContext context;
    t::pb::ReportSummary summary;
    const auto started = Clock::now();
    auto writer = stub->Report(&context, &summary);
    for (int i = 0; i < reports; ++i) writer->Write(node);
    writer->WritesDone();
    if (!writer->Finish().ok() || summary.reports() != static_cast<std::uint64_t>(reports)) {
      std::fprintf(stderr, "the long stream failed\n");
      std::exit(1);
    }
    round.reports_per_second =
        reports / std::chrono::duration<double>(Clock::now() - started).count();
  }
  std::vector<double> us;
  for (int i = 0; i < streams; ++i) {
    const auto started = Clock::now();
    if (!t::send(channel, {node}).status.ok()) {
      std::fprintf(stderr, "a short stream failed\n");
      std::exit(1);
    }
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - started).count());
  }
  std::sort(us.begin(), us.end());
  round.p50_us = us[us.size() / 2];
  round.p99_us = us[us.size() * 99 / 100];
  return round;
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int reports = argc > 2 ? std::atoi(argv[2]) : 2000;
  const int streams = argc > 3 ? std::atoi(argv[3]) : 500;
  t::UsagePki pki;
  std::atomic<std::uint64_t> windows{0};
  const auto server = [&](int max_connections) {
    auto s = std::make_unique<UsageServer>(
        UsageServerOptions{.tls = pki.files(),
                           .windows_per_second = 0,
                           .limits = {.max_connections = max_connections}},
        [&](const UsageWindow&) { ++windows; });
    s->start();
    return s;
  };
  auto gated = server(10000);
  auto direct = server(0);
  const auto agent = pki.agent("node-a");
  auto through_gate = grpc::CreateChannel("127.0.0.1:" + std::to_string(gated->port()), agent);
  auto straight = grpc::CreateChannel("127.0.0.1:" + std::to_string(direct->port()), agent);
  measure(through_gate, 100, 50);  // connections up, caches warm
  measure(straight, 100, 50);
  std::printf("# one report: %zu bytes (100 windows)\n",
              t::report("node-a", pods(100)).ByteSizeLong());
  std::printf("round,path,reports_per_s,stream_p50_us,stream_p99_us\n");
  for (int r = 1; r <= rounds; ++r) {
    for (const bool via_gate : {true, false}) {
      const Round m = measure(via_gate ? through_gate : straight, reports, streams);
      std::printf("%d,%s,%.0f,%.0f,%.0f\n", r, via_gate ? "gate" : "direct", m.reports_per_second,
                  m.p50_us, m.p99_us);
      std::fflush(stdout);
    }
  }
  return 0;
}
