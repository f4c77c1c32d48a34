// The default scheduler's decisions as pure functions: which nodes can take a pod (filters in
// kube-scheduler's order: NodeUnschedulable, TaintToleration, NodeAffinity, NodeResourcesFit),
// which of them to pick, and the message of an unschedulable pod.
#pragma once

#include <boost/json/fwd.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "kube/model/resources.h"

namespace tailor::embedded {

// What the pods bound to a node take from it.
struct NodeUsage {
  kube::ResourceList requested;
  std::int64_t pods = 0;
};

// A pod's requests as the scheduler counts them (KEP-1287): per container the max of desired
// (unless the resize is Infeasible), allocated and actual resources, plus spec.overhead.
// Throws DecodeError for a pod the model cannot read.
kube::ResourceList scheduling_requests(const boost::json::object& pod);

// Why the node cannot take the pod, as kube-scheduler words it ("Insufficient cpu",
// "node(s) were unschedulable", ...); empty when it fits.
std::vector<std::string> filter_failures(const boost::json::object& pod,
                                         const kube::ResourceList& requests,
                                         const boost::json::object& node, const NodeUsage& usage);

// Among fitting nodes, the least allocated after placing the pod (ties: first given).
// `fitting` indexes nodes; returns an index into it.
std::size_t pick_least_allocated(const std::vector<const boost::json::object*>& fitting,
                                 const std::vector<const NodeUsage*>& usage,
                                 const kube::ResourceList& requests);

// "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No
// preemption victims found for incoming pod.." — failures holds each node's reasons (the
// doubled period is kube-scheduler's: the preemption message ends in one and is appended as a
// sentence).
std::string unschedulable_message(const std::vector<std::vector<std::string>>& failures);

}  // namespace tailor::embedded
