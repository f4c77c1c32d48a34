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

namespace tailor::node::testing {

// The tailor-node-agent of this build: test binaries live in <build>/tests, programs in
// <build>/bin (tests/CMakeLists.txt makes the test binary depend on it).
inline std::filesystem::path node_agent_binary() {
  const std::filesystem::path binary =
      std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" /
      "tailor-node-agent";
  if (::access(binary.c_str(), X_OK) != 0) {
    throw std::runtime_error("tailor-node-agent not found at " + binary.string() +
                             " (build the tailor-node-agent target)");
  }
  return binary;
}

// A child process with stdout and stderr appended to `log` (appended, so the log of a killed
// run stays readable after a restart).
class AgentProcess {
 public:
  AgentProcess(const std::vector<std::string>& args, const std::filesystem::path& log) {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~AgentProcess() { terminate(); }
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;

  bool running() {
    if (pid_ <= 0) return false;
    if (::waitpid(pid_, &status_, WNOHANG) == 0) return true;
    pid_ = -1;
    return false;
  }

  // kill -9, and reaped: the process is gone when this returns.
  void kill9() {
    if (!running()) throw std::runtime_error("the agent exited before it was killed");
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
    pid_ = -1;
  }

  // SIGTERM, SIGKILL after 10 s.
  void terminate() {
    using namespace std::chrono_literals;
    if (!running()) return;
    ::kill(pid_, SIGTERM);
    for (auto deadline = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(20ms)) {
      if (!running()) return;
    }
    kill9();
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
};

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
