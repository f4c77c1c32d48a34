#include "controller/app/cluster_view.h"

#include <boost/json.hpp>
#include <map>

#include "actuator/decode_inputs.h"
#include "actuator/eligibility.h"
#include "controller/app/compact_pod.h"
#include "controller/app/hpa_view.h"
#include "kube/client/informer.h"
#include "kube/client/list_watch.h"
#include "kube/model/decode.h"
#include "policy/decode.h"
#include "policy/resources.h"

namespace tailor::controller {

namespace resources {
const kube::ResourceType kConfigMaps{"", "v1", "configmaps", true};
}  // namespace resources

namespace {

namespace bj = boost::json;
using kube::cache::Informer;
using kube::cache::RestListerWatcher;

kube::cache::InformerOptions named(std::string name) {
  kube::cache::InformerOptions o;
  o.name = std::move(name);
  return o;
}

struct NamespacedLimitRange {
  std::string ns;
  std::vector<actuator::LimitRangeItem> items;
};

using OwnerInformers =
    std::vector<std::pair<std::string, std::unique_ptr<Informer<kube::PartialObjectMetadata>>>>;

// Owners looked up in the informers' stores when a pass asks for them (no copy of every workload
// per pass or per admission); the ones found are held until the pass ends.
class OwnerSnapshot : public policy::OwnerLookup {
 public:
  explicit OwnerSnapshot(const OwnerInformers& informers) : informers_(informers) {}
  const kube::ObjectMeta* find(std::string_view ns,
                               const kube::OwnerReference& owner) const override {
    for (const auto& [kind, informer] : informers_) {
      if (kind != owner.kind) continue;
      auto o = informer->store().get(ns, owner.name);
      if (!o || o->metadata.uid != owner.uid) return nullptr;
      held_.push_back(o);
      return &o->metadata;
    }
    return nullptr;
  }
  std::optional<const kube::ObjectMeta*> named(std::string_view ns, std::string_view kind,
                                               std::string_view name) const override {
    for (const auto& [watched, informer] : informers_) {
      if (watched != kind) continue;
      auto o = informer->store().get(ns, name);
      if (!o) return nullptr;
      held_.push_back(o);
      return &o->metadata;
    }
    return std::nullopt;
  }

 private:
  const OwnerInformers& informers_;
  mutable std::vector<std::shared_ptr<const kube::PartialObjectMetadata>> held_;
};

// Owner chains read only an owner's identity and its ownerReferences; the rest of its metadata
// (labels, and annotations such as kubectl's last-applied-configuration, kilobytes each) is not
// kept for 10,000s of ReplicaSets and Deployments.
kube::PartialObjectMetadata owner_identity(std::string_view json) {
  kube::PartialObjectMetadata o = kube::decode<kube::PartialObjectMetadata>(json);
  kube::ObjectMeta& m = o.metadata;
  return {.api_version = std::move(o.api_version),
          .kind = std::move(o.kind),
          .metadata = {.name = std::move(m.name),
                       .namespace_ = std::move(m.namespace_),
                       .uid = std::move(m.uid),
                       .resource_version = std::move(m.resource_version),
                       .owner_references = std::move(m.owner_references)}};
}

template <class T>
PolicyObject policy_object(const policy::Decoded<T>& d, policy::PolicyApi api) {
  PolicyObject p{.key = d.object.metadata.namespace_ + "/" + d.object.metadata.name,
                 .api = api,
                 .metadata = d.object.metadata,
                 .status = d.object.status};
  if (!d.ok()) {
    p.problems = {d.error};
    return p;
  }
  policy::Validated v = policy::validate(d.object);
  if (v.policy) {
    p.effective = std::move(v.policy);
  } else {
    p.problems = std::move(v.problems);
  }
  return p;
}

}  // namespace

struct ClusterView::Impl {
  kube::RestClient& client;
  ClusterViewOptions options;
  PodInterner interner;  // before the pod informer, whose decoding uses it
  Informer<actuator::PodFacts> pods;
  Informer<kube::Node> nodes;
  Informer<policy::Decoded<policy::VerticalScalingPolicy>> vsps;
  std::unique_ptr<Informer<policy::Decoded<policy::VerticalPodAutoscaler>>> vpas;
  Informer<NamespacedLimitRange> limit_ranges;
  std::vector<std::pair<std::string, std::unique_ptr<Informer<kube::PartialObjectMetadata>>>>
      owners;
  HorizontalScalerView hpas;

  Impl(kube::RestClient& c, ClusterViewOptions o)
      : client(c),
        options(std::move(o)),
        pods(
            std::make_shared<RestListerWatcher>(c, kube::resources::kPods),
            [this](std::string_view j) { return interner.compact(kube::decode<kube::Pod>(j)); },
            named("pods")),
        nodes(
            std::make_shared<RestListerWatcher>(c, kube::resources::kNodes),
            [](std::string_view j) { return kube::decode<kube::Node>(j); }, named("nodes")),
        vsps(std::make_shared<RestListerWatcher>(c, policy::resources::kVerticalScalingPolicies),
             policy::decode_vertical_scaling_policy,
             named(policy::resources::kVerticalScalingPolicies.resource)),
        limit_ranges(
            std::make_shared<RestListerWatcher>(c, kube::resources::kLimitRanges),
            [](std::string_view j) {
              bj::value v = bj::parse(j);
              const bj::value* ns = v.at("metadata").as_object().if_contains("namespace");
              return NamespacedLimitRange{ns && ns->is_string() ? std::string(ns->as_string()) : "",
                                          actuator::decode_limit_range(j)};
            },
            named("limitranges")),
        hpas(c, options.watch_hpa) {
    if (options.watch_vpa) {
      vpas = std::make_unique<Informer<policy::Decoded<policy::VerticalPodAutoscaler>>>(
          std::make_shared<RestListerWatcher>(c, policy::resources::kVerticalPodAutoscalers),
          policy::decode_vertical_pod_autoscaler,
          named(policy::resources::kVerticalPodAutoscalers.resource));
    }
    for (const auto& [kind, type] : policy::owner_kinds()) {
      owners.emplace_back(
          kind, std::make_unique<Informer<kube::PartialObjectMetadata>>(
                    std::make_shared<RestListerWatcher>(c, type), owner_identity, named(kind)));
    }
  }

  template <class F>
  void each(F f) {
    f(pods);
    f(nodes);
    f(vsps);
    f(limit_ranges);
    if (vpas) f(*vpas);
    for (auto& [kind, informer] : owners) f(*informer);
  }

  std::vector<PolicyObject> policies() const {
    std::vector<PolicyObject> out;
    for (const auto& d : vsps.store().list()) {
      out.push_back(policy_object(*d, policy::PolicyApi::VerticalScalingPolicy));
    }
    if (vpas) {
      for (const auto& d : vpas->store().list()) {
        PolicyObject p = policy_object(*d, policy::PolicyApi::VerticalPodAutoscaler);
        if (p.effective) {
          policy::VpaClaim claim = policy::claim_vpa(*p.effective, options.vpa_recommender_names,
                                                     options.upstream_vpa_running);
          p.claimed = claim.ours;
          p.unclaimed_reason = claim.reason;
        }
        out.push_back(std::move(p));
      }
    }
    return out;
  }

  std::shared_ptr<OwnerSnapshot> owner_snapshot() const {
    return std::make_shared<OwnerSnapshot>(owners);
  }
};

ClusterView::ClusterView(kube::RestClient& client, ClusterViewOptions options)
    : impl_(std::make_unique<Impl>(client, std::move(options))) {}

ClusterView::~ClusterView() { stop(); }

void ClusterView::start() {
  impl_->each([](auto& informer) { informer.start(); });
  impl_->hpas.start();  // optional: not waited for in wait_for_sync
}

bool ClusterView::wait_for_sync(std::chrono::milliseconds timeout) const {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  bool ok = true;
  impl_->each([&](auto& informer) {
    // VerticalPodAutoscalers are optional: most clusters do not serve them (no VPA CRD), so that
    // list may fail with 404 forever; VPA objects join the passes once it syncs.
    if (static_cast<const void*>(&informer) == impl_->vpas.get()) return;
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    ok = informer.wait_for_sync(std::max(left, std::chrono::milliseconds(0))) && ok;
  });
  return ok;
}

void ClusterView::stop() {
  impl_->each([](auto& informer) { informer.stop(); });
  impl_->hpas.stop();
}

PassInputs ClusterView::snapshot(kube::TimePoint now) const {
  PassInputs in;
  in.now = now;
  in.policies = impl_->policies();
  in.pods = impl_->pods.store().list();
  in.owners = impl_->owner_snapshot();
  in.hpas = impl_->hpas.by_namespace();
  for (const auto& lr : impl_->limit_ranges.store().list()) {
    auto& items = in.limit_ranges[lr->ns];
    items.insert(items.end(), lr->items.begin(), lr->items.end());
  }
  in.largest_allocatable = largest_allocatable();
  return in;
}

std::vector<PolicyObject> ClusterView::policies() const { return impl_->policies(); }

std::vector<std::shared_ptr<const actuator::PodFacts>> ClusterView::pods() const {
  return impl_->pods.store().list();
}

std::optional<PolicyObject> ClusterView::policy_for(const kube::Pod& pod) const {
  std::vector<PolicyObject> all = impl_->policies();
  std::vector<const policy::EffectivePolicy*> active;
  std::vector<std::size_t> index;
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (all[i].effective && all[i].claimed) {
      active.push_back(&*all[i].effective);
      index.push_back(i);
    }
  }
  auto owners = impl_->owner_snapshot();
  policy::Assignment a = policy::assign_policies(
      {{&pod.metadata, policy::controller_chain(pod.metadata, *owners)}}, active);
  if (a.policy_of_pod.empty() || !a.policy_of_pod[0]) return std::nullopt;
  return all[index[*a.policy_of_pod[0]]];
}

std::optional<actuator::LimitRangeItem> ClusterView::limit_range(const std::string& ns) const {
  std::vector<actuator::LimitRangeItem> items;
  for (const auto& lr : impl_->limit_ranges.store().list()) {
    if (lr->ns == ns) items.insert(items.end(), lr->items.begin(), lr->items.end());
  }
  return actuator::container_limit_range(items);
}

std::shared_ptr<const actuator::PodFacts> ClusterView::pod(const std::string& ns,
                                                           const std::string& name) const {
  return impl_->pods.store().get(ns, name);
}

kube::ResourceList ClusterView::largest_allocatable() const {
  kube::ResourceList out;
  for (const auto& node : impl_->nodes.store().list()) {
    kube::max_resources(out, node->status.allocatable);
  }
  return out;
}

std::vector<std::string> ClusterView::hpa_resources(const kube::Pod& pod) const {
  std::vector<actuator::HorizontalScaler> hpas = impl_->hpas.in_namespace(pod.metadata.namespace_);
  if (hpas.empty()) return {};
  auto owners = impl_->owner_snapshot();
  return actuator::hpa_conflict(policy::controller_chain(pod.metadata, *owners), hpas).resources;
}

}  // namespace tailor::controller
