// Runs the real kubectl against a test cluster: HOME is the test's directory, so kubectl's
// discovery cache starts empty for each test.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tailor::kube::embedded::testing {

inline constexpr const char* kKubectl = "/usr/bin/kubectl";

struct KubectlResult {
  int exit_code;
  std::string out;
  std::string err;
};

inline KubectlResult run_kubectl(const std::filesystem::path& dir, const std::string& kubeconfig,
                                 const std::string& args) {
  const std::string err_file = (dir / "kubectl.stderr").string();
  const std::string cmd = "cd " + dir.string() + " && env HOME=" + dir.string() +
                          " KUBECONFIG=" + kubeconfig + " " + kKubectl + " " + args + " 2>" +
                          err_file;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, "", "popen failed"};
  std::string out;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = ::pclose(p);
  std::stringstream err;
  err << std::ifstream(err_file).rdbuf();
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, err.str()};
}

}  // namespace tailor::kube::embedded::testing
