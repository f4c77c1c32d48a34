// Issue 16 finding 1 as it was found: a client with no credentials at all reaches the usage port
// with a plaintext stream and reports a made-up window for a pod. Written against the options
// the server had before it authenticated agents (an address, nothing else), so the same test ran
// on the old tree — where the forged window reached the recommender — and runs here, where a
// server given no way to authenticate agents refuses to start at all.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>

#include "controller/usage/usage_server.h"
#include "proto/usage/usage.grpc.pb.h"

namespace tailor::controller::usage {
namespace {

namespace pb = tailor::usage::v1;

// The finding's forgery: 801m and 783 MB for a pod of a Deployment, from "its" node.
pb::UsageReport forged_report() {
  const std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  pb::UsageReport report;
  report.set_node("node-b");
  pb::ContainerWindow* w = report.add_windows();
  w->mutable_container()->set_namespace_("shop");
  w->mutable_container()->set_pod("web-7d4b9c-x2x9q");
  w->mutable_container()->set_container("app");
  w->set_start_unix_ms(now - 60'000);
  w->set_end_unix_ms(now);
  w->set_samples(12);
  w->set_cpu_cores_mean(0.801);
  w->set_cpu_cores_max(0.801);
  w->set_memory_working_set_max_bytes(783'000'000);
  w->set_memory_peak_bytes(783'000'000);
  return report;
}

TEST(ForgedWindow, AnUnauthenticatedClientMovesNoPod) {
  std::atomic<int> reached_recommender{0};
  UsageServer server({.address = "127.0.0.1:0"},
                     [&](const UsageWindow&) { ++reached_recommender; });
  try {
    server.start();
  } catch (const std::invalid_argument&) {
    SUCCEED() << "no way to authenticate agents: the server does not listen";
    return;
  }
  auto stub = pb::UsageService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(server.port()), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  pb::ReportSummary summary;
  auto writer = stub->Report(&context, &summary);
  writer->Write(forged_report());
  writer->WritesDone();
  const grpc::Status status = writer->Finish();
  EXPECT_FALSE(status.ok()) << "the forged stream was taken: " << summary.windows() << " window(s)";
  EXPECT_EQ(reached_recommender.load(), 0);
  server.stop();
}

}  // namespace
}  // namespace tailor::controller::usage
