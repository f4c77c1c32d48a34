#include "node-agent/cri/pod_cgroup.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tailor::node::cri {
namespace {

// cgroup v1 reports "no memory limit" as the largest page-aligned int64.
constexpr std::int64_t kV1UnlimitedMemoryFloor = std::int64_t{1} << 62;

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw CgroupError("reading " + file.string() + ": " + std::strerror(errno));
  std::string text;
  std::getline(in, text);
  return text;
}

std::int64_t parse_int(const std::string& text, const std::filesystem::path& file) {
  std::size_t used = 0;
  try {
    const long long value = std::stoll(text, &used);
    if (used == text.size()) return value;
  } catch (const std::exception&) {
  }
  throw CgroupError("unexpected content \"" + text + "\" in " + file.string());
}

std::int64_t read_int(const std::filesystem::path& file) {
  return parse_int(read_text(file), file);
}

void write_text(const std::filesystem::path& file, const std::string& text) {
  // No O_CREAT: a missing cgroup file is an error, never something to create.
  const int fd = ::open(file.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  const bool written =
      fd >= 0 && ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  const int error = errno;
  if (fd >= 0) ::close(fd);
  if (!written) {
    throw CgroupError("writing " + text + " to " + file.string() + ": " + std::strerror(error));
  }
}

std::string systemd_escape_uid(std::string uid) {
  std::replace(uid.begin(), uid.end(), '-', '_');
  return uid;
}

}  // namespace

std::vector<std::string> pod_cgroup_name(const std::string& pod_uid, kube::QosClass qos) {
  if (pod_uid.empty()) throw std::invalid_argument("pod uid is empty");
  std::vector<std::string> name = {"kubepods"};
  if (qos == kube::QosClass::Burstable) name.push_back("burstable");
  if (qos == kube::QosClass::BestEffort) name.push_back("besteffort");
  name.push_back("pod" + pod_uid);
  return name;
}

std::string cgroup_path(const std::vector<std::string>& name, CgroupDriver driver) {
  std::string path;
  if (driver == CgroupDriver::Cgroupfs) {
    for (const auto& part : name) path += "/" + part;
    return path.empty() ? "/" : path;
  }
  // systemd: each level is a slice named after all levels so far, joined by dashes.
  std::string prefix;
  for (const auto& part : name) {
    const std::string escaped = systemd_escape_uid(part);
    prefix = prefix.empty() ? escaped : prefix + "-" + escaped;
    path += "/" + prefix + ".slice";
  }
  return path.empty() ? "/" : path;
}

std::string container_cgroup_path(const std::string& pod_path, const std::string& container_id,
                                  CgroupDriver driver) {
  if (container_id.empty()) throw std::invalid_argument("container id is empty");
  const std::string leaf =
      driver == CgroupDriver::Cgroupfs ? container_id : "cri-containerd-" + container_id + ".scope";
  return (pod_path == "/" ? "" : pod_path) + "/" + leaf;
}

CgroupFiles::CgroupFiles(CgroupLayout layout, std::string path)
    : layout_(std::move(layout)), path_(std::move(path)) {
  if (path_.empty() || path_.front() != '/') {
    throw std::invalid_argument("cgroup path must be absolute, got \"" + path_ + "\"");
  }
}

std::filesystem::path CgroupFiles::file(const char* controller, const char* name) const {
  std::filesystem::path dir = layout_.root;
  if (layout_.version == CgroupVersion::V1) dir /= controller;
  return dir / path_.substr(1) / name;
}

CgroupValues CgroupFiles::read() const {
  CgroupValues values;
  if (layout_.version == CgroupVersion::V1) {
    values.cpu_shares = read_int(file("cpu", "cpu.shares"));
    values.cpu_period_us = read_int(file("cpu", "cpu.cfs_period_us"));
    values.cpu_quota_us = read_int(file("cpu", "cpu.cfs_quota_us"));
    const std::int64_t limit = read_int(file("memory", "memory.limit_in_bytes"));
    if (limit < kV1UnlimitedMemoryFloor) values.memory_limit_bytes = limit;
    return values;
  }
  values.cpu_shares = cpu_weight_to_shares(read_int(file("cpu", "cpu.weight")));
  const auto cpu_max_file = file("cpu", "cpu.max");
  std::istringstream cpu_max(read_text(cpu_max_file));
  std::string quota, period;
  cpu_max >> quota >> period;
  values.cpu_quota_us = quota == "max" ? kUnlimitedQuota : parse_int(quota, cpu_max_file);
  values.cpu_period_us = parse_int(period, cpu_max_file);
  const auto memory_max_file = file("memory", "memory.max");
  const std::string memory_max = read_text(memory_max_file);
  if (memory_max != "max") values.memory_limit_bytes = parse_int(memory_max, memory_max_file);
  return values;
}

std::int64_t CgroupFiles::memory_usage_bytes() const {
  return read_int(layout_.version == CgroupVersion::V1 ? file("memory", "memory.usage_in_bytes")
                                                       : file("memory", "memory.current"));
}

void CgroupFiles::write(const CgroupValues& values) const {
  write_cpu(values);
  if (values.memory_limit_bytes) write_memory(values.memory_limit_bytes);
}

void CgroupFiles::write_cpu(const CgroupValues& values) const {
  if (layout_.version == CgroupVersion::V1) {
    if (values.cpu_shares)
      write_text(file("cpu", "cpu.shares"), std::to_string(*values.cpu_shares));
    if (values.cpu_period_us) {
      write_text(file("cpu", "cpu.cfs_period_us"), std::to_string(*values.cpu_period_us));
    }
    if (values.cpu_quota_us) {
      write_text(file("cpu", "cpu.cfs_quota_us"), std::to_string(*values.cpu_quota_us));
    }
    return;
  }
  if (values.cpu_shares) {
    write_text(file("cpu", "cpu.weight"), std::to_string(shares_to_cpu_weight(*values.cpu_shares)));
  }
  if (values.cpu_quota_us) {
    write_text(file("cpu", "cpu.max"),
               cpu_max_value(*values.cpu_quota_us, values.cpu_period_us.value_or(kQuotaPeriodUs)));
  }
}

void CgroupFiles::write_memory(std::optional<std::int64_t> limit_bytes) const {
  const std::optional<std::int64_t> current = read().memory_limit_bytes;
  const bool decrease = limit_bytes && (!current || *limit_bytes < *current);
  if (decrease) {
    const std::int64_t usage = memory_usage_bytes();
    if (auto reason = memory_limit_below_usage(*limit_bytes, usage)) {
      throw MemoryBelowUsageError("pod cgroup " + path_ + ": " + *reason, *limit_bytes, usage);
    }
  }
  if (layout_.version == CgroupVersion::V1) {
    write_text(file("memory", "memory.limit_in_bytes"), std::to_string(limit_bytes.value_or(-1)));
  } else {
    write_text(file("memory", "memory.max"), memory_max_value(limit_bytes));
  }
}

}  // namespace tailor::node::cri
