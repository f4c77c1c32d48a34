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
      // No NetworkPolicy: tailor-cluster does not serve networking.k8s.io, and the bridge
      // plugin enforces none.
      {"usage",
       bj::object{{"agentIdentity", bj::object{{"clientCAConfigMap", kUsageClientCaConfigMap}}},
                  {"networkPolicy", bj::object{{"enabled", false}}}}}};
  return bj::serialize(values) + "\n";
}

}  // namespace tailor::cli
