#include "policy/signals.h"

namespace tailor::policy {
namespace {

constexpr const char* kNormal = "Normal";

bool is_vpa(PolicyApi api) { return api == PolicyApi::VerticalPodAutoscaler; }

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : std::string(separator)) + p;
  return out;
}

// "container 1: cpu request, memory request, memory limit"
std::string container_update_text(const ContainerUpdate& u) {
  std::vector<std::string> fields;
  for (const std::string& r : u.requests) fields.push_back(r + " request");
  for (const std::string& r : u.limits) fields.push_back(r + " limit");
  return "container " + std::to_string(u.index) + ": " + joined(fields, ", ");
}

}  // namespace

std::vector<ActionEvent> eviction_events(PolicyApi api, std::string_view pod,
                                         std::string_view why) {
  if (!is_vpa(api)) {
    return {{ActionEvent::On::Pod, kNormal, std::string(kRecreating),
             "Evicted to be recreated with the recommended resources: " + std::string(why)}};
  }
  return {{ActionEvent::On::Pod, kNormal, std::string(kEvictedByVpa),
           "Pod was evicted by VPA Updater to apply resource recommendation."},
          {ActionEvent::On::Policy, kNormal, std::string(kEvictedPod),
           "VPA Updater evicted Pod " + std::string(pod) + " to apply resource recommendation."}};
}

std::vector<ActionEvent> resize_events(PolicyApi api, std::string_view why) {
  if (!is_vpa(api)) {
    return {{ActionEvent::On::Pod, kNormal, std::string(kResizeRequested),
             "Resizing in place (" + std::string(why) + ")"}};
  }
  return {{ActionEvent::On::Pod, kNormal, std::string(kInPlaceResizedByVpa),
           "Pod was resized in place by VPA Updater."}};
}

std::vector<Annotation> admission_annotations(PolicyApi api, std::string_view policy_name,
                                              const std::vector<std::string>& containers,
                                              const std::vector<ContainerUpdate>& updates) {
  if (!is_vpa(api)) return {};
  std::vector<Annotation> out;
  std::vector<std::string> texts;
  for (const ContainerUpdate& u : updates) {
    if (!u.requests.empty() || !u.limits.empty()) texts.push_back(container_update_text(u));
  }
  if (!texts.empty()) {
    out.emplace_back(kVpaUpdatesAnnotation, "Pod resources updated by " + std::string(policy_name) +
                                                ": " + joined(texts, "; "));
  }
  out.emplace_back(kVpaObservedContainersAnnotation, joined(containers, ", "));
  return out;
}

std::vector<Annotation> in_place_annotations(PolicyApi api) {
  if (!is_vpa(api)) return {};
  return {{std::string(kVpaInPlaceUpdatedAnnotation), "true"}};
}

}  // namespace tailor::policy
