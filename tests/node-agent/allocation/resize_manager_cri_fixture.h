// The resize manager over its real runtime edge (CriPodResources) with a fake CRI and a fake
// cgroup v1 tree in a temp dir: pods are admitted and their containers run in the fake runtime
// under pod and container cgroups sized as the pod runtime sizes them.
#pragma once

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "kube/model/qos.h"
#include "node-agent/allocation/allocation_state.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "tests/node-agent/allocation/resize_manager_fakes.h"
#include "tests/node-agent/cri/fake_cri.h"

namespace tailor::node::allocation::testing {

namespace fs = std::filesystem;

inline constexpr std::int64_t kMi = 1024 * 1024;

// What the embedded pod runtime does for a RestartContainer resize, on the fake CRI: stop the
// running attempt; start attempt + 1 with the new resources.
class FakeRestarter : public cri::ContainerRestarter {
 public:
  explicit FakeRestarter(cri::testing::FakeCri& cri) : cri_(cri) {}
  void stop_for_restart(const kube::Pod&, const std::string& name) override {
    cri_.stop_container(cri_.latest(name).status.id, 1);
  }
  void start_after_restart(const kube::Pod&, const std::string& name,
                           const cri::ResourceAmounts& allocated) override {
    const cri::testing::FakeCri::Container latest = cri_.latest(name);
    cri::ContainerSpec spec = latest.spec;
    ++spec.attempt;
    spec.resources = cri::to_linux_resources(cri::container_cgroup_values(allocated));
    cri_.start_container(cri_.create_container(latest.sandbox_id, spec, {}));
  }

 private:
  cri::testing::FakeCri& cri_;
};

// Root writes through file modes: while it lives, this thread lacks CAP_DAC_OVERRIDE, so a file
// with mode 0444 is read-only to the agent's writes as it would be to a non-root agent.
class ReadOnlyFile {
 public:
  explicit ReadOnlyFile(fs::path file) : file_(std::move(file)) {
    fs::permissions(file_, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    if (::geteuid() == 0) set_dac_override(false);
  }
  ~ReadOnlyFile() {
    if (::geteuid() == 0) set_dac_override(true);
    fs::permissions(file_, fs::perms::owner_read | fs::perms::owner_write);
  }

 private:
  static void set_dac_override(bool on) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    if (::syscall(SYS_capget, &header, data) != 0) throw std::runtime_error("capget failed");
    const unsigned bit = 1u << CAP_DAC_OVERRIDE;
    data[0].effective = on ? (data[0].effective | bit) : (data[0].effective & ~bit);
    if (::syscall(SYS_capset, &header, data) != 0) throw std::runtime_error("capset failed");
  }
  fs::path file_;
};

class ResizeManagerCriTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("tailor-resize-cri-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    start_manager(&restarter_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void start_manager(cri::ContainerRestarter* restarter) { start_manager(cri_, restarter); }
  void start_manager(cri::RuntimeService& cri, cri::ContainerRestarter* restarter) {
    runtime_ = std::make_unique<CriPodResources>(
        cri, CriPodResourcesOptions{
                 {root_, cri::CgroupVersion::V1}, cri::CgroupDriver::Cgroupfs, restarter});
    ResizeManagerOptions options;
    options.node_allocatable = {{"cpu", kube::Quantity::parse("4")},
                                {"memory", kube::Quantity::parse("4Gi")}};
    options.now = [this] { return clock_; };
    manager_ = std::make_unique<ResizeManager>(options, *runtime_, status_, events_, checkpoint_,
                                               metrics_);
  }

  static void put(const fs::path& file, const std::string& value) {
    fs::create_directories(file.parent_path());
    std::ofstream(file) << value << "\n";
  }
  static std::string get(const fs::path& file) {
    std::ifstream in(file);
    std::string value;
    std::getline(in, value);
    return value;
  }
  // A cgroup directory pair (cpu, memory) as the kernel shows one, with these values.
  void make_cgroup(const std::string& path, const cri::CgroupValues& values) {
    const fs::path cpu = root_ / "cpu" / path.substr(1), memory = root_ / "memory" / path.substr(1);
    put(cpu / "cpu.shares", std::to_string(values.cpu_shares.value_or(2)));
    put(cpu / "cpu.cfs_period_us", "100000");
    put(cpu / "cpu.cfs_quota_us", std::to_string(values.cpu_quota_us.value_or(-1)));
    put(memory / "memory.limit_in_bytes",
        std::to_string(values.memory_limit_bytes.value_or(9223372036854771712)));
    put(memory / "memory.usage_in_bytes", std::to_string(4 * kMi));
  }
  std::string pod_path(const kube::Pod& pod) {
    return pod_cgroup_path_of(pod, cri::CgroupDriver::Cgroupfs);
  }
  fs::path pod_file(const kube::Pod& pod, const char* controller, const char* name) {
    return root_ / controller / pod_path(pod).substr(1) / name;
  }

  // Admits the pod and runs its containers in the fake runtime with the allocation, under a pod
  // cgroup sized as the pod runtime sizes it.
  kube::Pod run(const kube::Pod& pod) {
    manager_->sync_pod(pod);
    const auto allocation = manager_->allocation(pod.metadata.uid);
    EXPECT_TRUE(allocation);
    const std::string sandbox = cri_.run_pod_sandbox({.name = pod.metadata.name});
    std::vector<cri::ResourceAmounts> all;
    for (const AllocatedContainer& c : allocation->containers) {
      const cri::ResourceAmounts amounts = amounts_of(c.resources);
      all.push_back(amounts);
      cri::ContainerSpec spec{.name = c.name, .image = "busybox"};
      spec.labels["io.kubernetes.pod.uid"] = pod.metadata.uid;
      spec.resources = cri::to_linux_resources(cri::container_cgroup_values(amounts));
      const std::string id = cri_.create_container(sandbox, spec, {});
      cri_.start_container(id);
      make_cgroup(cri::container_cgroup_path(pod_path(pod), id, cri::CgroupDriver::Cgroupfs),
                  cri::container_cgroup_values(amounts));
    }
    make_cgroup(pod_path(pod), cri::pod_cgroup_values(all, {}, kube::pod_qos(pod)));
    manager_->sync_pod(pod);
    return pod;
  }

  const kube::PodCondition* condition(const kube::Pod& pod, std::string_view type) {
    return status_.condition(pod.metadata.uid, type);
  }
  std::vector<std::string> events_with(const std::string& reason) {
    std::vector<std::string> out;
    for (const std::string& e : events_.recorded) {
      if (e.find(" " + reason + ": ") != std::string::npos) out.push_back(e);
    }
    return out;
  }
  // The backoff has passed: the manager tries the failed resize again.
  void retry() {
    clock_ += std::chrono::minutes(1);
    manager_->retry_failed();
  }

  fs::path root_;
  cri::testing::FakeCri cri_;
  FakeRestarter restarter_{cri_};
  std::unique_ptr<CriPodResources> runtime_;
  kube::TimePoint clock_ = kube::parse_rfc3339("2026-01-01T00:00:10Z");
  FakeStatus status_;
  FakeEvents events_;
  FakeCheckpoint checkpoint_;
  kube::metrics::Registry registry_;
  NodeAgentMetrics metrics_{registry_};
  std::unique_ptr<ResizeManager> manager_;
};

}  // namespace tailor::node::allocation::testing
