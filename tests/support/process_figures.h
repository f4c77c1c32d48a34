// A process's resident memory and thread count as /proc/<pid>/status reports them: the figures
// the connection-limit tests bound and bench/idle_connections.cpp records.
#pragma once

#include <fstream>
#include <string>

namespace tailor::kube::testing {

struct ProcessFigures {
  long rss_kib = 0;
  long threads = 0;
};

// The figures of process `pid` ("self": this process); zeros for a process that is gone.
inline ProcessFigures process_figures(const std::string& pid = "self") {
  std::ifstream status("/proc/" + pid + "/status");
  ProcessFigures f;
  std::string key;
  while (status >> key) {
    if (key == "VmRSS:") status >> f.rss_kib;
    if (key == "Threads:") status >> f.threads;
    status.ignore(1 << 20, '\n');
  }
  return f;
}

}  // namespace tailor::kube::testing
