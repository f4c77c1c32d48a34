#include "node-agent/runtime/pod_runtime_records.h"

namespace tailor::node::runtime {

std::shared_ptr<PodRecord> PodRecords::record(const std::string& uid) {
  std::lock_guard lock(mutex_);
  auto& slot = pods_[uid];
  if (!slot) slot = std::make_shared<PodRecord>();
  return slot;
}

void PodRecords::forget(const std::string& uid) {
  std::lock_guard lock(mutex_);
  pods_.erase(uid);
}

bool PodRecords::is_terminated(const std::string& uid) const {
  std::lock_guard lock(mutex_);
  return terminated_.contains(uid);
}

void PodRecords::mark_terminated(const std::string& uid) {
  std::lock_guard lock(mutex_);
  terminated_.insert(uid);
}

void PodRecords::remember_sandbox(RunningPod sandbox) {
  std::lock_guard lock(mutex_);
  const std::string uid = sandbox.uid;
  sandboxes_[uid] = std::move(sandbox);
}

void PodRecords::forget_sandbox(const std::string& uid) {
  std::lock_guard lock(mutex_);
  sandboxes_.erase(uid);
}

std::optional<RunningPod> PodRecords::sandbox(const std::string& uid) const {
  std::lock_guard lock(mutex_);
  const auto it = sandboxes_.find(uid);
  if (it == sandboxes_.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> PodRecords::sandbox_uids() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> out;
  for (const auto& [uid, _] : sandboxes_) out.push_back(uid);
  return out;
}

}  // namespace tailor::node::runtime
