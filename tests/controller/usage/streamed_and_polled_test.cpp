// A container that a node agent streams and metrics-server also reports, through the real
// paths: the agent's window over gRPC into the UsageServer, PodMetrics from a scripted API
// server into the MetricsApiPoller, both recording into / asking the same StreamedContainers.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "controller/usage/metrics_api_poller.h"
#include "controller/usage/streamed_containers.h"
#include "controller/usage/usage_feed.h"
#include "controller/usage/usage_server.h"
#include "kube/model/time.h"
#include "proto/usage/usage.grpc.pb.h"
#include "tests/controller/usage/fed_windows.h"
#include "tests/controller/usage/pod_metrics_fixture.h"
#include "tests/support/test_api_server.h"

namespace tailor::controller::usage {
namespace {

namespace pb = tailor::usage::v1;
using kube::testing::json_response;
using kube::testing::TestApiServer;

constexpr const char* kPath = "/apis/metrics.k8s.io/v1beta1/pods";

// shop/web-1 with its app and sidecar containers, read at end_ms.
std::string pod_metrics_list(std::int64_t end_ms) {
  return testing::web_pod_metrics_list(end_ms, "15s");
}

using testing::FedWindows;

// The agent's default window: three samples 5 s apart, the last at end_ms.
void stream_agent_window(int port, std::int64_t end_ms) {
  auto stub = pb::UsageService::NewStub(
      grpc::CreateChannel("127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  pb::ReportSummary summary;
  auto writer = stub->Report(&context, &summary);
  pb::UsageReport report;
  report.set_node("n1");
  pb::ContainerWindow* w = report.add_windows();
  w->mutable_container()->set_namespace_("shop");
  w->mutable_container()->set_pod("web-1");
  w->mutable_container()->set_pod_uid("u1");
  w->mutable_container()->set_container("app");
  w->set_start_unix_ms(end_ms - 10'000);
  w->set_end_unix_ms(end_ms);
  w->set_samples(3);
  w->set_cpu_cores_mean(0.25);
  w->set_cpu_cores_max(0.3);
  w->set_memory_working_set_max_bytes(64 << 20);
  w->set_memory_peak_bytes(70 << 20);
  ASSERT_TRUE(writer->Write(report));
  writer->WritesDone();
  ASSERT_TRUE(writer->Finish().ok());
  ASSERT_EQ(summary.windows(), 1u);
}

TEST(StreamedAndPolled, MetricsApiSkipsWhatAnAgentStreamsUntilTheAgentStops) {
  StreamedContainers streamed;
  FedWindows fed;
  UsageServer usage_server({.address = "127.0.0.1:0", .insecure = true, .streamed = &streamed},
                           fed.sink());
  usage_server.start();
  TestApiServer api;
  kube::RestClient client(api.config());
  MetricsApiPoller poller(client, {.streamed = &streamed}, fed.sink());

  const std::int64_t now = unix_now_ms();
  const std::int64_t agent_end = now - 60'000;
  stream_agent_window(usage_server.port(), agent_end);
  ASSERT_EQ(fed.containers(), std::vector<std::string>{"app"});

  // A reading 10 s after the agent's window: its next window is due; only the sidecar, which no
  // agent streams, is fed.
  api.enqueue("GET", kPath, json_response(200, pod_metrics_list(agent_end + 10'000)));
  poller.poll_once();
  EXPECT_EQ(fed.containers(), (std::vector<std::string>{"app", "sidecar"}));
  EXPECT_EQ(poller.stats().streamed, 1u);
  EXPECT_EQ(poller.stats().fed, 1u);

  // 55 s after it, two report intervals (30 s) have passed without a window: the agent stopped,
  // metrics-api takes over.
  api.enqueue("GET", kPath, json_response(200, pod_metrics_list(agent_end + 55'000)));
  poller.poll_once();
  EXPECT_EQ(fed.containers(), (std::vector<std::string>{"app", "sidecar", "app", "sidecar"}));
  EXPECT_EQ(poller.stats().streamed, 1u);
  EXPECT_EQ(poller.stats().fed, 3u);
  EXPECT_EQ(poller.stats().stale, 0u);
  usage_server.stop();
}

TEST(StreamedAndPolled, WithoutTheRecordEveryReadingIsFed) {
  // A poller given no StreamedContainers (--metrics-source=usage-stream never builds one; a
  // poller alone) feeds what it reads.
  FedWindows fed;
  TestApiServer api;
  kube::RestClient client(api.config());
  MetricsApiPoller poller(client, {}, fed.sink());
  api.enqueue("GET", kPath, json_response(200, pod_metrics_list(unix_now_ms() - 5'000)));
  poller.poll_once();
  EXPECT_EQ(fed.containers(), (std::vector<std::string>{"app", "sidecar"}));
  EXPECT_EQ(poller.stats().streamed, 0u);
}

}  // namespace
}  // namespace tailor::controller::usage
