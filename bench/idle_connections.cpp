// Idle connections against a real tailor-cluster (issue 16 finding 5): starts the binary, opens
// N TCP connections that send nothing (or, with --hello, the first bytes of a TLS ClientHello,
// so that the server makes its TLS state), and prints the server's RSS and threads before,
// while they are open, and after they are closed.
//
//   bench_idle_connections [--binary PATH] [--connections N] [--hello]
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
#include <iostream>
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

// Starts tailor-cluster on a free port; its first line on stderr names the URL.
Child start_cluster(const std::string& binary, const std::string& dir) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(pipe_fds[1], 2);
    ::execl(binary.c_str(), binary.c_str(), "--port", "0", "--dir", dir.c_str(), nullptr);
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
    } else {
      connections = 0;  // refused below with the usage
      break;
    }
  }
  if (connections <= 0) {
    std::fprintf(stderr,
                 "usage: bench_idle_connections [--binary PATH] [--connections N>0] [--hello]\n");
    return 2;
  }
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &files);
  char dir_template[] = "/tmp/bench-idle-XXXXXX";
  std::string dir = ::mkdtemp(dir_template);
  Child cluster = start_cluster(binary, dir);
  std::this_thread::sleep_for(std::chrono::seconds(1));
  print("before", process_figures(std::to_string(cluster.pid)));
  std::vector<int> fds;
  for (int i = 0; i < connections; ++i) {
    fds.push_back(connect_to(cluster.port));
    // A TLS record header: the server starts its handshake and waits for the rest.
    if (hello) (void)!::write(fds.back(), "\x16\x03\x01\x02", 4);
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  print(("with " + std::to_string(connections) + " idle").c_str(),
        process_figures(std::to_string(cluster.pid)));
  for (int fd : fds) ::close(fd);
  std::this_thread::sleep_for(std::chrono::seconds(3));
  print("after they closed", process_figures(std::to_string(cluster.pid)));
  ::kill(cluster.pid, SIGTERM);
  ::waitpid(cluster.pid, nullptr, 0);
  std::filesystem::remove_all(dir);  // the cluster's state: a run leaves nothing behind
  return 0;
}
