// A pod's volumes on an embedded node, made before its containers start as the kubelet's volume
// manager makes them: hostPath (below the node's
// --host-path-root when it has one; checked against its type, DirectoryOrCreate made), emptyDir (a
// fresh directory, 0777), and the volumes of files — secret, configMap, downwardAPI and projected
// (a bound ServiceAccount token from TokenRequest, ConfigMap and Secret keys, pod fields) —
// written under <volume_root>/<uid>/volumes/<name> with the kubelet's atomic writer layout (the
// files are links through ..data to a timestamped directory, swapped whole), and looked at again
// every minute (new ConfigMap and Secret data: a new version only when a file changed or is to go;
// hostPath and emptyDir are made once); a token is asked for again at 80 % of its
// lifetime, as the kubelet's token manager does. A volume that cannot be made keeps the pod's
// containers from starting, with the kubelet's message: MountVolume.SetUp failed for volume
// "<name>" : <why>.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {

// The token for a serviceAccountToken source.
using TokenSource = std::function<std::string(const ProjectionSource&)>;

// The files of a volume of files (path in the volume → content); throws std::runtime_error with
// the reason when a source is missing (and not optional) or names a key its data lacks.
std::map<std::string, std::string> volume_files(const VolumeSpec& volume, const RuntimePod& pod,
                                                const PodRuntimeOptions& options, PodApi& api,
                                                const TokenSource& token);

// The files written to `dir` as the kubelet's atomic writer does; files not in `files` any more
// are removed. Nothing is written when the current version holds exactly `files`.
void write_volume_files(const std::string& dir, const std::map<std::string, std::string>& files,
                        std::uint32_t mode);

struct CachedToken {
  std::string token{};
  std::chrono::steady_clock::time_point renew_at{};  // 80 % of its lifetime
};

struct PodVolumeState {
  std::map<std::string, std::string> paths{};  // host path, by volume name
  std::chrono::steady_clock::time_point refresh_at{};
  std::map<std::string, CachedToken> tokens{};  // by "<volume>/<path>"
};

class PodVolumes {
 public:
  // Both must outlive this.
  PodVolumes(PodApi& api, const PodRuntimeOptions& options);

  // Makes the pod's volumes (or writes their files again when due); nullopt when every volume
  // is there, else why not.
  std::optional<std::string> ensure(const RuntimePod& pod, PodVolumeState& state);
  // Removes what the node made for pod `uid` (hostPath volumes are the host's and stay).
  void remove(const std::string& uid);

 private:
  std::string make(const RuntimePod& pod, const VolumeSpec& volume, PodVolumeState& state);
  std::string token(const RuntimePod& pod, const VolumeSpec& volume, const ProjectionSource& source,
                    PodVolumeState& state);

  PodApi& api_;
  const PodRuntimeOptions& options_;
};

}  // namespace tailor::node::runtime
