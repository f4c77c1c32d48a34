#include "actuator/hpa.h"

#include <algorithm>

#include "controller/policy/target_ref.h"

namespace tailor::actuator {

HpaConflict hpa_conflict(const policy::EffectivePolicy& policy,
                         const std::vector<HorizontalScaler>& hpas) {
  HpaConflict out;
  if (!policy.target_ref) return out;
  const auto& target = *policy.target_ref;
  std::vector<std::string> names;
  for (const auto& hpa : hpas) {
    const auto& ref = hpa.scale_target_ref;
    if (ref.kind != target.kind || ref.name != target.name ||
        policy::api_group(ref.api_version) != policy::api_group(target.api_version)) {
      continue;
    }
    for (const auto& resource : hpa.resources) {
      if (resource != "cpu" && resource != "memory") continue;
      if (std::find(out.resources.begin(), out.resources.end(), resource) == out.resources.end()) {
        out.resources.push_back(resource);
      }
      if (std::find(names.begin(), names.end(), hpa.name) == names.end()) names.push_back(hpa.name);
    }
  }
  if (out.resources.empty()) return out;
  std::sort(out.resources.begin(), out.resources.end());
  std::string list;
  for (const auto& r : out.resources) list += (list.empty() ? "" : " and ") + r;
  std::string who;
  for (const auto& n : names) who += (who.empty() ? "" : ", ") + n;
  out.message = "HorizontalPodAutoscaler " + who + " scales " + target.kind + " " + target.name +
                " on " + list + "; Tailor leaves " + list + " alone";
  return out;
}

}  // namespace tailor::actuator
