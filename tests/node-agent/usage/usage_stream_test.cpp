// The usage stream against an in-process UsageService: reports arrive as sent, and a
// recommender that is not there costs reports, never the agent.
#include "node-agent/usage/usage_stream.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <mutex>

#include "proto/usage/usage.grpc.pb.h"

namespace tailor::node::usage {
namespace {
namespace pb = tailor::usage::v1;

class Recommender final : public pb::UsageService::Service {
 public:
  grpc::Status Report(grpc::ServerContext*, grpc::ServerReader<pb::UsageReport>* reader,
                      pb::ReportSummary* summary) override {
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
};

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
  grpc::ServerBuilder builder;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service);
  auto server = builder.BuildAndStart();
  ASSERT_GT(port, 0);

  UsageStream stream({.endpoint = "127.0.0.1:" + std::to_string(port), .node_name = "n1"});
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

TEST(UsageStream, AMissingRecommenderDropsReports) {
  UsageStream stream({.endpoint = "unix:///nonexistent/tailor-recommender.sock",
                      .node_name = "n1",
                      .connect_timeout = std::chrono::milliseconds(100)});
  EXPECT_FALSE(stream.send({window("app", 0.5)}));
  EXPECT_EQ(stream.stats().dropped, 1u);
  EXPECT_FALSE(stream.close());
  EXPECT_THROW(UsageStream({.endpoint = ""}), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::node::usage
