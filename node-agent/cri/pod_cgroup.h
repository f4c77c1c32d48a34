// The pod-level cgroup, which the node agent owns as the kubelet does (the runtime owns the
// container cgroups beneath it). Names follow the kubelet:
// /kubepods[/burstable|/besteffort]/pod<uid> with the cgroupfs driver,
// kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice with systemd. Values
// are read and written as cgroup v1 files (cpu/, memory/ hierarchies) or cgroup v2 files (unified
// tree), converting with the kubelet's formulas.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "kube/model/qos.h"
#include "node-agent/cri/cgroup_values.h"

namespace tailor::node::cri {

enum class CgroupVersion { V1, V2 };
enum class CgroupDriver { Cgroupfs, Systemd };

// The cgroup name's components, e.g. {"kubepods", "burstable", "pod<uid>"}. Guaranteed pods sit
// directly under kubepods.
std::vector<std::string> pod_cgroup_name(const std::string& pod_uid, kube::QosClass qos);
// The path below a hierarchy's mount point for a cgroup name, e.g. "/kubepods/burstable/pod<uid>"
// (cgroupfs) or "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice"
// (systemd, where dashes in the uid become underscores).
std::string cgroup_path(const std::vector<std::string>& name, CgroupDriver driver);
// A container's cgroup below its pod's, as containerd + runc name it: <pod>/<id> with cgroupfs,
// <pod>/cri-containerd-<id>.scope with systemd.
std::string container_cgroup_path(const std::string& pod_path, const std::string& container_id,
                                  CgroupDriver driver);

// A cgroup file could not be read, parsed or written; the message names the file.
class CgroupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A memory limit decrease refused because usage is already at or above the new limit.
class MemoryBelowUsageError : public CgroupError {
 public:
  MemoryBelowUsageError(const std::string& message, std::int64_t limit, std::int64_t usage)
      : CgroupError(message), limit_bytes(limit), usage_bytes(usage) {}
  std::int64_t limit_bytes;
  std::int64_t usage_bytes;
};

struct CgroupLayout {
  std::filesystem::path root = "/sys/fs/cgroup";
  CgroupVersion version = CgroupVersion::V1;
};

// One cgroup's resource files: the pod-level cgroup the agent owns, or (read-only use) a
// container's cgroup for its usage.
class CgroupFiles {
 public:
  CgroupFiles(CgroupLayout layout, std::string path);

  // Current values (v2 weight converted back to shares; unlimited quota = kUnlimitedQuota,
  // unlimited memory = nullopt).
  CgroupValues read() const;
  // Writes the fields that are set, CPU before memory. A memory decrease is checked against
  // current usage first and refused with MemoryBelowUsageError.
  void write(const CgroupValues& values) const;
  std::int64_t memory_usage_bytes() const;

  const std::string& path() const { return path_; }
  std::filesystem::path file(const char* controller, const char* name) const;

 private:
  void write_cpu(const CgroupValues& values) const;
  void write_memory(std::optional<std::int64_t> limit_bytes) const;

  CgroupLayout layout_;
  std::string path_;
};

}  // namespace tailor::node::cri
