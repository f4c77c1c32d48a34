// One pod sandbox on the real containerd for the length of a test, with its cgroup paths.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tests/node-agent/containerd/runtime_fixture.h"

namespace tailor::node::testing {

inline const std::filesystem::path kCgroupRoot = "/sys/fs/cgroup";

// One pod sandbox for the length of a test; stopped, removed and its pod cgroups deleted after.
class TestPod {
 public:
  TestPod(cri::RuntimeService& cri, const std::string& name) : cri_(cri) {
    spec_.name = name;
    spec_.uid = random_uid();
    spec_.ns = "tailor-test";
    spec_.cgroup_parent = "/kubepods/pod" + spec_.uid;
    spec_.network = cri::NamespaceMode::Node;
    sandbox_id_ = cri_.run_pod_sandbox(spec_);
  }
  ~TestPod() {
    try {
      cri_.stop_pod_sandbox(sandbox_id_);
      cri_.remove_pod_sandbox(sandbox_id_);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cleaning up sandbox " << sandbox_id_ << ": " << e.what();
    }
    for (const auto& controller : std::filesystem::directory_iterator(kCgroupRoot)) {
      std::error_code ignored;  // absent in controllers runc did not use
      std::filesystem::remove(controller.path() / "kubepods" / ("pod" + spec_.uid), ignored);
    }
  }

  std::string start_sleeper(const std::string& name, const cri::LinuxResources& resources) {
    return start_container(name, resources, {"sleep", "3600"});
  }

  std::string start_container(const std::string& name, const cri::LinuxResources& resources,
                              std::vector<std::string> command) {
    cri::ContainerSpec container;
    container.name = name;
    container.image = "docker.io/library/busybox:latest";
    container.command = std::move(command);
    container.resources = resources;
    const std::string id = cri_.create_container(sandbox_id_, container, spec_);
    cri_.start_container(id);
    return id;
  }

  std::filesystem::path cgroup(const std::string& controller, const std::string& id) const {
    return kCgroupRoot / controller / "kubepods" / ("pod" + spec_.uid) / id;
  }

  // The v1 cgroup files of a container, in CRI terms.
  cri::LinuxResources cgroup_files(const std::string& id) const {
    cri::LinuxResources out;
    out.cpu_period = std::stoll(read_file(cgroup("cpu", id) / "cpu.cfs_period_us"));
    out.cpu_quota = std::stoll(read_file(cgroup("cpu", id) / "cpu.cfs_quota_us"));
    out.cpu_shares = std::stoll(read_file(cgroup("cpu", id) / "cpu.shares"));
    out.memory_limit_in_bytes =
        std::stoll(read_file(cgroup("memory", id) / "memory.limit_in_bytes"));
    return out;
  }

  const std::string& sandbox_id() const { return sandbox_id_; }
  const std::string& cgroup_parent() const { return spec_.cgroup_parent; }

 private:
  cri::RuntimeService& cri_;
  cri::PodSandboxSpec spec_;
  std::string sandbox_id_;
};

}  // namespace tailor::node::testing
