// The demo's view of the cluster, read back from the API each time (never from Tailor's own
// bookkeeping): pods, policies, events and nodes as plain values, and the few writes the scenario
// makes (apply the CRDs, create and delete its objects).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tailor::cli::demo {

// "cpu" / "memory" -> quantity as the API wrote it.
using ResourceMap = std::map<std::string, std::string>;

struct ContainerView {
  std::string name{};
  ResourceMap requests{}, limits{};                // desired (spec)
  ResourceMap actual_requests{}, actual_limits{};  // status.containerStatuses[].resources
  int restart_count = 0;
  bool running = false;
};

struct ConditionView {
  std::string type{}, status{}, reason{}, message{};
};

struct PodView {
  std::string name{}, uid{}, node{}, phase{}, owner_kind{}, owner_name{}, app{};
  bool terminating = false;
  long long generation = 0;
  std::vector<ContainerView> containers{};
  std::vector<ConditionView> conditions{};
  const ConditionView* condition(const std::string& type) const;
  const ContainerView* container(const std::string& name) const;
};

struct PolicyView {
  std::string name{};
  std::map<std::string, ResourceMap> targets{};  // container -> target
  std::vector<ConditionView> conditions{};
};

struct EventView {
  std::string uid{}, reason{}, message{}, type{}, object_kind{}, object_name{}, object_uid{},
      source{};
};

struct NodeView {
  std::string name{};
  ResourceMap allocatable{};
  bool ready = false;
  // Memory requested by the pods already bound to it and not finished (Api::nodes(); e.g.
  // Tailor's own pods when it runs in the cluster).
  std::int64_t requested_memory_mi = 0;
};

struct Snapshot {
  std::vector<PodView> pods{};
  std::vector<PolicyView> policies{};
  std::vector<EventView> events{};
  const PodView* pod_by_uid(const std::string& uid) const;
};

// JSON decoding of API objects (lists), exposed for tests; throws std::runtime_error naming the
// kind when the JSON is not a list of that kind.
std::vector<PodView> decode_pods(const std::string& list_json);
std::vector<PolicyView> decode_policies(const std::string& list_json);
std::vector<EventView> decode_events(const std::string& list_json);
std::vector<NodeView> decode_nodes(const std::string& list_json);

class Api {
 public:
  explicit Api(const std::string& kubeconfig);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Creates each CRD of the YAML files unless it exists; waits until they are Established.
  void apply_crds(const std::vector<std::string>& yaml_files);
  void create_namespace(const std::string& ns);
  void delete_namespace(const std::string& ns);
  // Creates a JSON object (its apiVersion/kind say where) in `ns`.
  void create(const std::string& ns, const std::string& object_json);
  void merge_patch_replica_set(const std::string& ns, const std::string& name,
                               const std::string& patch);
  // Deletes a pod at once (grace period 0); false when it was already gone.
  bool delete_pod(const std::string& ns, const std::string& name);
  std::vector<NodeView> nodes();
  Snapshot snapshot(const std::string& ns);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::cli::demo
