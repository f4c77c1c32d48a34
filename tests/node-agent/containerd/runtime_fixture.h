// A private, real containerd for the node agent's CRI tests: started once per test binary by
// scripts/containerd/start.sh with a pod network of its own (cli/cluster_network.h, as `tailor
// cluster up` gives each node), stopped (and its cgroups, mounts and bridge removed) at the end.
// Missing containerd/runc or not being root is a test failure, never a skip: CI must run these.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>

#include "cli/cluster_network.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::testing {

inline std::filesystem::path scripts_dir() {
  return std::filesystem::path(TAILOR_SOURCE_DIR) / "scripts" / "containerd";
}

// Runs a command, returns its stdout; a non-zero exit is an error carrying the output.
inline std::string run_command(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::string output;
  std::array<char, 4096> buffer;
  while (std::size_t n = std::fread(buffer.data(), 1, buffer.size(), pipe)) {
    output.append(buffer.data(), n);
  }
  const int status = ::pclose(pipe);
  if (status != 0) throw std::runtime_error(command + " failed:\n" + output);
  return output;
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path.string());
  std::string value;
  std::getline(in, value);
  return value;
}

inline std::string random_uid() {
  std::random_device device;
  std::mt19937_64 random(device());
  char buffer[37];
  std::snprintf(buffer, sizeof buffer, "%08llx-0000-4000-8000-%012llx",
                static_cast<unsigned long long>(random() & 0xffffffffULL),
                static_cast<unsigned long long>(random() & 0xffffffffffffULL));
  return buffer;
}

class RealContainerd : public ::testing::Test {
 public:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("tailor-containerd-" + std::to_string(::getpid()));
    try {
      if (::geteuid() != 0) throw std::runtime_error("containerd tests must run as root");
      network_ = cli::set_up_pod_network(dir_);
      const std::string output =
          run_command((scripts_dir() / "start.sh").string() + " " + dir_.string());
      socket_ = (dir_ / "containerd.sock").string();
      if (output.find(socket_) == std::string::npos) {
        throw std::runtime_error("start.sh did not report " + socket_ + ":\n" + output);
      }
      wait_for_images();
    } catch (const std::exception& e) {
      start_error_ = e.what();
    }
  }

  // The CRI plugin learns of imported images from containerd's events, a moment after the
  // import returns; a sandbox created before that would try to pull.
  static void wait_for_images() {
    auto images =
        cri::connect_image_service({socket_, std::chrono::seconds(5), std::chrono::seconds(5)});
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    for (const char* image : {"docker.io/library/busybox:latest", "tailor.local/pause:1"}) {
      while (!images->image_status(image)) {
        if (std::chrono::steady_clock::now() > deadline) {
          throw std::runtime_error(std::string("CRI does not list imported image ") + image);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
  }

  static void TearDownTestSuite() {
    try {
      run_command((scripts_dir() / "stop.sh").string() + " " + dir_.string());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "stopping containerd: " << e.what();
    }
  }

 protected:
  void SetUp() override {
    ASSERT_TRUE(start_error_.empty()) << "real containerd unavailable: " << start_error_;
    cri_ =
        cri::connect_runtime_service({socket_, std::chrono::seconds(10), std::chrono::seconds(60)});
  }

  static inline std::filesystem::path dir_;
  static inline std::string socket_;
  static inline std::string start_error_;
  static inline cli::PodNetwork network_;
  std::unique_ptr<cri::RuntimeService> cri_;
};

}  // namespace tailor::node::testing
