// tailor_controller_* metrics: what the controller did to pods (resizes by outcome,
// recreations), how its passes go, its policies by condition and its models' size.
#pragma once

#include <chrono>
#include <memory>
#include <string_view>

namespace tailor::kube::metrics {
class Registry;
}

namespace tailor::controller {

class ControllerMetrics {
 public:
  explicit ControllerMetrics(kube::metrics::Registry& registry);
  ~ControllerMetrics();

  // outcome: "requested" (accepted by the API), "refused" (422/403), "forbidden" (the role lacks
  // the permission: 403 from the authorizer), "quota", "unsupported",
  // "failed" (retried later).
  void resize(std::string_view outcome);
  // result: "evicted", "blocked" (PodDisruptionBudget), "failed".
  void recreation(std::string_view result);
  void pass(std::chrono::nanoseconds duration, std::size_t actions);
  void usage_window(bool matched);
  // Start-up boosts at admission: "boosted", or "skipped" (no node could hold the boost).
  void startup_boost(std::string_view outcome);
  // Boosts taken back in place: "reverted" (resize accepted), "failed" (retried next pass).
  void startup_boost_revert(std::string_view result);
  // A window of a container under its boost, kept out of the models.
  void boosted_window();
  // Pods still carrying a start-up boost after this pass's reverts, counted anew each pass.
  void set_boosted_pods(double count);
  // Policies whose condition of this type is True, counted anew each pass.
  void set_policies(std::string_view condition, double count);
  void set_models(double containers, double bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The process-wide instance, on kube::metrics::registry().
ControllerMetrics& controller_metrics();

}  // namespace tailor::controller
