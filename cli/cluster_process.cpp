#include "cli/cluster_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <stdexcept>
#include <thread>

namespace tailor::cli {
namespace {

std::vector<char*> c_argv(const std::vector<std::string>& argv) {
  std::vector<char*> out;
  for (const auto& arg : argv) out.push_back(const_cast<char*>(arg.c_str()));
  out.push_back(nullptr);
  return out;
}

// In the child: never returns. out_fd < 0: keep this process's stdout and stderr.
[[noreturn]] void exec_child(const std::vector<std::string>& argv, int out_fd) {
  ::setsid();
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
  if (out_fd >= 0) {
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(out_fd, STDERR_FILENO);
  }
  auto args = c_argv(argv);
  ::execv(args[0], args.data());
  const std::string message = "exec " + argv[0] + ": " + std::strerror(errno) + "\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, message.data(), message.size());
  ::_exit(127);
}

bool alive(pid_t pid) {
  // Our own exited child is a zombie until reaped: reap it so kill(0) tells the truth.
  int status = 0;
  ::waitpid(pid, &status, WNOHANG);
  return ::kill(pid, 0) == 0;
}

}  // namespace

pid_t start_background(const std::vector<std::string>& argv, const std::filesystem::path& log,
                       const std::filesystem::path& pid_file) {
  if (argv.empty()) throw std::invalid_argument("start_background: empty command");
  if (::access(argv[0].c_str(), X_OK) != 0) {
    throw std::runtime_error(argv[0] + " is not an executable: " + std::strerror(errno));
  }
  const int out_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out_fd < 0) throw std::runtime_error("opening " + log.string() + ": " + std::strerror(errno));
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(out_fd);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) exec_child(argv, out_fd);
  ::close(out_fd);
  std::ofstream(pid_file) << pid << "\n";
  return pid;
}

pid_t start_child(const std::vector<std::string>& argv) {
  if (argv.empty()) throw std::invalid_argument("start_child: empty command");
  if (::access(argv[0].c_str(), X_OK) != 0) {
    throw std::runtime_error(argv[0] + " is not an executable: " + std::strerror(errno));
  }
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) exec_child(argv, -1);
  return pid;
}

std::filesystem::path supervisor_pid_file(const std::filesystem::path& pid_file) {
  return pid_file.parent_path() / (pid_file.stem().string() + ".supervisor.pid");
}

void start_supervised(const std::vector<std::string>& argv, const std::filesystem::path& log,
                      const std::filesystem::path& pid_file) {
  std::vector<std::string> command = {std::filesystem::read_symlink("/proc/self/exe").string(),
                                      "supervise", "--pid-file", pid_file.string(), "--"};
  command.insert(command.end(), argv.begin(), argv.end());
  std::error_code ignored;
  std::filesystem::remove(pid_file, ignored);
  const std::filesystem::path supervisor = supervisor_pid_file(pid_file);
  start_background(command, log, supervisor);
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       !running_pid(pid_file); std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
    if (!running_pid(supervisor) || std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("tailor supervise did not start " + argv[0] + "; " + log.string() +
                               ":\n" + log_tail(log));
    }
  }
}

bool stop_supervised(const std::filesystem::path& pid_file) {
  const bool supervisor = stop_background(supervisor_pid_file(pid_file), std::chrono::seconds(15));
  const bool process = stop_background(pid_file, std::chrono::seconds(10));
  return supervisor || process;
}

int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0;
  const int error = errno;
  ::close(fd);
  if (!ok) throw std::runtime_error(std::string("no free port: ") + std::strerror(error));
  return ntohs(address.sin_port);
}

std::optional<pid_t> running_pid(const std::filesystem::path& pid_file) {
  std::ifstream in(pid_file);
  long pid = 0;
  if (!(in >> pid) || pid <= 1) return std::nullopt;
  if (!alive(static_cast<pid_t>(pid))) return std::nullopt;
  return static_cast<pid_t>(pid);
}

bool stop_background(const std::filesystem::path& pid_file, std::chrono::milliseconds grace) {
  const auto pid = running_pid(pid_file);
  std::error_code ignored;
  if (!pid) {
    std::filesystem::remove(pid_file, ignored);
    return false;
  }
  ::kill(*pid, SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  while (alive(*pid) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (alive(*pid)) ::kill(*pid, SIGKILL);
  std::filesystem::remove(pid_file, ignored);
  return true;
}

std::string log_tail(const std::filesystem::path& log, int lines) {
  std::ifstream in(log);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& line : last) out += "  | " + line + "\n";
  return out;
}

std::string run_command(const std::vector<std::string>& argv) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    auto args = c_argv(argv);
    ::execvp(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  std::string output;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    output.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw std::runtime_error(argv[0] + " failed:\n" + output);
  }
  return output;
}

}  // namespace tailor::cli
