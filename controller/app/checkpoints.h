// The recommender's models as VerticalScalingCheckpoint objects (autoscaling.tailor.dev), one
// per (policy, container) like VPA's VerticalPodAutoscalerCheckpoint: written periodically by
// the leader and on shutdown, read back before a new leader's first pass, and deleted when
// their policy is gone. A restarted or newly elected controller recommends from where the
// previous one left off instead of from an empty model. For VPA objects under the vpa strategy,
// also VPA's own VerticalPodAutoscalerCheckpoint (written and removed, never read back).
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "controller/recommendation/model_registry.h"
#include "kube/client/events.h"
#include "kube/client/rest_client.h"
#include "kube/model/time.h"
#include "policy/effective.h"

namespace tailor::controller {

// One checkpoint object as stored.
struct CheckpointRecord {
  std::string ns{}, name{}, uid{};
  std::string policy_name{};
  policy::PolicyApi policy_api = policy::PolicyApi::VerticalScalingPolicy;
  std::string container{};
  std::string strategy{};  // the strategy that wrote it ("vpa", "default")
  std::string state{};     // its compact checkpoint text
  recommender::SampleSpan samples{};
  std::string problem{};  // set when the object is not a readable checkpoint

  std::string policy_key() const { return ns + "/" + policy_name; }
};

// VPA's naming, "<policy>-<container>" (VPA objects get a "vpa-" prefix so that a
// VerticalScalingPolicy and a VerticalPodAutoscaler of the same name do not share one), cut
// with a hash suffix to fit an object name.
std::string checkpoint_name(const std::string& policy_name, policy::PolicyApi api,
                            const std::string& container);
// The whole object (create) and its status as a JSON patch replacing /status (the status
// subresource).
std::string checkpoint_object(const CheckpointRecord& r, kube::TimePoint now);
std::string checkpoint_status_patch(const CheckpointRecord& r, kube::TimePoint now);
// VPA's own checkpoint of a VPA object's container, as VPA's recommender writes it: a
// VerticalPodAutoscalerCheckpoint (autoscaling.k8s.io/v1) named "<vpa>-<container>", spec
// {vpaObjectName, containerName}, status version "v3" with the histograms and sample fields.
// Written beside Tailor's own for VPA objects under the vpa strategy, whose model is VPA's, so
// that what reads VPA's checkpoints keeps finding them. nullopt for any other record.
std::string vpa_checkpoint_name(const std::string& vpa_name, const std::string& container);
std::optional<std::string> vpa_checkpoint_object(const CheckpointRecord& r, kube::TimePoint now);

// The items of a VerticalScalingCheckpointList; an item that cannot be read comes back with
// `problem` saying why. Throws std::runtime_error when the list itself is not JSON.
std::vector<CheckpointRecord> parse_checkpoint_list(std::string_view json);

struct CheckpointOptions {
  std::string strategy = "default";
  std::chrono::nanoseconds interval = std::chrono::minutes(1);
  // Writes of one round stop after this long (the oldest-written go first, so every model is
  // written within a few rounds even when there are too many for one).
  std::chrono::nanoseconds write_budget = std::chrono::seconds(10);
};

class ModelCheckpoints {
 public:
  ModelCheckpoints(kube::RestClient& client, recommendation::ModelRegistry& models,
                   kube::EventRecorder& events, CheckpointOptions options);

  // Restores every stored checkpoint whose model is not live yet; returns how many. A
  // corrupt checkpoint gets a Warning event and a log line, and its model starts empty.
  std::size_t load();
  // One round if the interval has passed since the last (or `force`): writes the models that
  // changed since their last write, and deletes checkpoints whose policy is not in `policies`
  // (key and API). `policies` must come from synced informers.
  void save(const std::vector<std::pair<std::string, policy::PolicyApi>>& policies,
            kube::TimePoint now, bool force = false);

  struct Stats {
    std::size_t restored = 0, invalid = 0, written = 0, deleted = 0, failed = 0;
  };
  Stats stats() const;

 private:
  struct Stored {
    recommendation::ContainerModelKey key;
    policy::PolicyApi api = policy::PolicyApi::VerticalScalingPolicy;
    std::size_t state_hash = 0;         // of the state last written; 0 = never written by us
    recommender::SampleSpan samples{};  // behind that state: unchanged means nothing to write
    kube::TimePoint written{};
  };
  void restore(const CheckpointRecord& r);
  void write(const CheckpointRecord& r, kube::TimePoint now);
  // Best effort: a VPA checkpoint not written is logged, never a failed round.
  void write_vpa_checkpoint(const CheckpointRecord& r, kube::TimePoint now);
  void remove_vpa_checkpoint(const std::string& ns, const std::string& name);
  void collect_garbage(const std::vector<std::pair<std::string, policy::PolicyApi>>& policies);

  kube::RestClient& client_;
  recommendation::ModelRegistry& models_;
  kube::EventRecorder& events_;
  CheckpointOptions options_;
  mutable std::mutex mutex_;
  std::map<std::string, Stored> stored_;  // by object "namespace/name"
  std::optional<kube::TimePoint> last_round_;
  // Cleared when the API does not serve VerticalPodAutoscalerCheckpoints (VPA's CRD missing):
  // tried again after a restart.
  bool vpa_checkpoints_served_ = true;
  Stats stats_;
};

}  // namespace tailor::controller
