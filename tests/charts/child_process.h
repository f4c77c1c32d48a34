// What the chart tests use to run programs: real peers (prometheus, tailor-controller) as child
// processes, executables on PATH or of this build, and shell commands.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "tests/support/child_process.h"

namespace tailor::charts {

// The child process of tests/support/child_process.h (log appended, SIGTERM then SIGKILL).
using kube::testing::ChildProcess;

// The first executable `name` on PATH, or "".
inline std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

// A Tailor binary of this build: tests live in <build>/tests, binaries in <build>/bin.
inline std::string tailor_binary(const std::string& name) {
  return (std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path() / "bin" /
          name)
      .string();
}

// Runs a command through the shell; its exit code and standard output (stderr joined).
struct CommandResult {
  int exit_code = -1;
  std::string output;
};
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace tailor::charts
