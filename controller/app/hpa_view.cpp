#include "controller/app/hpa_view.h"

#include "actuator/decode_inputs.h"
#include "controller/kube/client/informer.h"
#include "controller/kube/client/list_watch.h"

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

actuator::HpaConflict hpa_conflict_of(const policy::EffectivePolicy& policy,
                                      const HorizontalScalers& scalers) {
  auto it = scalers.find(policy.metadata.namespace_);
  if (it == scalers.end()) return {};
  return actuator::hpa_conflict(policy, it->second);
}

}  // namespace tailor::controller
