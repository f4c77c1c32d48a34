#include "node-agent/allocation/checkpoint_recovery.h"

#include <cerrno>
#include <cstring>

namespace tailor::node::allocation {
namespace {

// The kubelet's label on every container it creates (the embedded pod runtime sets it too).
constexpr const char* kPodUidLabel = "io.kubernetes.pod.uid";

std::string_view state_name(CheckpointState state) {
  switch (state) {
    case CheckpointState::Intact:
      return "intact";
    case CheckpointState::Missing:
      return "missing";
    case CheckpointState::Corrupt:
      return "corrupt";
    case CheckpointState::UnknownVersion:
      return "of an unknown version";
  }
  return "missing";
}

std::string_view condition_reason(CheckpointState state) {
  switch (state) {
    case CheckpointState::Intact:
      return "CheckpointIncomplete";  // pods run that it does not hold (a write was lost)
    case CheckpointState::Missing:
      return "CheckpointMissing";
    case CheckpointState::Corrupt:
      return "CheckpointCorrupt";
    case CheckpointState::UnknownVersion:
      return "CheckpointUnknownVersion";
  }
  return "CheckpointMissing";
}

}  // namespace

std::filesystem::path set_aside_path(const std::filesystem::path& checkpoint, kube::TimePoint now) {
  const auto seconds =
      std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
  return checkpoint.string() + ".corrupt-" + std::to_string(seconds);
}

LoadedCheckpoint load_or_set_aside(const CheckpointStore& store, kube::TimePoint now) {
  LoadedCheckpoint out;
  try {
    std::optional<Checkpoint> loaded = store.load();
    if (!loaded) return out;  // Missing
    out.checkpoint = std::move(*loaded);
    out.state = CheckpointState::Intact;
    return out;
  } catch (const CheckpointError& e) {
    if (e.kind() == CheckpointErrorKind::Io) throw;
    out.state = e.kind() == CheckpointErrorKind::Corrupt ? CheckpointState::Corrupt
                                                         : CheckpointState::UnknownVersion;
    out.error = e.what();
  }
  const std::filesystem::path aside = set_aside_path(store.path(), now);
  if (std::rename(store.path().c_str(), aside.c_str()) != 0) {
    throw CheckpointError(CheckpointErrorKind::Io,
                          "cannot move the unusable checkpoint " + store.path().string() + " to " +
                              aside.string() + ": " + std::strerror(errno));
  }
  out.set_aside = aside;
  return out;
}

NodeRuntimeView observe_runtime(cri::RuntimeService& cri) {
  // uid → name → newest attempt.
  std::map<std::string, std::map<std::string, cri::ContainerSummary>> newest;
  for (cri::ContainerSummary& summary : cri.list_containers({})) {
    const auto uid = summary.labels.find(kPodUidLabel);
    if (uid == summary.labels.end()) continue;
    auto& by_name = newest[uid->second];
    auto it = by_name.find(summary.name);
    if (it == by_name.end() || it->second.attempt < summary.attempt) {
      by_name[summary.name] = std::move(summary);
    }
  }
  NodeRuntimeView out;
  for (const auto& [uid, by_name] : newest) {
    for (const auto& [name, summary] : by_name) {
      if (summary.state != cri::ContainerState::Running) continue;
      out[uid][name] = cri.container_status(summary.id).resources;
    }
  }
  return out;
}

RecoveryCondition recovery_condition(const LoadedCheckpoint& loaded, const RebuildResult& rebuild) {
  if (loaded.state != CheckpointState::Corrupt && loaded.state != CheckpointState::UnknownVersion &&
      rebuild.rebuilt.empty()) {
    return {"False", "CheckpointUsable", "the allocation checkpoint was read at the last start"};
  }
  std::string message = "allocation checkpoint " + std::string(state_name(loaded.state));
  if (!loaded.error.empty()) message += " (" + loaded.error + ")";
  if (loaded.set_aside) message += "; kept as " + loaded.set_aside->string();
  message += "; " + std::to_string(rebuild.rebuilt.size()) +
             " pod allocation(s) rebuilt from the runtime and the pod status";
  for (const RebuiltPod& pod : rebuild.rebuilt) {
    message += "; " + pod.allocation.namespace_ + "/" + pod.allocation.name;
  }
  return {"True", std::string(condition_reason(loaded.state)), message};
}

std::string rebuilt_pod_message(const LoadedCheckpoint& loaded, const RebuiltPod& pod) {
  return "allocation rebuilt from what runs (allocation checkpoint " +
         std::string(state_name(loaded.state)) + "): " + describe_sources(pod);
}

}  // namespace tailor::node::allocation
