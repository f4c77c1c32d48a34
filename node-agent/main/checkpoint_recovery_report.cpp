#include "node-agent/main/checkpoint_recovery_report.h"

#include <boost/json.hpp>

#include "kube/model/decode.h"
#include "kube/model/node.h"
#include "kube/model/time.h"
#include "kube/observe/log.h"

namespace tailor::node {
namespace {

kube::ObjectRef node_object(const std::string& name, std::string subresource = "") {
  return {.type = kube::resources::kNodes, .name = name, .subresource = std::move(subresource)};
}

kube::EventObjectRef event_ref(const std::string& kind, const std::string& ns,
                               const std::string& name, const std::string& uid) {
  kube::EventObjectRef ref;
  ref.kind = kind;
  ref.api_version = "v1";
  ref.namespace_ = ns;
  ref.name = name;
  ref.uid = uid;
  return ref;
}

// A False condition is written only over a True one: nodes that never rebuilt do not get it.
bool shows_rebuilt(kube::RestClient& client, const std::string& node_name) {
  const kube::Node node = kube::decode_node(client.get(node_object(node_name)));
  for (const kube::NodeCondition& c : node.status.conditions) {
    if (c.type == allocation::kCheckpointConditionType) return c.status == "True";
  }
  return false;
}

void write_condition(kube::RestClient& client, const std::string& node_name,
                     const allocation::RecoveryCondition& condition) {
  if (condition.status != "True" && !shows_rebuilt(client, node_name)) return;
  client.patch(
      node_object(node_name, "status"), kube::PatchType::StrategicMerge,
      node_condition_patch(condition, kube::format_rfc3339(std::chrono::system_clock::now())));
}

}  // namespace

std::string node_condition_patch(const allocation::RecoveryCondition& condition,
                                 const std::string& now) {
  const boost::json::object entry{{"type", allocation::kCheckpointConditionType},
                                  {"status", condition.status},
                                  {"reason", condition.reason},
                                  {"message", condition.message},
                                  {"lastHeartbeatTime", now},
                                  {"lastTransitionTime", now}};
  return boost::json::serialize(
      boost::json::object{{"status", {{"conditions", boost::json::array{entry}}}}});
}

void report_recovery(kube::RestClient& client, kube::EventRecorder& recorder,
                     allocation::NodeAgentMetrics& metrics,
                     allocation::AllocationCheckpoint& checkpoint, const std::string& node_name,
                     const allocation::LoadedCheckpoint& loaded,
                     const allocation::RebuildResult& rebuild) {
  const allocation::RecoveryCondition condition = allocation::recovery_condition(loaded, rebuild);
  try {
    write_condition(client, node_name, condition);
  } catch (const std::exception& e) {
    kube::log::error(e, "Writing the node condition failed",
                     {{"type", allocation::kCheckpointConditionType}});
  }
  if (condition.status != "True") return;
  metrics.allocations_rebuilt(condition.reason, static_cast<double>(rebuild.rebuilt.size()));
  kube::log::warning("Allocation checkpoint rebuilt from the runtime",
                     {{"reason", condition.reason}, {"message", condition.message}});
  recorder.event(event_ref("Node", "", node_name, node_name), kube::kEventTypeWarning,
                 "AllocationCheckpointRebuilt", condition.message);
  for (const allocation::RebuiltPod& pod : rebuild.rebuilt) {
    const allocation::AllocatedPod& a = pod.allocation;
    recorder.event(event_ref("Pod", a.namespace_, a.name, a.uid), kube::kEventTypeWarning,
                   "AllocationRebuilt", allocation::rebuilt_pod_message(loaded, pod));
  }
  try {
    checkpoint.save(rebuild.checkpoint);
  } catch (const std::exception& e) {
    kube::log::error(e, "Writing the rebuilt allocation checkpoint failed");
  }
}

}  // namespace tailor::node
