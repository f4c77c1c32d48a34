// How the node tells of an allocation checkpoint rebuilt at start (checkpoint_recovery.h): the
// node condition tailor.dev/AllocationCheckpointRebuilt (True with the reason; set False on a
// later clean start, written only when it was True), a Warning event on the Node and one on each
// rebuilt pod, and the rebuilt checkpoint written at once so that the next start reads it.
#pragma once

#include <string>

#include "kube/client/events.h"
#include "kube/client/rest_client.h"
#include "node-agent/allocation/checkpoint_recovery.h"
#include "node-agent/allocation/resize_manager.h"

namespace tailor::node {

// Strategic merge patch of nodes/<name>/status carrying the one condition (conditions merge by
// type, so Ready and the others stay as they are).
std::string node_condition_patch(const allocation::RecoveryCondition& condition,
                                 const std::string& now);

// Everything above and the metric; API and file errors are logged, never thrown: the pods keep
// running.
void report_recovery(kube::RestClient& client, kube::EventRecorder& recorder,
                     allocation::NodeAgentMetrics& metrics,
                     allocation::AllocationCheckpoint& checkpoint, const std::string& node_name,
                     const allocation::LoadedCheckpoint& loaded,
                     const allocation::RebuildResult& rebuild);

}  // namespace tailor::node
