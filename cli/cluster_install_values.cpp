#include "cli/cluster_install_values.h"

#include <boost/json.hpp>

namespace tailor::cli {
namespace bj = boost::json;

std::string install_values(const std::vector<std::string>& controller_args,
                           const std::vector<std::string>& agent_args) {
  bj::array controller_extra(controller_args.begin(), controller_args.end());
  bj::array agent_extra(agent_args.begin(), agent_args.end());
  const bj::object values{
      // One replica: the environment shares a small machine (leader election stays on). No
      // watchVPA: the VPA CRD is not installed here.
      {"controller", bj::object{{"replicas", 1}, {"extraArgs", controller_extra}}},
      // The host-process agents are the nodes' kubelets: the DaemonSet observes, verifies and
      // streams usage, as on a real cluster.
      {"nodeAgent",
       bj::object{
           {"actuation", "kubelet"}, {"cgroupDriver", "cgroupfs"}, {"extraArgs", agent_extra}}},
      // The chart's NetworkPolicy stays: tailor-cluster stores it; the bridge plugin enforces
      // none (as a CNI without NetworkPolicy support).
      {"usage",
       bj::object{{"agentIdentity", bj::object{{"clientCAConfigMap", kUsageClientCaConfigMap}}}}}};
  return bj::serialize(values) + "\n";
}

}  // namespace tailor::cli
