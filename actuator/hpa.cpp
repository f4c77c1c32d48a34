#include "actuator/hpa.h"

#include <algorithm>

namespace tailor::actuator {
namespace {

bool targets(const HorizontalScaler& hpa, const policy::WorkloadRef& w) {
  const auto& ref = hpa.scale_target_ref;
  return ref.kind == w.kind && ref.name == w.name &&
         policy::api_group(ref.api_version) == policy::api_group(w.api_version);
}

template <class T>
void add_once(std::vector<T>& list, const T& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

// "cpu" -> "cpu"; "app/cpu" -> "cpu of container app".
std::string described(const std::string& scaled) {
  const auto slash = scaled.find('/');
  if (slash == std::string::npos) return scaled;
  return scaled.substr(slash + 1) + " of container " + scaled.substr(0, slash);
}

std::string_view resource_of(std::string_view scaled) {
  const auto slash = scaled.find('/');
  return slash == std::string_view::npos ? scaled : scaled.substr(slash + 1);
}

}  // namespace

bool left_to_hpa(const std::vector<std::string>& hpa_resources, std::string_view container,
                 std::string_view resource) {
  for (const auto& scaled : hpa_resources) {
    if (scaled == resource) return true;
    const auto slash = scaled.find('/');
    if (slash != std::string::npos && std::string_view(scaled).substr(0, slash) == container &&
        std::string_view(scaled).substr(slash + 1) == resource) {
      return true;
    }
  }
  return false;
}

HpaConflict hpa_conflict(const std::vector<policy::WorkloadRef>& workloads,
                         const std::vector<HorizontalScaler>& hpas) {
  HpaConflict out;
  // "HorizontalPodAutoscaler a, b scales Deployment web", one part per workload scaled.
  std::vector<std::pair<std::string, std::vector<std::string>>> scaled;
  for (const auto& w : workloads) {
    std::vector<std::string> names;
    for (const auto& hpa : hpas) {
      if (!targets(hpa, w)) continue;
      for (const auto& resource : hpa.resources) {
        if (resource_of(resource) != "cpu" && resource_of(resource) != "memory") continue;
        add_once(out.resources, resource);
        add_once(names, hpa.name);
      }
    }
    if (!names.empty()) scaled.emplace_back(w.kind + " " + w.name, std::move(names));
  }
  if (out.resources.empty()) return out;
  std::sort(out.resources.begin(), out.resources.end());
  std::vector<std::string> parts;
  for (const auto& [workload, names] : scaled) {
    add_once(parts, "HorizontalPodAutoscaler " + joined(names, ", ") + " scales " + workload);
  }
  std::vector<std::string> what;
  for (const auto& r : out.resources) what.push_back(described(r));
  const std::string list = joined(what, " and ");
  out.message = joined(parts, " and ") + " on " + list + "; Tailor leaves " + list + " alone";
  return out;
}

HpaConflict hpa_conflict(const policy::EffectivePolicy& policy,
                         const std::vector<HorizontalScaler>& hpas) {
  if (!policy.target_ref) return {};
  const auto& t = *policy.target_ref;
  return hpa_conflict(
      {policy::WorkloadRef{.api_version = t.api_version, .kind = t.kind, .name = t.name}}, hpas);
}

}  // namespace tailor::actuator
