#include "controller/app/owner_chains.h"

#include <algorithm>

namespace tailor::controller {
namespace {

// Everything the walk from this controller reference depends on: the lookup is by namespace,
// kind and name, checked against the uid; the first link copies the reference as written.
std::string cache_key(std::string_view ns, const kube::OwnerReference& r) {
  std::string key;
  key.reserve(ns.size() + r.api_version.size() + r.kind.size() + r.name.size() + r.uid.size() + 4);
  for (std::string_view part :
       {ns, std::string_view(r.api_version), std::string_view(r.kind), std::string_view(r.name)}) {
    key.append(part).push_back('\0');
  }
  return key.append(r.uid);
}

std::string workload_of(std::string_view ns, const std::vector<policy::WorkloadRef>& chain) {
  if (chain.empty()) return "";
  const policy::WorkloadRef& top = chain.back();
  std::string out;
  out.reserve(ns.size() + top.kind.size() + top.name.size() + 2);
  return out.append(ns).append("/").append(top.kind).append("/").append(top.name);
}

}  // namespace

const OwnerChain& OwnerChains::walk(const kube::ObjectMeta& pod,
                                    const kube::OwnerReference& controller) {
  auto [it, added] = by_controller_.try_emplace(cache_key(pod.namespace_, controller));
  if (added) {
    // Walked for an object with no uid of its own: the chain then depends on the reference
    // alone, and each pod cuts it where it would meet itself (below).
    kube::ObjectMeta from;
    from.namespace_ = pod.namespace_;
    from.owner_references = {controller};
    it->second.chain = policy::controller_chain(from, lookup_);
    it->second.workload = workload_of(pod.namespace_, it->second.chain);
  }
  return it->second;
}

const OwnerChain& OwnerChains::of(const kube::ObjectMeta& pod) {
  const kube::OwnerReference* controller = kube::controller_of(pod);
  if (!controller) return none_;
  const OwnerChain& shared = walk(pod, *controller);
  if (pod.uid.empty()) return shared;
  auto self = std::find_if(shared.chain.begin(), shared.chain.end(),
                           [&](const policy::WorkloadRef& w) { return w.uid == pod.uid; });
  if (self == shared.chain.end()) return shared;
  OwnerChain& cut = own_.emplace_back();
  cut.chain.assign(shared.chain.begin(), self);
  cut.workload = workload_of(pod.namespace_, cut.chain);
  return cut;
}

}  // namespace tailor::controller
