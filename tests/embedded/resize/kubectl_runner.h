// The real kubectl against an in-process tailor-cluster (no control loops: the tests own every
// pod's state), for the resize and quota tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "../cluster_fixture.h"

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

  ClusterOptions cluster_options() override {
    ClusterOptions options;
    options.control_loops = false;
    return options;
  }

  // Writes `content` to a file in the test's directory (kubectl's working directory); returns
  // its name.
  std::string write(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name) << content;
    return name;
  }

  // HOME points at the test's directory so kubectl's discovery cache starts empty. Arguments
  // are passed through the shell: quote JSON with single quotes.
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

  // kubectl create -f of a JSON manifest; fails the test when kubectl does.
  void create(const std::string& name, const std::string& manifest) {
    KubectlResult r = kubectl("create -f " + write(name + ".json", manifest));
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

}  // namespace tailor::kube::embedded::testing
