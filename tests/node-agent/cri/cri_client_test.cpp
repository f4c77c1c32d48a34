// The CRI client against an in-process fake runtime on a unix socket: deadlines, error mapping
// and the "not supported" outcome, which a real containerd 1.6 cannot all be made to show.
#include "node-agent/cri/cri_client.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>

#include "proto/cri/api.grpc.pb.h"

namespace tailor::node::cri {
namespace {
namespace v1 = ::runtime::v1;

// Answers like a runtime: "hang" never answers (until the client gives up), "missing" is not
// found, everything else succeeds. UpdatePodSandboxResources stays UNIMPLEMENTED (the generated
// default), as on containerd 1.6.
class FakeRuntime final : public v1::RuntimeService::Service {
 public:
  grpc::Status Version(grpc::ServerContext*, const v1::VersionRequest*,
                       v1::VersionResponse* response) override {
    response->set_version("0.1.0");
    response->set_runtime_name("fake");
    response->set_runtime_version("1.0");
    response->set_runtime_api_version("v1");
    return grpc::Status::OK;
  }

  grpc::Status UpdateContainerResources(grpc::ServerContext* context,
                                        const v1::UpdateContainerResourcesRequest* request,
                                        v1::UpdateContainerResourcesResponse*) override {
    if (request->container_id() == "hang") return hang(context);
    if (request->container_id() == "missing") {
      return {grpc::StatusCode::NOT_FOUND,
              "container \"missing\" in namespace \"k8s.io\": not found"};
    }
    last_quota = request->linux().cpu_quota();
    last_memory = request->linux().memory_limit_in_bytes();
    return grpc::Status::OK;
  }

  grpc::Status ContainerStatus(grpc::ServerContext* context,
                               const v1::ContainerStatusRequest* request,
                               v1::ContainerStatusResponse* response) override {
    if (request->container_id() == "hang") return hang(context);
    auto& status = *response->mutable_status();
    status.set_id(request->container_id());
    status.mutable_metadata()->set_name("app");
    status.set_state(v1::CONTAINER_RUNNING);
    status.set_reason("OOMKilled");
    auto& linux = *status.mutable_resources()->mutable_linux();
    linux.set_cpu_period(100000);
    linux.set_cpu_quota(last_quota);
    linux.set_cpu_shares(256);
    linux.set_memory_limit_in_bytes(last_memory);
    return grpc::Status::OK;
  }

  std::atomic<std::int64_t> last_quota{0};
  std::atomic<std::int64_t> last_memory{0};

 private:
  static grpc::Status hang(grpc::ServerContext* context) {
    while (!context->IsCancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return {grpc::StatusCode::CANCELLED, "client gave up"};
  }
};

class CriClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("tailor-cri-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    endpoint_ = "unix://" + (dir_ / "cri.sock").string();
    grpc::ServerBuilder builder;
    builder.AddListeningPort(endpoint_, grpc::InsecureServerCredentials());
    builder.RegisterService(&runtime_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr) << "fake runtime could not listen on " << endpoint_;
  }
  void TearDown() override {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<RuntimeService> client(
      std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
    return connect_runtime_service({endpoint_, timeout, timeout});
  }

  FakeRuntime runtime_;
  std::filesystem::path dir_;
  std::string endpoint_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(CriClientTest, VersionAndResourcesRoundTrip) {
  auto cri = client();
  EXPECT_EQ(cri->version().runtime_name, "fake");
  cri->update_container_resources("c1", {100000, 25000, 256, 64 << 20, {}});
  const ContainerStatus status = cri->container_status("c1");
  EXPECT_EQ(status.state, ContainerState::Running);
  EXPECT_EQ(status.reason, "OOMKilled");
  ASSERT_TRUE(status.resources.has_value());
  EXPECT_EQ(*status.resources, (LinuxResources{100000, 25000, 256, 64 << 20, {}}));
}

TEST_F(CriClientTest, HungRuntimeGivesATimeoutNamingTheCall) {
  auto cri = client(std::chrono::milliseconds(200));
  try {
    cri->update_container_resources("hang", {});
    FAIL() << "expected a timeout";
  } catch (const CriError& e) {
    EXPECT_EQ(e.kind(), CriErrorKind::Timeout);
    EXPECT_EQ(e.method(), "UpdateContainerResources");
    EXPECT_EQ(std::string(e.what()),
              "CRI UpdateContainerResources (container hang): runtime did not answer within 200 "
              "ms at " +
                  endpoint_);
  }
}

TEST_F(CriClientTest, NotFoundKeepsTheRuntimeMessage) {
  auto cri = client();
  try {
    cri->update_container_resources("missing", {});
    FAIL() << "expected not found";
  } catch (const CriError& e) {
    EXPECT_EQ(e.kind(), CriErrorKind::NotFound);
    EXPECT_EQ(std::string(e.what()),
              "CRI UpdateContainerResources (container missing): not found: container "
              "\"missing\" in namespace \"k8s.io\": not found");
  }
}

TEST_F(CriClientTest, UnimplementedSandboxUpdateIsNotSupportedNotAnError) {
  auto cri = client();
  EXPECT_EQ(cri->update_pod_sandbox_resources("sandbox", {}), SandboxUpdateOutcome::NotSupported);
}

TEST_F(CriClientTest, OtherUnimplementedCallsAreErrors) {
  auto cri = client();
  try {
    cri->start_container("c1");
    FAIL() << "expected unimplemented";
  } catch (const CriError& e) {
    EXPECT_EQ(e.kind(), CriErrorKind::Unimplemented);
    EXPECT_NE(std::string(e.what()).find("CRI StartContainer (container c1): not implemented"),
              std::string::npos)
        << e.what();
  }
}

TEST(CriClient, MissingSocketIsUnavailable) {
  const std::string path = "/nonexistent/tailor/cri.sock";
  auto cri = connect_runtime_service({path, std::chrono::seconds(2), std::chrono::seconds(2)});
  try {
    cri->version();
    FAIL() << "expected unavailable";
  } catch (const CriError& e) {
    EXPECT_EQ(e.kind(), CriErrorKind::Unavailable);
    EXPECT_NE(std::string(e.what()).find("runtime unavailable at unix://" + path),
              std::string::npos)
        << e.what();
  }
}

TEST(CriClient, EmptyEndpointIsRejected) {
  EXPECT_THROW(connect_runtime_service({}), std::invalid_argument);
}

TEST(CriClient, CgroupValuesMapToCriResources) {
  const CgroupValues unlimited{2, kUnlimitedQuota, 100000, std::nullopt};
  EXPECT_EQ(to_linux_resources(unlimited), (LinuxResources{100000, 0, 2, 0, {}}));
  const CgroupValues limited{512, 50000, 100000, 128 << 20};
  EXPECT_EQ(to_linux_resources(limited), (LinuxResources{100000, 50000, 512, 128 << 20, {}}));
}

}  // namespace
}  // namespace tailor::node::cri
