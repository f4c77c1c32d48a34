// The node's own objects, as the kubelet keeps them: the Node (labels, capacity and allocatable
// from --node-allocatable, addresses, nodeInfo, a Ready condition whose heartbeat is renewed) and
// its Lease in kube-node-lease (renewed every lease_duration / 4). The documents are built by pure
// functions; NodeRegistration sends them.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "kube/model/resources.h"

namespace tailor::kube {
class RestClient;
}

namespace tailor::node::runtime {

struct NodeIdentity {
  std::string name{};
  std::string host_ip = "127.0.0.1";
  kube::ResourceList allocatable{};  // capacity is the same: the node is only what it is given
  std::string runtime_version{};     // e.g. "containerd://1.6.20"
  std::string agent_version = "tailor-node-agent";
  std::int32_t lease_duration_seconds = 40;
  // status.daemonEndpoints.kubeletEndpoint.Port: where the agent serves the kubelet's
  // /metrics/resource (on host_ip), as metrics-server finds kubelets; 0 leaves it out.
  std::uint16_t kubelet_port = 0;
};

// capacity/allocatable with pods (110) added when not given.
kube::ResourceList node_capacity(const NodeIdentity& node);

// POST body of a new Node: metadata (kubernetes.io/hostname, os, arch labels), spec, status.
std::string node_document(const NodeIdentity& node, const std::string& now);
// Strategic merge patch of nodes/<name>/status: capacity, allocatable, addresses, daemonEndpoints,
// nodeInfo and the
// Ready condition (True, KubeletReady) with lastHeartbeatTime = now; lastTransitionTime = now
// unless `ready_since` (the time it last became True) is given.
std::string node_status_patch(const NodeIdentity& node, const std::string& now,
                              const std::string& ready_since);
// POST body of the node's Lease (holder = node, owner = the Node object `node_uid`).
std::string lease_document(const NodeIdentity& node, const std::string& node_uid,
                           const std::string& now_micro);
// Merge patch renewing the Lease.
std::string lease_renew_patch(const std::string& now_micro);

class NodeRegistration {
 public:
  NodeRegistration(kube::RestClient& client, NodeIdentity node);
  ~NodeRegistration();  // stops the heartbeat

  // Creates the Node (or adopts an existing one), writes its status and creates its Lease.
  // Throws on API errors.
  void register_node();
  // One heartbeat: Ready condition and Lease renewed (the Lease is recreated if it vanished).
  void heartbeat();
  // Heartbeats in the background every lease_duration / 4 (errors are logged, retried next time).
  void start_heartbeat();
  void stop_heartbeat();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::node::runtime
