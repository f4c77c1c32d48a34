// Usage sampling in the running agent (both actuation modes): the sampler reads the cgroups of
// the node's running containers every --usage-sample-interval, exposes them as metrics, and
// hands one window per container every --usage-report-interval to the stream to the controller
// (when --usage-endpoint is set). A controller that is away costs those windows, never the agent.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "kube/model/pod.h"
#include "kube/observe/endpoint.h"
#include "node-agent/main/agent_options.h"

namespace tailor::node {

class UsageReporting {
 public:
  // `pods` lists the node's pods as the agent's informer sees them; called from the sampler's
  // thread, so it must be safe to call concurrently with the informer.
  using ListPods = std::function<std::vector<std::shared_ptr<const kube::Pod>>()>;

  UsageReporting(const AgentOptions& options, ListPods pods);
  ~UsageReporting();  // stops sampling and closes the stream

  void start();
  // Serves the kubelet's /metrics/resource from the sampler's last reads (embedded nodes: no
  // kubelet serves it), until this object is destroyed; `routes` must outlive it.
  void serve_resource_metrics(kube::observe::Routes& routes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::node
