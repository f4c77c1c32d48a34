// Idle connections against a real tailor-cluster (issue 16 finding 5): starts the binary, opens
// N TCP connections that send nothing (or, with --hello, the first bytes of a TLS ClientHello,
// so that the server makes its TLS state), and prints the server's RSS and threads before,
// while they are open, and after they are closed.
// With --controller, the connections go to tailor-controller's admission webhook (HTTPS) or its
// /metrics and health endpoint (--target webhook|metrics) instead: the controller binary is
// started against that tailor-cluster as `tailor cluster up` starts it (loopback, ephemeral
// ports read from its --ports-file, the webhook on), and its figures are printed.
//
//   bench_idle_connections [--binary PATH] [--connections N] [--hello]
//                          [--controller PATH [--target webhook|metrics]]
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/process_figures.h"

namespace {

using tailor::kube::testing::process_figures;
using tailor::kube::testing::ProcessFigures;

struct Child {
  pid_t pid = -1;
  int port = 0;
};

// Starts tailor-cluster on a free port (its kubeconfig in DIR/kubeconfig); its first line on
// stderr names the URL.
Child start_cluster(const std::string& binary, const std::string& dir) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  const std::string kubeconfig = dir + "/kubeconfig";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], 2);
    ::execl(binary.c_str(), binary.c_str(), "--port", "0", "--dir", dir.c_str(),
            "--write-kubeconfig", kubeconfig.c_str(), nullptr);
    ::_exit(127);
  }
  ::close(pipe_fds[1]);
  std::string line;
  char c;
  while (::read(pipe_fds[0], &c, 1) == 1 && c != '\n') line += c;
  ::close(pipe_fds[0]);
  auto colon = line.rfind(':');
  if (line.find("serving on") == std::string::npos || colon == std::string::npos) {
    throw std::runtime_error("tailor-cluster did not start: " + line);
  }
  return {pid, std::stoi(line.substr(colon + 1))};
}

// One port of a ports file ({"usage":N,"webhook":N,"metrics":N}); 0 when absent.
int port_in(const std::string& ports_json, const std::string& key) {
  const std::size_t at = ports_json.find("\"" + key + "\":");
  return at == std::string::npos ? 0 : std::atoi(ports_json.c_str() + at + key.size() + 3);
}

// Starts tailor-controller against the cluster in `dir` as `tailor cluster up` does (loopback,
// ephemeral ports, the webhook on, no usage TLS: no agent streams here), output in
// DIR/controller.log; returns it with the port of `target` ("webhook" or "metrics") once its
// ports file is written.
Child start_controller(const std::string& binary, const std::string& dir,
                       const std::string& target) {
  const std::string ports = dir + "/controller.ports";
  const std::vector<std::string> args = {binary,
                                         "--kubeconfig=" + dir + "/kubeconfig",
                                         "--metrics-bind-address=127.0.0.1:0",
                                         "--usage-bind-address=127.0.0.1:0",
                                         "--usage-insecure",
                                         "--webhook-bind-address=127.0.0.1",
                                         "--webhook-ephemeral-port",
                                         "--ports-file=" + ports};
  pid_t pid = ::fork();
  if (pid == 0) {
    const int log = ::open((dir + "/controller.log").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    ::dup2(log, 1);
    ::dup2(log, 2);
    std::vector<char*> argv;
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  for (int i = 0; i < 300; ++i) {
    std::ifstream in(ports);
    std::stringstream text;
    text << in.rdbuf();
    if (int port = port_in(text.str(), target); port > 0) return {pid, port};
    if (::waitpid(pid, nullptr, WNOHANG) == pid) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  std::ifstream log(dir + "/controller.log");
  std::stringstream text;
  text << log.rdbuf();
  throw std::runtime_error("tailor-controller wrote no " + target + " port: " + text.str());
}

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    throw std::runtime_error("connect failed after " + std::to_string(fd));
  }
  return fd;
}

void print(const char* when, const ProcessFigures& f) {
  std::printf("%-28s rss %7.1f MiB  threads %5ld\n", when, static_cast<double>(f.rss_kib) / 1024,
              f.threads);
}

}  // namespace

int main(int argc, char** argv) {
  std::string binary = "build/bin/tailor-cluster";
  std::string controller;
  std::string target = "webhook";
  int connections = 2500;
  bool hello = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--binary" && i + 1 < argc) {
      binary = argv[++i];
    } else if (arg == "--connections" && i + 1 < argc) {
      connections = std::atoi(argv[++i]);
    } else if (arg == "--hello") {
      hello = true;
    } else if (arg == "--controller" && i + 1 < argc) {
      controller = argv[++i];
    } else if (arg == "--target" && i + 1 < argc &&
               (std::string(argv[i + 1]) == "webhook" || std::string(argv[i + 1]) == "metrics")) {
      target = argv[++i];
    } else {
      connections = 0;  // refused below with the usage
      break;
    }
  }
  if (connections <= 0) {
    std::fprintf(stderr,
                 "usage: bench_idle_connections [--binary PATH] [--connections N>0] [--hello]\n"
                 "                              [--controller PATH [--target webhook|metrics]]\n");
    return 2;
  }
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);
  char dir_template[] = "/tmp/bench-idle-XXXXXX";
  std::string dir = ::mkdtemp(dir_template);
  Child cluster = start_cluster(binary, dir);
  // The server measured: tailor-cluster's API, or one of the controller's servers.
  Child measured = cluster;
  if (!controller.empty()) {
    measured = start_controller(controller, dir, target);
    std::printf("tailor-controller %s port\n", target.c_str());
  }
  std::this_thread::sleep_for(std::chrono::seconds(controller.empty() ? 1 : 5));
  const std::string pid = std::to_string(measured.pid);
  print("before", process_figures(pid));
  std::vector<int> fds;
  for (int i = 0; i < connections; ++i) {
    fds.push_back(connect_to(measured.port));
    // A TLS record header: the server starts its handshake and waits for the rest.
    if (hello) (void)!::write(fds.back(), "\x16\x03\x01\x02", 4);
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  print(("with " + std::to_string(connections) + " idle").c_str(), process_figures(pid));
  for (int fd : fds) ::close(fd);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  print("after they closed", process_figures(pid));
  if (measured.pid != cluster.pid) {
    ::kill(measured.pid, SIGTERM);
    ::waitpid(measured.pid, nullptr, 0);
  }
  ::kill(cluster.pid, SIGTERM);
  ::waitpid(cluster.pid, nullptr, 0);
  std::filesystem::remove_all(dir);  // the cluster's state: a run leaves nothing behind
  return 0;
}
