// The node agent's record of what it allocated to every pod (the kubelet's allocation
// checkpoint): the resources of each container per pod uid and whether a resize was accepted but
// not yet confirmed by the runtime. It is the source of truth after a restart, so a damaged file
// must never be taken for an empty node (that would overcommit it): it is set aside and the
// allocations rebuilt from what runs (checkpoint_recovery.h).
//
// Format, version 1: a header line "tailor-node-agent-checkpoint v1 fnv1a64:<16 hex>" and the
// pods as JSON; the checksum covers the JSON bytes exactly. Writes go to a temporary file that is
// fsynced, renamed over the old one, and the directory fsynced, so a crash leaves the old or the
// new checkpoint, never a mix.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kube/model/resources.h"

namespace tailor::node::allocation {

inline constexpr int kCheckpointVersion = 1;

struct AllocatedContainer {
  std::string name;
  kube::ResourceRequirements resources;  // cpu and memory requests and limits as allocated
  bool operator==(const AllocatedContainer&) const = default;
};

struct AllocatedPod {
  std::string uid;
  std::string namespace_;
  std::string name;
  std::vector<AllocatedContainer> containers;
  std::vector<AllocatedContainer> init_containers;  // restartable (sidecar) init containers
  // The pod generation whose resources these are.
  std::int64_t generation = 0;
  // A resize was accepted and the runtime has not yet confirmed it; it resumes after a restart.
  bool resize_in_progress = false;
  // PodResizeInProgress observedGeneration: the generation when the resize was accepted.
  std::int64_t in_progress_generation = 0;
  bool operator==(const AllocatedPod&) const = default;
};

struct Checkpoint {
  std::map<std::string, AllocatedPod> pods;  // by uid
  bool operator==(const Checkpoint&) const = default;
};

enum class CheckpointErrorKind { Corrupt, UnknownVersion, Io };

// "corrupt", "unknown_version", "io": the metric label.
std::string_view to_string(CheckpointErrorKind kind);

// The checkpoint could not be read or written; the message names the file and what is wrong.
class CheckpointError : public std::runtime_error {
 public:
  CheckpointError(CheckpointErrorKind kind, const std::string& message)
      : std::runtime_error(message), kind_(kind) {}
  CheckpointErrorKind kind() const { return kind_; }

 private:
  CheckpointErrorKind kind_;
};

// FNV-1a, 64 bits (the checksum of the payload).
std::uint64_t fnv1a64(std::string_view data);

std::string encode_checkpoint(const Checkpoint& checkpoint);
// `where` names the source in error messages (the file path). Throws CheckpointError (Corrupt
// or UnknownVersion) for anything but an intact version-1 checkpoint.
Checkpoint decode_checkpoint(std::string_view text, const std::string& where);

// The checkpoint file in a directory.
class CheckpointStore {
 public:
  explicit CheckpointStore(std::filesystem::path dir,
                           std::string file_name = "allocation_checkpoint");

  // nullopt when there is no checkpoint yet (a new node); throws CheckpointError otherwise.
  std::optional<Checkpoint> load() const;
  // Atomic replace; throws CheckpointError (Io) and leaves the previous checkpoint in place.
  void save(const Checkpoint& checkpoint) const;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

}  // namespace tailor::node::allocation
