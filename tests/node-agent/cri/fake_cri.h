// An in-memory CRI runtime and image service for the embedded pod runtime's and the resize path's
// tests: sandboxes and containers with states the test drives (exit, OOM kill), a log of the
// calls made, and failures the test injects (an error per call name).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "node-agent/cri/cri_client.h"

namespace tailor::node::cri::testing {

class FakeCri final : public RuntimeService, public ImageService {
 public:
  struct Sandbox {
    PodSandboxSpec spec;
    bool ready = true;
    std::string ip{};  // what the network plugin gave a sandbox of its own network namespace
  };
  struct Container {
    std::string sandbox_id;
    ContainerSpec spec;
    ContainerStatus status;
    std::int64_t stop_grace = -1;
  };

  RuntimeVersion version() override { return {"0.1.0", "containerd", "1.6.20", "v1"}; }

  std::string run_pod_sandbox(const PodSandboxSpec& spec) override {
    calls.push_back("RunPodSandbox " + spec.name);
    // As containerd: a sandbox whose setup failed stays (not ready) and holds its name until it
    // is removed.
    for (const auto& [other, s] : sandboxes) {
      if (!s.ready && s.spec.name == spec.name && s.spec.ns == spec.ns && s.spec.uid == spec.uid &&
          s.spec.attempt == spec.attempt) {
        throw CriError(CriErrorKind::Other, "RunPodSandbox",
                       "failed to reserve sandbox name: reserved for " + other);
      }
    }
    const std::string id = "sandbox-" + std::to_string(++next_id_);
    sandboxes[id] = {spec};
    if (fail_sandbox) {
      sandboxes[id].ready = false;
      throw CriError(CriErrorKind::Other, "RunPodSandbox", "no shim");
    }
    if (spec.network == NamespaceMode::Pod)
      sandboxes[id].ip = "10.200.0." + std::to_string(next_id_);
    return id;
  }
  void stop_pod_sandbox(const std::string& id) override {
    calls.push_back("StopPodSandbox " + id);
    sandbox(id).ready = false;
  }
  void remove_pod_sandbox(const std::string& id) override {
    calls.push_back("RemovePodSandbox " + id);
    sandboxes.erase(id);
  }
  SandboxStatus pod_sandbox_status(const std::string& id) override {
    const Sandbox& s = sandbox(id);
    return {.id = id, .ready = s.ready, .ip = s.ip};
  }
  // The test's `exec` answers each command (joined by spaces) of a running container.
  std::int32_t exec_sync(const std::string& id, const std::vector<std::string>& command,
                         std::chrono::seconds timeout) override {
    std::string joined;
    for (const auto& word : command) joined += (joined.empty() ? "" : " ") + word;
    calls.push_back("ExecSync " + joined + " " + std::to_string(timeout.count()) + "s");
    container(id);
    if (!exec) throw CriError(CriErrorKind::Unimplemented, "ExecSync", "no exec in this test");
    return exec(joined);
  }
  std::vector<SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>& selector) override {
    std::vector<SandboxStatus> out;
    for (const auto& [id, s] : sandboxes) {
      bool match = true;
      for (const auto& [key, value] : selector) {
        const auto it = s.spec.labels.find(key);
        match = match && it != s.spec.labels.end() && it->second == value;
      }
      if (match) out.push_back({.id = id, .ready = s.ready});
    }
    return out;
  }
  std::string create_container(const std::string& sandbox_id, const ContainerSpec& spec,
                               const PodSandboxSpec&) override {
    calls.push_back("CreateContainer " + spec.name + " " + std::to_string(spec.attempt));
    fail_if_asked("CreateContainer");
    sandbox(sandbox_id);
    const std::string id = "ctr-" + std::to_string(++next_id_);
    Container container{sandbox_id, spec};
    container.status = {.id = id,
                        .name = spec.name,
                        .attempt = spec.attempt,
                        .state = ContainerState::Created,
                        .created_at_ns = now_ns(),
                        .image = spec.image,
                        .image_ref = "docker.io/library/busybox@sha256:feed",
                        .resources = spec.resources,
                        .labels = spec.labels};
    containers[id] = container;
    return id;
  }
  void start_container(const std::string& id) override {
    calls.push_back("StartContainer " + id);
    auto& status = container(id).status;
    status.state = ContainerState::Running;
    status.started_at_ns = now_ns();
  }
  void stop_container(const std::string& id, std::int64_t grace) override {
    calls.push_back("StopContainer " + id + " " + std::to_string(grace));
    auto& c = container(id);
    c.stop_grace = grace;
    if (c.status.state == ContainerState::Running) exit(id, 137, "");
  }
  void remove_container(const std::string& id) override {
    calls.push_back("RemoveContainer " + id);
    container(id);
    containers.erase(id);
  }
  std::vector<ContainerSummary> list_containers(const ContainerFilter& filter) override {
    fail_if_asked("ListContainers");
    std::vector<ContainerSummary> out;
    for (const auto& [id, c] : containers) {
      if (!filter.pod_sandbox_id.empty() && c.sandbox_id != filter.pod_sandbox_id) continue;
      if (filter.state && c.status.state != *filter.state) continue;
      bool match = true;
      for (const auto& [key, value] : filter.label_selector) {
        const auto it = c.spec.labels.find(key);
        match = match && it != c.spec.labels.end() && it->second == value;
      }
      if (!match) continue;
      out.push_back({id, c.sandbox_id, c.spec.name, c.spec.attempt, c.status.state, c.spec.labels});
    }
    return out;
  }
  ContainerStatus container_status(const std::string& id) override {
    ++status_calls;
    return container(id).status;
  }
  void update_container_resources(const std::string& id, const LinuxResources& r) override {
    calls.push_back("UpdateContainerResources " + id);
    fail_if_asked("UpdateContainerResources");
    container(id).status.resources = r;
  }
  SandboxUpdateOutcome update_pod_sandbox_resources(const std::string&,
                                                    const LinuxResources&) override {
    return SandboxUpdateOutcome::NotSupported;
  }
  std::optional<ImageInfo> image_status(const std::string& image) override {
    const auto it = images.find(image);
    if (it == images.end()) return std::nullopt;
    return it->second;
  }

  // The container process ends (the runtime's reason, e.g. "OOMKilled", or "" for none).
  void exit(const std::string& id, std::int32_t code, const std::string& reason) {
    auto& status = container(id).status;
    status.state = ContainerState::Exited;
    status.exit_code = code;
    status.reason = reason;
    status.finished_at_ns = now_ns();
  }

  // The newest container named `name` (highest attempt).
  const Container& latest(const std::string& name) const {
    const Container* found = nullptr;
    for (const auto& [id, c] : containers) {
      if (c.spec.name == name && (!found || c.spec.attempt > found->spec.attempt)) found = &c;
    }
    if (!found) throw std::logic_error("no container " + name);
    return *found;
  }

  std::map<std::string, Sandbox> sandboxes;
  std::map<std::string, Container> containers;
  std::map<std::string, ImageInfo> images = {
      {"busybox", {"sha256:feed", {"docker.io/library/busybox:latest"}, 1}}};
  std::vector<std::string> calls;
  bool fail_sandbox = false;
  std::function<std::int32_t(const std::string&)> exec;  // may throw CriError
  int status_calls = 0;
  // The next calls of these methods ("ListContainers", "UpdateContainerResources",
  // "CreateContainer") fail so.
  std::map<std::string, CriError> errors;

 private:
  void fail_if_asked(const std::string& method) const {
    if (auto it = errors.find(method); it != errors.end()) throw it->second;
  }
  static std::int64_t now_ns() { return 1'700'000'000'000'000'000; }
  Sandbox& sandbox(const std::string& id) {
    const auto it = sandboxes.find(id);
    if (it == sandboxes.end()) throw CriError(CriErrorKind::NotFound, "sandbox", id + " not found");
    return it->second;
  }
  Container& container(const std::string& id) {
    const auto it = containers.find(id);
    if (it == containers.end()) {
      throw CriError(CriErrorKind::NotFound, "container", id + " not found");
    }
    return it->second;
  }
  int next_id_ = 0;
};

}  // namespace tailor::node::cri::testing
