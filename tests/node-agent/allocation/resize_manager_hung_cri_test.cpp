// The resize manager against runtimes that do not answer: a fake CRI over gRPC that hangs one
// container's UpdateContainerResources, and a socket that accepts and never speaks. The CRI
// client's per-call deadline turns both into a resize Error that is retried; the worker moves on
// to other pods meanwhile.
#include <sys/socket.h>
#include <sys/un.h>

#include <cstring>

#include "node-agent/allocation/resize_manager_loop.h"
#include "tests/node-agent/allocation/resize_manager_cri_fixture.h"
#include "tests/node-agent/cri/fake_cri_server.h"

namespace tailor::node::allocation::testing {
namespace {

using namespace std::chrono_literals;

// The manager talks to the fake runtime through the real CRI client and gRPC, with a short
// per-call deadline.
class ResizeManagerOverGrpcTest : public ResizeManagerCriTest {
 protected:
  void SetUp() override {
    ResizeManagerCriTest::SetUp();
    fs::create_directories(root_);
    server_ = std::make_unique<cri::testing::FakeCriServer>(cri_, root_ / "cri.sock");
    client_ = cri::connect_runtime_service({server_->endpoint(), kDeadline, kDeadline});
    start_manager(*client_, &restarter_);
  }
  void TearDown() override {
    manager_.reset();
    server_.reset();
    ResizeManagerCriTest::TearDown();
  }
  static constexpr std::chrono::milliseconds kDeadline{300};
  std::unique_ptr<cri::testing::FakeCriServer> server_;
  std::unique_ptr<cri::RuntimeService> client_;
};

// A runtime that never answers UpdateContainerResources for one pod's container: that resize
// ends in Error (the call's deadline), is retried, and completes once the runtime answers; the
// other pod's resize, behind it in the same worker, is not held up.
TEST_F(ResizeManagerOverGrpcTest, HungRuntimeCallEndsInErrorAndDoesNotBlockOtherPods) {
  const kube::Pod stuck = make_pod("stuck", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  const kube::Pod fine = make_pod("fine", {container("web", {"100m", "200m", "100Mi", "100Mi"})});
  run(stuck);
  run(fine);
  const std::string stuck_id = cri_.latest("app").status.id;
  server_->set_hang({stuck_id});

  ResizeManagerLoop loop(*manager_, std::chrono::hours(1));
  loop.start();
  const kube::Pod stuck2 = resized(stuck, "app", {"300m", "400m", "100Mi", "100Mi"});
  const kube::Pod fine2 = resized(fine, "web", {"300m", "400m", "100Mi", "100Mi"});
  loop.post([&](ResizeManager& m) { m.sync_pod(stuck2); });
  loop.post([&](ResizeManager& m) { m.sync_pod(fine2); });
  ASSERT_TRUE(loop.run([](ResizeManager&) {}, std::chrono::seconds(30)))
      << "the worker is stuck behind the hung runtime call";
  loop.stop();

  EXPECT_EQ(server_->hung_calls(), 1);
  const kube::PodCondition* in_progress = condition(stuck, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(in_progress->message, "CRI UpdateContainerResources (container " + stuck_id +
                                      "): runtime did not answer within 300 ms at " +
                                      server_->endpoint());
  EXPECT_EQ(events_with("ResizeError").size(), 1u);
  EXPECT_EQ(condition(fine, kube::kPodResizeInProgress), nullptr);
  EXPECT_FALSE(manager_->allocation(fine.metadata.uid)->resize_in_progress);
  EXPECT_EQ(cri_.latest("web").status.resources->cpu_quota, 40000);

  retry();  // still hung: tried again, still an error
  EXPECT_EQ(server_->hung_calls(), 2);
  EXPECT_EQ(condition(stuck, kube::kPodResizeInProgress)->reason, "Error");

  server_->set_hang({});
  retry();
  EXPECT_EQ(condition(stuck, kube::kPodResizeInProgress), nullptr);
  EXPECT_EQ(cri_.latest("app").status.resources->cpu_quota, 40000);
}

// A socket that accepts connections and never speaks gRPC: each call ends at its deadline.
TEST(ResizeManagerSilentRuntime, SocketThatNeverAnswersGivesATimeoutError) {
  const fs::path dir = fs::temp_directory_path() / ("tailor-silent-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path socket_path = dir / "cri.sock";
  const int listener = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(listener, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(::listen(listener, 16), 0);  // the kernel accepts; nobody reads or answers

  auto cri = cri::connect_runtime_service({"unix://" + socket_path.string(), 200ms, 200ms});
  CriPodResources runtime(*cri,
                          {{dir, cri::CgroupVersion::V1}, cri::CgroupDriver::Cgroupfs, nullptr});
  FakeStatus status;
  FakeEvents events;
  FakeCheckpoint checkpoint;
  kube::metrics::Registry registry;
  NodeAgentMetrics metrics{registry};
  ResizeManagerOptions options;
  options.node_allocatable = {{"cpu", kube::Quantity::parse("4")},
                              {"memory", kube::Quantity::parse("4Gi")}};
  ResizeManager manager(options, runtime, status, events, checkpoint, metrics);
  const kube::Pod pod = make_pod("web", {container("app", {"100m", "200m", "100Mi", "100Mi"})});
  manager.sync_pod(pod);  // admitted; reading its resources times out (logged)
  manager.sync_pod(resized(pod, "app", {"300m", "400m", "100Mi", "100Mi"}));
  const kube::PodCondition* in_progress =
      status.condition(pod.metadata.uid, kube::kPodResizeInProgress);
  ASSERT_NE(in_progress, nullptr);
  EXPECT_EQ(in_progress->reason, "Error");
  EXPECT_EQ(
      in_progress->message,
      "CRI ListContainers: runtime did not answer within 200 ms at unix://" + socket_path.string());
  ::close(listener);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tailor::node::allocation::testing
