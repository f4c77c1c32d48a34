#include "node-agent/usage/usage_cgroup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tailor::node::usage {
namespace {
namespace fs = std::filesystem;

std::optional<std::string> read_optional(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string read_all(const fs::path& file) {
  auto text = read_optional(file);
  if (!text) throw cri::CgroupError("reading " + file.string() + ": " + std::strerror(errno));
  return *text;
}

std::int64_t parse(const std::string& text, const fs::path& file) {
  try {
    std::size_t used = 0;
    const long long value = std::stoll(text, &used);
    if (text.find_first_not_of(" \n", used) == std::string::npos && value >= 0) return value;
  } catch (const std::exception&) {
  }
  throw cri::CgroupError("unexpected content \"" + text + "\" in " + file.string());
}

std::int64_t read_int(const fs::path& file) { return parse(read_all(file), file); }

std::int64_t required_stat(const fs::path& file, const std::string& key) {
  const auto value = stat_value(read_all(file), key);
  if (!value) throw cri::CgroupError(file.string() + " has no \"" + key + "\" line");
  return *value;
}

// max_usage_in_bytes is reset by writing 0, so the next read is the peak since this one. A
// failed reset only widens the next window.
void reset_v1_peak(const fs::path& file) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return;
  [[maybe_unused]] const auto written = ::write(fd, "0", 1);
  ::close(fd);
}

CgroupUsage read_v1(const fs::path& root, const std::string& path) {
  const fs::path cpu = root / "cpuacct" / path.substr(1);
  const fs::path memory = root / "memory" / path.substr(1);
  CgroupUsage out;
  out.cpu_usage_ns = read_int(cpu / "cpuacct.usage");
  out.memory_usage_bytes = read_int(memory / "memory.usage_in_bytes");
  out.inactive_file_bytes = required_stat(memory / "memory.stat", "total_inactive_file");
  out.memory_peak_bytes = read_int(memory / "memory.max_usage_in_bytes");
  reset_v1_peak(memory / "memory.max_usage_in_bytes");
  out.peak_since_previous_read = true;
  if (const auto oom = read_optional(memory / "memory.oom_control")) {
    out.oom_kills = stat_value(*oom, "oom_kill").value_or(0);
  }
  return out;
}

CgroupUsage read_v2(const fs::path& root, const std::string& path) {
  const fs::path dir = root / path.substr(1);
  CgroupUsage out;
  out.cpu_usage_ns = required_stat(dir / "cpu.stat", "usage_usec") * 1000;
  out.memory_usage_bytes = read_int(dir / "memory.current");
  out.inactive_file_bytes = required_stat(dir / "memory.stat", "inactive_file");
  if (const auto peak = read_optional(dir / "memory.peak")) {
    out.memory_peak_bytes = parse(*peak, dir / "memory.peak");
  }
  if (const auto events = read_optional(dir / "memory.events")) {
    out.oom_kills = stat_value(*events, "oom_kill").value_or(0);
  }
  return out;
}

}  // namespace

std::optional<std::int64_t> stat_value(const std::string& text, const std::string& key) {
  std::istringstream lines(text);
  std::string name;
  long long value = 0;
  while (lines >> name >> value) {
    if (name == key) return value;
  }
  return std::nullopt;
}

CgroupUsage read_cgroup_usage(const cri::CgroupLayout& layout, const std::string& path) {
  if (path.empty() || path.front() != '/') {
    throw cri::CgroupError("cgroup path \"" + path + "\" must start with /");
  }
  return layout.version == cri::CgroupVersion::V1 ? read_v1(layout.root, path)
                                                  : read_v2(layout.root, path);
}

}  // namespace tailor::node::usage
