#include "kube/observe/process_metrics.h"

#include <prometheus/metric_family.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tailor::kube::metrics {
namespace {

std::string read_file(const char* path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Seconds since the epoch at which the machine booted ("btime" in /proc/stat).
double boot_time() {
  std::istringstream in(read_file("/proc/stat"));
  for (std::string key; in >> key;) {
    if (key == "btime") {
      double t = 0;
      in >> t;
      return t;
    }
  }
  return 0;
}

double open_fds() {
  std::error_code ec;
  double n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n - 1;  // the directory iterator's own descriptor
}

double max_fds() {
  rlimit r{};
  ::getrlimit(RLIMIT_NOFILE, &r);
  return r.rlim_cur == RLIM_INFINITY ? -1 : static_cast<double>(r.rlim_cur);
}

prometheus::MetricFamily family(std::string name, std::string help, prometheus::MetricType type,
                                double value) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  return prometheus::MetricFamily{std::move(name), std::move(help), type, {m}};
}

class ProcessCollector : public prometheus::Collectable {
 public:
  ProcessCollector() : ticks_(::sysconf(_SC_CLK_TCK)), page_(::sysconf(_SC_PAGESIZE)) {
    boot_time_ = boot_time();
  }

  std::vector<prometheus::MetricFamily> Collect() const override {
    using prometheus::MetricType;
    ProcStat s;
    try {
      s = parse_proc_stat(read_file("/proc/self/stat"), ticks_, page_);
    } catch (const std::invalid_argument&) {
      return {};  // no /proc: nothing to report
    }
    return {
        family("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.",
               MetricType::Counter, s.cpu_seconds),
        family("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
               open_fds()),
        family("process_max_fds", "Maximum number of open file descriptors.", MetricType::Gauge,
               max_fds()),
        family("process_virtual_memory_bytes", "Virtual memory size in bytes.", MetricType::Gauge,
               s.virtual_memory_bytes),
        family("process_resident_memory_bytes", "Resident memory size in bytes.", MetricType::Gauge,
               s.resident_memory_bytes),
        family("process_start_time_seconds",
               "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
               boot_time_ + s.start_seconds_after_boot),
    };
  }

 private:
  long ticks_, page_;
  double boot_time_ = 0;
};

}  // namespace

ProcStat parse_proc_stat(std::string_view text, long ticks, long page_size) {
  // "pid (comm) state ppid ...": comm may hold anything, so fields start after the last ')'.
  auto close = text.rfind(')');
  if (close == std::string_view::npos) throw std::invalid_argument("no ')' in /proc stat");
  std::istringstream in{std::string(text.substr(close + 1))};
  std::vector<std::string> fields;  // fields[0] is field 3 (state) of proc(5)
  for (std::string f; in >> f;) fields.push_back(f);
  if (fields.size() < 22) throw std::invalid_argument("too few fields in /proc stat");
  auto field = [&](int number) { return std::strtod(fields[number - 3].c_str(), nullptr); };
  ProcStat s;
  s.cpu_seconds = (field(14) + field(15)) / static_cast<double>(ticks);
  s.start_seconds_after_boot = field(22) / static_cast<double>(ticks);
  s.virtual_memory_bytes = field(23);
  s.resident_memory_bytes = field(24) * static_cast<double>(page_size);
  return s;
}

std::shared_ptr<prometheus::Collectable> make_process_collector() {
  return std::make_shared<ProcessCollector>();
}

}  // namespace tailor::kube::metrics
