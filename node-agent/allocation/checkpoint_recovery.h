// Start-up of the allocation record when it cannot be trusted whole: a checkpoint that is corrupt
// or of an unknown version is moved aside (kept for diagnosis, never deleted) and the allocations
// of the pods that ran here are rebuilt from the runtime and the pod status (checkpoint_rebuild.h);
// a missing checkpoint on a node whose pods still run is rebuilt the same way. The node says so
// with a condition and events (recovery_condition), and admission carries on: no pod whose
// containers run is failed, and none waits for a person to delete a file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "kube/model/time.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/checkpoint_rebuild.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::allocation {

enum class CheckpointState { Intact, Missing, Corrupt, UnknownVersion };

struct LoadedCheckpoint {
  Checkpoint checkpoint;  // empty unless Intact
  CheckpointState state = CheckpointState::Missing;
  std::string error;                               // why it could not be used
  std::optional<std::filesystem::path> set_aside;  // where the unusable file now is
};

// Where an unusable checkpoint is kept: "<file>.corrupt-<unix seconds>".
std::filesystem::path set_aside_path(const std::filesystem::path& checkpoint, kube::TimePoint now);

// Loads the checkpoint; a corrupt or unknown-version file is renamed to set_aside_path. Throws
// CheckpointError (Io) when the file cannot be read or moved: nothing is decided without it.
LoadedCheckpoint load_or_set_aside(const CheckpointStore& store, kube::TimePoint now);

// What the runtime runs for every pod it labels with a pod uid (io.kubernetes.pod.uid): the
// newest attempt of each container, if running, with the resources it applied.
NodeRuntimeView observe_runtime(cri::RuntimeService& cri);

// The node condition that tells of a rebuild. Not an upstream type (the kubelet has no such
// recovery), so it is named in Tailor's domain; it does not touch Ready: the node keeps
// admitting pods on the rebuilt record.
inline constexpr const char* kCheckpointConditionType = "tailor.dev/AllocationCheckpointRebuilt";

struct RecoveryCondition {
  std::string status;  // "True": rebuilt at the last start; "False": intact since
  std::string reason;  // CheckpointCorrupt | CheckpointUnknownVersion | CheckpointMissing |
                       // CheckpointIncomplete | CheckpointUsable
  std::string message;
  bool operator==(const RecoveryCondition&) const = default;
};

// True with the reason and what was done when something was rebuilt or set aside; False
// (CheckpointUsable) otherwise, which is written only to clear an earlier True.
RecoveryCondition recovery_condition(const LoadedCheckpoint& loaded, const RebuildResult& rebuild);

// The event on a rebuilt pod: "allocation rebuilt from what runs (checkpoint <state>): a=runtime".
std::string rebuilt_pod_message(const LoadedCheckpoint& loaded, const RebuiltPod& pod);

}  // namespace tailor::node::allocation
