#include "controller/app/owner_chains.h"

#include <algorithm>

namespace tailor::controller {
namespace {

std::string workload_of(std::string_view ns, const std::vector<policy::WorkloadRef>& chain) {
  if (chain.empty()) return "";
  const policy::WorkloadRef& top = chain.back();
  std::string out;
  out.reserve(ns.size() + top.kind.size() + top.name.size() + 2);
  return out.append(ns).append("/").append(top.kind).append("/").append(top.name);
}

// The chain from a controller reference for an object with no uid of its own: it then depends on
// the reference alone, and each pod cuts it where it would meet itself (in `of`).
OwnerChain chain_from(std::string_view ns, const kube::OwnerReference& controller,
                      const policy::OwnerLookup& lookup) {
  kube::ObjectMeta from;
  from.namespace_ = std::string(ns);
  from.owner_references = {controller};
  OwnerChain out;
  out.chain = policy::controller_chain(from, lookup);
  out.workload = workload_of(ns, out.chain);
  return out;
}

}  // namespace

const OwnerChain& OwnerChains::walk(const kube::ObjectMeta& pod,
                                    const kube::OwnerReference& controller) {
  auto it = by_controller_.find(std::string_view(controller.uid));
  if (it == by_controller_.end()) {
    it = by_controller_
             .emplace(controller.uid,
                      Walked{pod.namespace_, controller.api_version, controller.kind,
                             controller.name, chain_from(pod.namespace_, controller, lookup_)})
             .first;
  }
  const Walked& w = it->second;
  if (pod.namespace_ == w.ns && controller.api_version == w.api_version &&
      controller.kind == w.kind && controller.name == w.name) {
    return w.chain;
  }
  return own_.emplace_back(chain_from(pod.namespace_, controller, lookup_));
}

const OwnerChain& OwnerChains::of(const kube::ObjectMeta& pod, std::string_view uid) {
  const kube::OwnerReference* controller = kube::controller_of(pod);
  if (!controller) return none_;
  const OwnerChain& shared = walk(pod, *controller);
  if (uid.empty()) return shared;
  auto self = std::find_if(shared.chain.begin(), shared.chain.end(),
                           [&](const policy::WorkloadRef& w) { return w.uid == uid; });
  if (self == shared.chain.end()) return shared;
  OwnerChain& cut = own_.emplace_back();
  cut.chain.assign(shared.chain.begin(), self);
  cut.workload = workload_of(pod.namespace_, cut.chain);
  return cut;
}

}  // namespace tailor::controller
