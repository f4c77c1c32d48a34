// A CRI runtime that forwards every call to another one: the tests' runtimes that step in on one
// call (hold it, fail it, remove the container first) override that call alone.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "node-agent/cri/cri_client.h"

namespace tailor::node::testing {

class ForwardingRuntime : public cri::RuntimeService {
 public:
  explicit ForwardingRuntime(cri::RuntimeService& inner) : inner_(inner) {}

  cri::RuntimeVersion version() override { return inner_.version(); }
  std::string run_pod_sandbox(const cri::PodSandboxSpec& s) override {
    return inner_.run_pod_sandbox(s);
  }
  void stop_pod_sandbox(const std::string& id) override { inner_.stop_pod_sandbox(id); }
  void remove_pod_sandbox(const std::string& id) override { inner_.remove_pod_sandbox(id); }
  cri::SandboxStatus pod_sandbox_status(const std::string& id) override {
    return inner_.pod_sandbox_status(id);
  }
  std::vector<cri::SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>& labels) override {
    return inner_.list_pod_sandboxes(labels);
  }
  std::string create_container(const std::string& sandbox, const cri::ContainerSpec& c,
                               const cri::PodSandboxSpec& s) override {
    return inner_.create_container(sandbox, c, s);
  }
  void start_container(const std::string& id) override { inner_.start_container(id); }
  void stop_container(const std::string& id, std::int64_t grace) override {
    inner_.stop_container(id, grace);
  }
  void remove_container(const std::string& id) override { inner_.remove_container(id); }
  std::vector<cri::ContainerSummary> list_containers(const cri::ContainerFilter& f) override {
    return inner_.list_containers(f);
  }
  cri::ContainerStatus container_status(const std::string& id) override {
    return inner_.container_status(id);
  }
  std::int32_t exec_sync(const std::string& id, const std::vector<std::string>& command,
                         std::chrono::seconds timeout) override {
    return inner_.exec_sync(id, command, timeout);
  }
  void update_container_resources(const std::string& id, const cri::LinuxResources& r) override {
    inner_.update_container_resources(id, r);
  }
  cri::SandboxUpdateOutcome update_pod_sandbox_resources(const std::string& id,
                                                         const cri::LinuxResources& r) override {
    return inner_.update_pod_sandbox_resources(id, r);
  }

 protected:
  cri::RuntimeService& inner_;
};

}  // namespace tailor::node::testing
