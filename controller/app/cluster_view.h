// What tailor-controller watches, kept by informers: pods, policies (VerticalScalingPolicy and,
// when served, VerticalPodAutoscaler), the workload controllers pods belong to (metadata only,
// for owner chains), nodes (the largest allocatable) and LimitRanges.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "actuator/caps.h"
#include "controller/app/reconcile.h"
#include "kube/client/rest_client.h"
#include "policy/target_ref.h"

namespace tailor::controller {

namespace resources {
extern const kube::ResourceType kConfigMaps;
}

struct ClusterViewOptions {
  // Off unless asked for (--watch-vpa, the chart's controller.watchVPA): acting on VPA objects
  // takes them over from VPA's own components, which would act on them too.
  bool watch_vpa = false;
  std::vector<std::string> vpa_recommender_names{"tailor"};
  bool upstream_vpa_running = false;
  bool watch_hpa = true;  // optional too: a cluster without autoscaling/v2 still works
};

class ClusterView {
 public:
  ClusterView(kube::RestClient& client, ClusterViewOptions options);
  ~ClusterView();
  ClusterView(const ClusterView&) = delete;
  ClusterView& operator=(const ClusterView&) = delete;

  void start();
  bool wait_for_sync(std::chrono::milliseconds timeout) const;
  void stop();

  // A consistent-enough copy for one pass (each informer's store is read once).
  PassInputs snapshot(kube::TimePoint now) const;
  // The policies and pods alone (what the per-workload series read at scrape time, without the
  // owners, HPAs and LimitRanges a pass needs).
  std::vector<PolicyObject> policies() const;
  std::vector<std::shared_ptr<const actuator::PodFacts>> pods() const;
  // The pod's policy (valid, ours), for the webhook: by owner chain or selector.
  std::optional<PolicyObject> policy_for(const kube::Pod& pod) const;
  // The namespace's LimitRange items merged as VPA does; nullopt when none.
  std::optional<actuator::LimitRangeItem> limit_range(const std::string& ns) const;
  std::shared_ptr<const actuator::PodFacts> pod(const std::string& ns,
                                                const std::string& name) const;
  // Per resource, the most any node has allocatable (for the webhook: a pod no node can hold
  // is never proposed).
  kube::ResourceList largest_allocatable() const;
  // What HPAs scaling a workload of the pod's controller chain scale on (for the webhook).
  std::vector<std::string> hpa_resources(const kube::Pod& pod) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller
