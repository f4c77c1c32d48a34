// ResourceQuota as the API server enforces it (the pod evaluator of the ResourceQuota admission
// plugin), as pure functions: a pod's usage in quota resource names, and the check of a request
// against one quota with Kubernetes' message.
#pragma once

#include <boost/json/fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/pod.h"
#include "kube/model/resources.h"

namespace tailor::embedded {

// What a pod counts against quota: pods, count/pods, requests.<r> (and cpu, memory,
// ephemeral-storage as aliases), limits.<r>. Per KEP-1287 each container counts with
// max(desired unless the resize is Infeasible, allocated, actual). Terminal pods count nothing.
kube::ResourceList pod_quota_usage(const kube::Pod& pod);

// The entries of `list` whose names `names` has.
kube::ResourceList mask(const kube::ResourceList& list, const kube::ResourceList& names);
// after - before per resource, never negative; zero entries dropped (a resize's delta).
kube::ResourceList positive_delta(const kube::ResourceList& after,
                                  const kube::ResourceList& before);
// "requests.cpu=1,requests.memory=1Gi": names sorted, as quota errors print lists.
std::string pretty_print(const kube::ResourceList& list);

// The pod evaluator's constraint: when a quota limits cpu or memory (requests or limits), every
// container must state that resource. "must specify limits.cpu for: a,b; requests.memory for: a"
// naming what is missing; nullopt when nothing is.
std::optional<std::string> missing_required(const kube::Pod& pod, const kube::ResourceList& hard);

// Whether a quota's scopes (spec.scopes, spec.scopeSelector) select the pod: Terminating,
// NotTerminating, BestEffort, NotBestEffort, PriorityClass. A quota without scopes selects all.
bool quota_selects(const boost::json::object& quota, const boost::json::object& pod);

struct QuotaState {
  std::string name;
  kube::ResourceList hard;
  kube::ResourceList used;
};

// nullopt when `requested` (usage being added) fits; else
// "exceeded quota: NAME, requested: ..., used: ..., limited: ..." naming the exceeded resources.
std::optional<std::string> quota_exceeded(const QuotaState& quota,
                                          const kube::ResourceList& requested);

}  // namespace tailor::embedded
