// The real kubectl against a ClusterTest's cluster: HOME is the test's directory, so kubectl's
// discovery cache starts empty for each test. Shared by every test that judges tailor-cluster
// (and Tailor's processes on it) with kubectl.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/embedded/cluster_fixture.h"

namespace tailor::embedded::testing {

inline constexpr const char* kKubectl = "/usr/bin/kubectl";

struct KubectlResult {
  int exit_code;
  std::string out;
  std::string err;
};

// Starts kubectl in `dir` with its arguments passed through the shell (quote JSON with single
// quotes); stderr goes to dir/kubectl.stderr. For streams (get --watch), read from the pipe.
inline FILE* start_kubectl(const std::filesystem::path& dir, const std::string& kubeconfig,
                           const std::string& args) {
  const std::string cmd = "cd " + dir.string() + " && env HOME=" + dir.string() +
                          " KUBECONFIG=" + kubeconfig + " " + kKubectl + " " + args + " 2>" +
                          (dir / "kubectl.stderr").string();
  return ::popen(cmd.c_str(), "r");
}

// Reads the rest of kubectl's output and waits for it to end.
inline KubectlResult finish_kubectl(const std::filesystem::path& dir, FILE* p) {
  if (!p) return {-1, "", "popen failed"};
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  std::stringstream err;
  err << std::ifstream(dir / "kubectl.stderr").rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, err.str()};
}

inline KubectlResult run_kubectl(const std::filesystem::path& dir, const std::string& kubeconfig,
                                 const std::string& args) {
  return finish_kubectl(dir, start_kubectl(dir, kubeconfig, args));
}

class KubectlClusterTest : public ClusterTest {
 protected:
  void SetUp() override {
    ASSERT_EQ(::access(kKubectl, X_OK), 0)
        << kKubectl << " is missing: these tests need the real kubectl";
    ClusterTest::SetUp();
  }

  // Writes `content` to a file in the test's directory (kubectl's working directory); returns
  // its name.
  std::string write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name) << content;
    return name;
  }

  KubectlResult kubectl(const std::string& args) { return run_kubectl(dir_, kubeconfig_, args); }

  // kubectl create -f of a JSON manifest; fails the test when kubectl does.
  void create(const std::string& name, const std::string& manifest) {
    KubectlResult r = kubectl("create -f " + write(name + ".json", manifest));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

// Without control loops: the test owns every pod's state (no scheduler status writes or events).
using ApiOnlyKubectlTest = WithoutControlLoops<KubectlClusterTest>;

}  // namespace tailor::embedded::testing
