// The real kubectl against a ClusterTest's cluster (HOME in the test's directory, so kubectl's
// discovery cache starts empty). Shared by the tests that judge tailor-cluster with kubectl.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/embedded/cluster_fixture.h"

namespace tailor::kube::embedded::testing {

struct KubectlResult {
  int exit_code;
  std::string out;
  std::string err;
};

class KubectlClusterTest : public ClusterTest {
 protected:
  static constexpr const char* kKubectl = "/usr/bin/kubectl";

  void SetUp() override {
    ASSERT_EQ(::access(kKubectl, X_OK), 0)
        << kKubectl << " is missing: these tests need the real kubectl";
    ClusterTest::SetUp();
  }

  void write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name) << content;
  }

  KubectlResult kubectl(const std::string& args) {
    std::string err_file = (dir_ / "stderr").string();
    std::string cmd = "cd " + dir_.string() + " && env HOME=" + dir_.string() +
                      " KUBECONFIG=" + kubeconfig_ + " " + kKubectl + " " + args + " 2>" + err_file;
    FILE* p = ::popen(cmd.c_str(), "r");
    if (!p) return {-1, "", "popen failed"};
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = ::pclose(p);
    std::stringstream err;
    err << std::ifstream(err_file).rdbuf();
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, err.str()};
  }
};

}  // namespace tailor::kube::embedded::testing
