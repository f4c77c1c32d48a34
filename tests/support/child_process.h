// A program run as a child process of the test: output appended to a log file, killed with
// SIGKILL (kill -9, reaped before returning) or stopped with SIGTERM. For tests that kill the real
// binaries (tailor-node-agent, tailor-cluster) mid-run and tests that run a real peer
// (prometheus, tailor-controller).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tailor::kube::testing {

// The program `name` of this build: test binaries live in <build>/tests, programs in <build>/bin
// (tests/CMakeLists.txt makes the test binary depend on it).
inline std::filesystem::path build_program(const std::string& name) {
  const std::filesystem::path binary =
      std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" / name;
  if (::access(binary.c_str(), X_OK) != 0) {
    throw std::runtime_error(name + " not found at " + binary.string() + " (build the " + name +
                             " target)");
  }
  return binary;
}

// A child process with stdout and stderr appended to `log` (appended, so the log of a killed
// run stays readable after a restart).
class ChildProcess {
 public:
  ChildProcess(const std::vector<std::string>& args, const std::filesystem::path& log) : log_(log) {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) {
      const int fd = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 1);
      ::dup2(fd, 2);
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~ChildProcess() { terminate(); }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  bool running() {
    if (pid_ <= 0) return false;
    if (::waitpid(pid_, &status_, WNOHANG) == 0) return true;
    pid_ = -1;
    return false;
  }

  // What the process wrote to its log so far.
  std::string log() const {
    std::ifstream in(log_);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // The exit status once the process has ended (running() is false); -1 when killed by a signal.
  int exit_code() const { return WIFEXITED(status_) ? WEXITSTATUS(status_) : -1; }

  // kill -9, and reaped: the process is gone when this returns.
  void kill9() {
    if (!running()) throw std::runtime_error("the process exited before it was killed");
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
    pid_ = -1;
  }

  // SIGTERM, SIGKILL after 10 s; the wait status (as waitpid reports it) of the ended process.
  int terminate() {
    using namespace std::chrono_literals;
    if (!running()) return status_;
    ::kill(pid_, SIGTERM);
    for (auto deadline = std::chrono::steady_clock::now() + 10s;
         std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(20ms)) {
      if (!running()) return status_;
    }
    kill9();
    return status_;
  }

 private:
  std::filesystem::path log_;
  pid_t pid_ = -1;
  int status_ = 0;
};

}  // namespace tailor::kube::testing
