// --actuation=agent (embedded-cluster nodes, no kubelet): the agent registers the node, admits
// pods and resizes (ResizeManager), runs the admitted pods through the CRI (PodRuntime), and
// applies resizes. Runs until SIGINT/SIGTERM.
#pragma once

#include <signal.h>

#include "kube/client/events.h"
#include "kube/client/rest_client.h"
#include "kube/observe/endpoint.h"
#include "kube/observe/health.h"
#include "node-agent/allocation/node_agent_metrics.h"
#include "node-agent/main/agent_options.h"

namespace tailor::node {

// Where the agent serves the kubelet's resource metrics (/metrics/resource, for tailor-cluster's
// metrics.k8s.io): the routes of its metrics endpoint and that endpoint's port, published as the
// Node's kubelet endpoint (0: none serves).
struct KubeletEndpoint {
  kube::observe::Routes& routes;
  std::uint16_t port = 0;
};

int run_agent_mode(const AgentOptions& options, kube::RestClient& client,
                   allocation::NodeAgentMetrics& metrics, kube::health::Checks& checks,
                   KubeletEndpoint endpoint, kube::EventRecorder& recorder, sigset_t signals);

// Blocks until one of `signals` arrives (they are blocked in every thread).
void wait_for_signal(sigset_t signals);

}  // namespace tailor::node
