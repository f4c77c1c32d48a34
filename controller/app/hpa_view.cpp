#include "controller/app/hpa_view.h"

#include <algorithm>

#include "actuator/decode_inputs.h"
#include "kube/client/informer.h"
#include "kube/client/list_watch.h"

namespace tailor::controller {

namespace resources {
const kube::ResourceType kHorizontalPodAutoscalers{"autoscaling", "v2", "horizontalpodautoscalers",
                                                   true};
}

using HpaInformer = kube::cache::Informer<actuator::HorizontalScaler>;

struct HorizontalScalerView::Impl {
  std::unique_ptr<HpaInformer> informer;
};

HorizontalScalerView::HorizontalScalerView(kube::RestClient& client, bool enabled)
    : impl_(std::make_unique<Impl>()) {
  if (!enabled) return;
  kube::cache::InformerOptions options;
  options.name = "horizontalpodautoscalers";
  impl_->informer =
      std::make_unique<HpaInformer>(std::make_shared<kube::cache::RestListerWatcher>(
                                        client, resources::kHorizontalPodAutoscalers),
                                    actuator::decode_horizontal_pod_autoscaler, std::move(options));
}

HorizontalScalerView::~HorizontalScalerView() { stop(); }

void HorizontalScalerView::start() {
  if (impl_->informer) impl_->informer->start();
}

void HorizontalScalerView::stop() {
  if (impl_->informer) impl_->informer->stop();
}

bool HorizontalScalerView::has_synced() const {
  return !impl_->informer || impl_->informer->has_synced();
}

HorizontalScalers HorizontalScalerView::by_namespace() const {
  HorizontalScalers out;
  if (!impl_->informer) return out;
  for (const auto& hpa : impl_->informer->store().list()) out[hpa->namespace_].push_back(*hpa);
  return out;
}

std::vector<actuator::HorizontalScaler> HorizontalScalerView::in_namespace(
    std::string_view ns) const {
  std::vector<actuator::HorizontalScaler> out;
  if (!impl_->informer) return out;
  for (const auto& hpa : impl_->informer->store().list()) {
    if (hpa->namespace_ == ns) out.push_back(*hpa);
  }
  return out;
}

PassHpaConflicts hpa_conflicts(const HorizontalScalers& scalers,
                               const std::vector<const policy::EffectivePolicy*>& policies,
                               const std::vector<policy::PodRef>& pods,
                               const std::vector<std::optional<std::size_t>>& policy_of_pod) {
  PassHpaConflicts out;
  out.policies.resize(policies.size());
  out.pod_resources.resize(pods.size());
  if (scalers.empty()) return out;
  std::vector<std::vector<policy::WorkloadRef>> workloads(policies.size());  // selector policies
  for (std::size_t i = 0; i < pods.size(); ++i) {
    if (!policy_of_pod[i]) continue;
    auto ns = scalers.find(pods[i].metadata->namespace_);
    if (ns == scalers.end()) continue;
    out.pod_resources[i] = actuator::hpa_conflict(pods[i].chain, ns->second).resources;
    if (out.pod_resources[i].empty() || policies[*policy_of_pod[i]]->target_ref) continue;
    auto& seen = workloads[*policy_of_pod[i]];
    for (const auto& w : pods[i].chain) {
      if (std::find(seen.begin(), seen.end(), w) == seen.end()) seen.push_back(w);
    }
  }
  for (std::size_t p = 0; p < policies.size(); ++p) {
    auto ns = scalers.find(policies[p]->metadata.namespace_);
    if (ns == scalers.end()) continue;
    out.policies[p] = policies[p]->target_ref ? actuator::hpa_conflict(*policies[p], ns->second)
                                              : actuator::hpa_conflict(workloads[p], ns->second);
  }
  return out;
}

}  // namespace tailor::controller
