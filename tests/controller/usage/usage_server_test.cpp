#include "controller/usage/usage_server.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <mutex>
#include <vector>

#include "proto/usage/usage.grpc.pb.h"

namespace tailor::controller::usage {
namespace {

namespace pb = tailor::usage::v1;

constexpr std::int64_t kNow = 1'800'000'000'000;

UsageWindow good() {
  return {.node = "n1",
          .ns = "shop",
          .pod = "web-1",
          .pod_uid = "u1",
          .container = "app",
          .start_unix_ms = kNow - 60'000,
          .end_unix_ms = kNow,
          .samples = 12,
          .cpu_cores_mean = 0.25,
          .cpu_cores_max = 0.5,
          .memory_working_set_max_bytes = 64e6,
          .memory_peak_bytes = 70e6};
}

TEST(UsageWindow, ProblemsAreNamed) {
  EXPECT_EQ(window_problem(good(), kNow), "");
  struct Case {
    void (*spoil)(UsageWindow&);
    std::string problem;
  } cases[] = {
      {[](UsageWindow& w) { w.container = ""; }, "the window names no namespace, pod or container"},
      {[](UsageWindow& w) { w.samples = 0; }, "the window has no samples"},
      {[](UsageWindow& w) { w.end_unix_ms = w.start_unix_ms - 1; },
       "the window's start and end are out of order"},
      {[](UsageWindow& w) { w.end_unix_ms = kNow + 3'600'000; }, "the window ends in the future"},
      {[](UsageWindow& w) { w.cpu_cores_mean = std::nan(""); },
       "CPU usage is negative, not a number or absurd"},
      {[](UsageWindow& w) { w.cpu_cores_max = -1; },
       "CPU usage is negative, not a number or absurd"},
      {[](UsageWindow& w) { w.cpu_cores_mean = 1e9; },
       "CPU usage is negative, not a number or absurd"},
      {[](UsageWindow& w) { w.memory_peak_bytes = std::numeric_limits<double>::infinity(); },
       "memory usage is negative or absurd"},
      {[](UsageWindow& w) { w.memory_working_set_max_bytes = -5; },
       "memory usage is negative or absurd"},
  };
  for (const Case& c : cases) {
    UsageWindow w = good();
    c.spoil(w);
    EXPECT_EQ(window_problem(w, kNow), c.problem);
  }
}

void fill(pb::ContainerWindow* w, const std::string& container, std::int64_t end_ms, double cpu) {
  w->mutable_container()->set_namespace_("shop");
  w->mutable_container()->set_pod("web-1");
  w->mutable_container()->set_pod_uid("u1");
  w->mutable_container()->set_container(container);
  w->set_start_unix_ms(end_ms - 60'000);
  w->set_end_unix_ms(end_ms);
  w->set_samples(12);
  w->set_cpu_cores_mean(cpu);
  w->set_cpu_cores_max(cpu);
  w->set_memory_working_set_max_bytes(64 << 20);
  w->set_memory_peak_bytes(70 << 20);
}

TEST(UsageServer, StreamsWindowsToTheSinkAndDropsBadOnes) {
  std::mutex m;
  std::vector<UsageWindow> seen;
  UsageServer server({.address = "127.0.0.1:0", .insecure = true}, [&](const UsageWindow& w) {
    std::lock_guard lock(m);
    seen.push_back(w);
  });
  server.start();
  ASSERT_GT(server.port(), 0);
  auto channel = grpc::CreateChannel("127.0.0.1:" + std::to_string(server.port()),
                                     grpc::InsecureChannelCredentials());
  auto stub = pb::UsageService::NewStub(channel);
  grpc::ClientContext context;
  pb::ReportSummary summary;
  auto writer = stub->Report(&context, &summary);
  std::int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  for (int i = 0; i < 3; ++i) {
    pb::UsageReport report;
    report.set_node("n1");
    fill(report.add_windows(), "app", now - (3 - i) * 60'000, 0.1 * (i + 1));
    fill(report.add_windows(), "bad", now, -1);  // negative CPU: dropped
    ASSERT_TRUE(writer->Write(report));
  }
  writer->WritesDone();
  grpc::Status status = writer->Finish();
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(summary.reports(), 3u);
  EXPECT_EQ(summary.windows(), 3u);
  EXPECT_EQ(server.stats().dropped, 3u);
  std::lock_guard lock(m);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[2].node, "n1");
  EXPECT_EQ(seen[2].container, "app");
  EXPECT_DOUBLE_EQ(seen[2].cpu_cores_mean, 0.3);
  EXPECT_EQ(seen[2].memory_peak_bytes, 70 << 20);
  server.stop();
}

TEST(UsageServer, ListensOnThePodIpUnlessToldOtherwise) {
  EXPECT_EQ(usage_bind_address("", "10.244.1.7", 9443), "10.244.1.7:9443");
  EXPECT_EQ(usage_bind_address("", "fd00::7", 9443), "[fd00::7]:9443");
  EXPECT_EQ(usage_bind_address("", "", 9443), "127.0.0.1:9443");  // never every address unless told
  EXPECT_EQ(usage_bind_address("", "10.244.1.7", 19443), "10.244.1.7:19443");
  EXPECT_EQ(usage_bind_address("0.0.0.0:9443", "10.244.1.7", 9443), "0.0.0.0:9443");
}

TEST(UsageServer, RefusesAnAddressItCannotListenOn) {
  UsageServer server({.address = "256.0.0.1:1", .insecure = true}, [](const UsageWindow&) {});
  EXPECT_THROW(server.start(), std::runtime_error);
}

}  // namespace
}  // namespace tailor::controller::usage
