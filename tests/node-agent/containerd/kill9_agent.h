// Helpers for killing the real tailor-node-agent binary: the process (started with its output in a
// log file, killed with SIGKILL or stopped with SIGTERM), and consistent reads of a pod's cgroup
// files taken while the agent may be writing them.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "node-agent/cri/cgroup_values.h"
#include "node-agent/cri/pod_cgroup.h"
#include "tests/support/child_process.h"

namespace tailor::node::testing {

inline std::filesystem::path node_agent_binary() {
  return kube::testing::build_program("tailor-node-agent");
}

// The agent as a child process (tests/support/child_process.h).
using AgentProcess = kube::testing::ChildProcess;

inline std::string read_log(const std::filesystem::path& log) {
  std::ifstream in(log);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// The cgroup files of a pod and of its containers at one moment.
struct PodCgroupSnapshot {
  cri::CgroupValues pod;
  std::vector<cri::CgroupValues> containers;
  bool operator==(const PodCgroupSnapshot&) const = default;
};

// Reads the files of a pod cgroup and its containers. The files are read one by one while the
// agent may be writing them, so one pass can mix two moments. During one resize every file
// changes at most once (to its new value), so two equal passes in a row show values that all
// held at once, between the passes: a consistent snapshot.
class PodCgroupReader {
 public:
  PodCgroupReader(cri::CgroupLayout layout, std::string pod_path, std::vector<std::string> ids)
      : layout_(std::move(layout)), pod_path_(std::move(pod_path)), ids_(std::move(ids)) {}

  PodCgroupSnapshot read_once() const {
    PodCgroupSnapshot out;
    out.pod = cri::CgroupFiles(layout_, pod_path_).read();
    for (const std::string& id : ids_) {
      out.containers.push_back(
          cri::CgroupFiles(layout_,
                           cri::container_cgroup_path(pod_path_, id, cri::CgroupDriver::Cgroupfs))
              .read());
    }
    return out;
  }

  PodCgroupSnapshot snapshot() const {
    PodCgroupSnapshot previous = read_once();
    for (int pass = 0; pass < 1000; ++pass) {
      PodCgroupSnapshot next = read_once();
      if (next == previous) return next;
      previous = std::move(next);
    }
    throw std::runtime_error("the cgroup files of " + pod_path_ + " never held still");
  }

 private:
  cri::CgroupLayout layout_;
  std::string pod_path_;
  std::vector<std::string> ids_;
};

// Σ container limits ≤ pod limit, for memory and CPU quota; "" when it holds, else what broke.
inline std::string pod_limit_violation(const PodCgroupSnapshot& s) {
  std::int64_t memory = 0, quota = 0;
  for (const cri::CgroupValues& c : s.containers) {
    memory += c.memory_limit_bytes.value_or(0);
    quota += c.cpu_quota_us.value_or(0);
  }
  std::string out;
  if (memory > s.pod.memory_limit_bytes.value_or(0)) {
    out += "memory: containers " + std::to_string(memory) + " > pod " +
           std::to_string(s.pod.memory_limit_bytes.value_or(0)) + "; ";
  }
  if (quota > s.pod.cpu_quota_us.value_or(0)) {
    out += "cpu quota: containers " + std::to_string(quota) + " > pod " +
           std::to_string(s.pod.cpu_quota_us.value_or(0));
  }
  return out;
}

}  // namespace tailor::node::testing
