#include "tests/e2e/restart_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace tailor::e2e {

namespace fs = std::filesystem;

namespace {
std::string read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A zombie (exited, not yet reaped by whoever inherited it) counts as gone.
bool alive(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno != EPERM) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || line[paren + 2] != 'Z';
}
}  // namespace

ControllerProcess running_controller(const E2eCluster& cluster) {
  const fs::path pid_file = cluster.dir() / "controller.pid";
  const pid_t pid = static_cast<pid_t>(std::stol(read_all(pid_file)));
  if (pid <= 1 || !alive(pid)) {
    throw std::runtime_error("tailor-controller (" + pid_file.string() + ") is not running");
  }
  return {.pid = pid, .argv = command_line(pid)};
}

std::vector<std::string> command_line(pid_t pid) {
  std::vector<std::string> argv;
  const std::string cmdline = read_all("/proc/" + std::to_string(pid) + "/cmdline");
  std::size_t begin = 0;
  while (begin < cmdline.size()) {
    const std::size_t end = cmdline.find('\0', begin);
    argv.push_back(cmdline.substr(begin, end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  if (argv.empty())
    throw std::runtime_error("process " + std::to_string(pid) + " has no command line");
  // /proc shows the binary as started; make it absolute in case it was relative.
  argv[0] = fs::read_symlink("/proc/" + std::to_string(pid) + "/exe").string();
  return argv;
}

std::vector<std::string> with_flag(std::vector<std::string> argv, const std::string& flag,
                                   const std::string& value) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == flag && i + 1 < argv.size()) {
      argv[i + 1] = value;
      return argv;
    }
    if (argv[i].rfind(flag + "=", 0) == 0) {
      argv[i] = flag + "=" + value;
      return argv;
    }
  }
  argv.push_back(flag + "=" + value);
  return argv;
}

pid_t launch_detached(const std::vector<std::string>& argv, const fs::path& log,
                      const fs::path& pid_file) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    // The intermediate child: a new session, then the real process, then exit so that init
    // reaps the controller (a killed child of ours would linger as a zombie and look alive).
    ::close(pipe_fds[0]);
    ::setsid();
    const pid_t grandchild = ::fork();
    if (grandchild == 0) {
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int in = ::open("/dev/null", O_RDONLY);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(out, 2);
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    (void)!::write(pipe_fds[1], &grandchild, sizeof(grandchild));
    ::_exit(grandchild > 0 ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  pid_t pid = -1;
  const bool got = ::read(pipe_fds[0], &pid, sizeof(pid)) == sizeof(pid);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!got || pid <= 0) throw std::runtime_error("could not start " + argv[0]);
  std::ofstream(pid_file) << pid << "\n";
  return pid;
}

ControllerProcess restarted_controller(const E2eCluster& cluster, pid_t old,
                                       std::chrono::seconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (true) {
    try {
      ControllerProcess p = running_controller(cluster);
      if (p.pid != old) return p;
    } catch (const std::exception&) {
      // not started again yet (or the pid file is being rewritten)
    }
    if (std::chrono::steady_clock::now() > until) {
      throw std::runtime_error("the supervisor did not start tailor-controller again");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

namespace {
void signal_controller_supervisor(const E2eCluster& cluster, int signal) {
  const fs::path pid_file = cluster.dir() / "controller.supervisor.pid";
  const pid_t pid = static_cast<pid_t>(std::stol(read_all(pid_file)));
  if (pid <= 1 || ::kill(pid, signal) != 0) {
    throw std::runtime_error("cannot signal the controller's supervisor (" + pid_file.string() +
                             ")");
  }
}
}  // namespace

void pause_controller_supervisor(const E2eCluster& cluster) {
  signal_controller_supervisor(cluster, SIGSTOP);
}

void resume_controller_supervisor(const E2eCluster& cluster) {
  signal_controller_supervisor(cluster, SIGCONT);
}

void restore_supervised_controller(const E2eCluster& cluster, pid_t leader, pid_t replacement) {
  // LeaderElectionConfig's defaults: a Lease nobody released expires after 15 s.
  constexpr std::chrono::seconds kTakeover{20};
  if (replacement > 0) stop_process(replacement, SIGTERM, std::chrono::seconds(20));
  stop_process(leader, SIGKILL, std::chrono::seconds(10));
  resume_controller_supervisor(cluster);
  const pid_t pid = restarted_controller(cluster, leader, std::chrono::seconds(30)).pid;
  EXPECT_TRUE(wait_until("the restarted controller leads", kTakeover + std::chrono::seconds(10),
                         [&](std::string& seen) {
                           seen = lease_holder(cluster);
                           return seen == identity_of(pid);
                         }));
}

ControllerWithFlag::ControllerWithFlag(const E2eCluster& cluster, const std::string& flag,
                                       const std::string& value)
    : cluster_(cluster),
      leader_(running_controller(cluster)),
      log_(cluster.dir() / ("controller-" + flag + "-" + value + ".log")) {
  pause_controller_supervisor(cluster);
  try {
    if (!stop_process(leader_.pid, SIGTERM, std::chrono::seconds(20))) {
      throw std::runtime_error("tailor-controller did not stop on SIGTERM");
    }
    pid_ = launch_detached(with_flag(leader_.argv, "--" + flag, value), log_,
                           cluster.dir() / "controller-with-flag.pid");
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (lease_holder(cluster) != identity_of(pid_)) {
      if (std::chrono::steady_clock::now() > until) {
        throw std::runtime_error("tailor-controller --" + flag + "=" + value +
                                 " does not lead; its log:\n" + log_since(log_, 0));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  } catch (...) {
    restore_supervised_controller(cluster, leader_.pid, pid_);
    throw;
  }
}

ControllerWithFlag::~ControllerWithFlag() {
  restore_supervised_controller(cluster_, leader_.pid, pid_);
}

pid_t live_pid(const fs::path& pid_file) {
  try {
    const pid_t pid = static_cast<pid_t>(std::stol(read_all(pid_file)));
    return pid > 1 && alive(pid) ? pid : 0;
  } catch (const std::exception&) {
    return 0;  // missing, empty or being rewritten
  }
}

bool stop_process(pid_t pid, int signal, std::chrono::seconds timeout) {
  if (pid <= 1) throw std::invalid_argument("stop_process: no such pid " + std::to_string(pid));
  if (::kill(pid, signal) != 0 && errno == ESRCH) return true;
  const auto until = std::chrono::steady_clock::now() + timeout;
  while (alive(pid)) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

std::string lease_holder(const E2eCluster& cluster) {
  const CommandResult r = cluster.kubectl(
      "get lease tailor-controller -n kube-system -o 'jsonpath={.spec.holderIdentity}'");
  if (r.exit_code != 0) throw std::runtime_error("reading the Lease: " + r.err);
  return r.out;
}

std::string identity_of(pid_t pid) {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + "_" + std::to_string(pid);
}

std::uintmax_t log_size(const fs::path& log) {
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(log, ec);
  return ec ? 0 : size;
}

std::string log_since(const fs::path& log, std::uintmax_t offset) {
  const std::string all = read_all(log);
  return offset < all.size() ? all.substr(offset) : "";
}

int restored_checkpoints(const std::string& log_text) {
  const std::size_t line = log_text.find("Checkpoints read");
  if (line == std::string::npos) return -1;
  const std::size_t end = log_text.find('\n', line);
  const std::size_t key = log_text.find("restored=", line);
  if (key == std::string::npos || key > end) return -1;
  return std::atoi(log_text.c_str() + key + 9);
}

}  // namespace tailor::e2e
