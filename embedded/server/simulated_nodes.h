// Simulated nodes from a YAML file, for clusters whose tests need nodes but no containers:
//
//   nodes:
//   - name: node-1
//     labels: {topology.kubernetes.io/zone: a}
//     capacity: {cpu: "4", memory: 8Gi, pods: "110"}
//     allocatable: {cpu: 3800m, memory: 7Gi}   # default: capacity
//
// Each becomes a Ready Node reporting kubelet v1.35.0, annotated as simulated (tailor-cluster's
// simulated kubelet runs their pods). Quantities are canonicalized as Kubernetes serializes them.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "embedded/storage/object_store.h"

namespace tailor::embedded {

inline constexpr const char* kSimulatedNodeAnnotation = "tailor.dev/simulated-node";

class NodesFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The Node objects (JSON text) the file describes; throws NodesFileError naming the entry.
std::vector<std::string> simulated_nodes(const std::string& yaml_text);
// Reads the file and creates its nodes.
void register_simulated_nodes(ObjectStore& store, const std::string& path);

}  // namespace tailor::embedded
