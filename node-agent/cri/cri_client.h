// The node agent's edge to the container runtime: the CRI runtime/v1 RuntimeService calls Tailor
// uses, over plain structs (the generated protobuf types stay inside cri_client.cpp). Every call
// has a deadline, so a hung runtime gives a timeout error naming the call, never a stuck agent.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "node-agent/cri/cgroup_values.h"

namespace tailor::node::cri {

// Why a CRI call failed, reduced to what the agent acts on.
enum class CriErrorKind { Timeout, Unavailable, NotFound, Unimplemented, InvalidArgument, Other };

class CriError : public std::runtime_error {
 public:
  CriError(CriErrorKind kind, std::string method, const std::string& message)
      : std::runtime_error(message), kind_(kind), method_(std::move(method)) {}
  CriErrorKind kind() const { return kind_; }
  const std::string& method() const { return method_; }

 private:
  CriErrorKind kind_;
  std::string method_;
};

// LinuxContainerResources; 0 means "not specified" as in the CRI.
struct LinuxResources {
  std::int64_t cpu_period = 0;
  std::int64_t cpu_quota = 0;
  std::int64_t cpu_shares = 0;
  std::int64_t memory_limit_in_bytes = 0;
  std::map<std::string, std::string> unified;  // cgroup v2 keys, e.g. "memory.max"

  bool operator==(const LinuxResources&) const = default;
};

// CRI resources for cgroup values: no limit is left unspecified (0), as the kubelet does.
LinuxResources to_linux_resources(const CgroupValues& values);

struct RuntimeVersion {
  std::string version;
  std::string runtime_name;
  std::string runtime_version;
  std::string runtime_api_version;
};

enum class NamespaceMode { Pod, Container, Node };

// The CRI's DNSConfig: the runtime writes the sandbox's /etc/resolv.conf from it.
struct DnsConfig {
  std::vector<std::string> servers;
  std::vector<std::string> searches;
  std::vector<std::string> options;  // "ndots:5", "edns0", ...

  bool operator==(const DnsConfig&) const = default;
};

struct PodSandboxSpec {
  std::string name;
  std::string uid;
  std::string ns;
  std::uint32_t attempt = 0;
  std::string hostname;
  std::string log_directory;
  std::string cgroup_parent;  // cgroupfs syntax, e.g. /kubepods/pod<uid>
  NamespaceMode network = NamespaceMode::Node;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  std::optional<LinuxResources> resources;  // pod-level sum, informational for the runtime
  std::optional<DnsConfig> dns;             // unset: the runtime's default (the host's)
};

// A bind mount of a host path into a container.
struct Mount {
  std::string container_path;
  std::string host_path;
  bool read_only = false;
};

struct ContainerSpec {
  std::string name;
  std::uint32_t attempt = 0;
  std::string image;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<std::pair<std::string, std::string>> envs;
  std::vector<Mount> mounts;
  std::string log_path;  // relative to the sandbox's log_directory
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  LinuxResources resources;
  // The process's uid and primary gid (securityContext runAsUser / runAsGroup); the image's
  // user when unset.
  std::optional<std::int64_t> run_as_user;
  std::optional<std::int64_t> run_as_group;
};

enum class ContainerState { Created, Running, Exited, Unknown };

struct ContainerStatus {
  std::string id;
  std::string name;
  std::uint32_t attempt = 0;
  ContainerState state = ContainerState::Unknown;
  std::int64_t created_at_ns = 0;
  std::int64_t started_at_ns = 0;
  std::int64_t finished_at_ns = 0;
  std::int32_t exit_code = 0;
  std::string reason;  // "OOMKilled" for cgroup OOM kills
  std::string message;
  std::string image;
  std::string image_ref;
  std::optional<LinuxResources> resources;  // what the runtime applied, when it reports it
  std::map<std::string, std::string> labels;
};

struct ContainerSummary {
  std::string id;
  std::string pod_sandbox_id;
  std::string name;
  std::uint32_t attempt = 0;
  ContainerState state = ContainerState::Unknown;
  std::map<std::string, std::string> labels;
};

struct ContainerFilter {
  std::string id;
  std::string pod_sandbox_id;
  std::optional<ContainerState> state;
  std::map<std::string, std::string> label_selector;
};

// PodSandboxStatus, reduced to what the kubelet reads of it: whether the sandbox is ready and the
// IPs its network plugin gave it (empty for a sandbox in the node's network namespace).
struct SandboxStatus {
  std::string id;
  bool ready = false;
  std::string ip;
  std::vector<std::string> additional_ips;
};

// UpdatePodSandboxResources is best effort: runtimes before the call existed answer
// UNIMPLEMENTED, which is an outcome, not an error.
enum class SandboxUpdateOutcome { Applied, NotSupported };

class RuntimeService {
 public:
  virtual ~RuntimeService() = default;
  virtual RuntimeVersion version() = 0;
  virtual std::string run_pod_sandbox(const PodSandboxSpec& sandbox) = 0;
  virtual void stop_pod_sandbox(const std::string& sandbox_id) = 0;
  virtual void remove_pod_sandbox(const std::string& sandbox_id) = 0;
  virtual SandboxStatus pod_sandbox_status(const std::string& sandbox_id) = 0;
  // The sandboxes whose labels include `label_selector` (id and readiness; no IPs).
  virtual std::vector<SandboxStatus> list_pod_sandboxes(
      const std::map<std::string, std::string>& label_selector) = 0;
  virtual std::string create_container(const std::string& sandbox_id,
                                       const ContainerSpec& container,
                                       const PodSandboxSpec& sandbox) = 0;
  virtual void start_container(const std::string& container_id) = 0;
  virtual void stop_container(const std::string& container_id, std::int64_t grace_seconds) = 0;
  virtual void remove_container(const std::string& container_id) = 0;
  virtual std::vector<ContainerSummary> list_containers(const ContainerFilter& filter) = 0;
  virtual ContainerStatus container_status(const std::string& container_id) = 0;
  // Runs `command` in the container; its exit code. A command still running after `timeout`
  // is a CriError of kind Timeout.
  virtual std::int32_t exec_sync(const std::string& container_id,
                                 const std::vector<std::string>& command,
                                 std::chrono::seconds timeout) = 0;
  virtual void update_container_resources(const std::string& container_id,
                                          const LinuxResources& resources) = 0;
  virtual SandboxUpdateOutcome update_pod_sandbox_resources(const std::string& sandbox_id,
                                                            const LinuxResources& resources) = 0;
};

struct ImageInfo {
  std::string id;
  std::vector<std::string> repo_tags;
  std::uint64_t size = 0;
  // The user the image runs as: a numeric uid, else a user name; neither when the image names
  // none (root).
  std::optional<std::int64_t> uid;
  std::string username;
};

class ImageService {
 public:
  virtual ~ImageService() = default;
  // nullopt when the runtime does not have the image (the CRI answers an empty status).
  virtual std::optional<ImageInfo> image_status(const std::string& image) = 0;
};

struct CriClientOptions {
  std::string endpoint;  // "unix:///run/containerd/containerd.sock" or a bare socket path
  // Deadline of ordinary calls; sandbox/container creation gets `create_timeout` (it may unpack
  // an image and start a shim).
  std::chrono::milliseconds call_timeout{std::chrono::seconds(10)};
  std::chrono::milliseconds create_timeout{std::chrono::seconds(60)};
};

// The RuntimeService over gRPC to a CRI runtime socket.
std::unique_ptr<RuntimeService> connect_runtime_service(const CriClientOptions& options);
// The ImageService on the same socket (containerd serves both).
std::unique_ptr<ImageService> connect_image_service(const CriClientOptions& options);

}  // namespace tailor::node::cri
