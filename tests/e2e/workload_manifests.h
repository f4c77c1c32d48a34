// The manifests of the e2e tests' workloads and policies, from one description each: a Deployment
// or a bare Pod of busybox containers (imagePullPolicy IfNotPresent: the image `tailor cluster up`
// imported), pinned to a node or kept off a labelled one, for TestNamespace::apply. What differs
// between tests (name, replicas, commands, requests and limits, placement, labels) is a field; the
// rest is what every test wrote the same way. A VerticalScalingPolicy or VerticalPodAutoscaler
// likewise. Strings are written double-quoted, so a command may hold any character.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {

struct ContainerSpec {
  std::string name = "app";
  std::vector<std::string> command = {"sleep", "3600"};
  Resources requests{};  // none when empty
  Resources limits{};    // none when empty
  // securityContext fields, their values written as they are (numbers, booleans): none when empty.
  std::map<std::string, std::string> security_context{};
  // Resources whose resize restarts the container (resizePolicy RestartContainer); the others'
  // are NotRequired, the default.
  std::vector<std::string> restart_on_resize{};
};

// A shell command: {"sh", "-c", script}.
std::vector<std::string> shell(const std::string& script);

struct WorkloadSpec {
  std::string name;
  int replicas = 1;  // a Deployment's
  // The pod's labels; a Deployment's selector and template labels are {app: NAME} when empty.
  std::map<std::string, std::string> labels{};
  int termination_grace_seconds = 0;  // no wait for busybox's shell, which ignores SIGTERM
  std::string node = kBigNode;        // nodeSelector kubernetes.io/hostname; "" : none
  // Required node affinity "this label DoesNotExist": kept off the node carrying it until
  // scheduled (the label is removed then); "" : none.
  std::string avoid_label{};
  std::map<std::string, std::string> security_context{};  // the pod's, as a container's
  std::vector<ContainerSpec> containers = {ContainerSpec{}};
};

// A pod requesting 700Mi of kSmallNode's 1Gi, so that a pod beside it cannot grow to 384Mi
// there: its resize is Deferred.
WorkloadSpec small_node_filler();

std::string deployment_manifest(const WorkloadSpec& spec);
std::string pod_manifest(const WorkloadSpec& spec);

// A container policy (spec.resourcePolicy.containerPolicies[]): only the fields set are written.
struct ContainerPolicySpec {
  std::string name = "*";
  Resources min_allowed{};
  Resources max_allowed{};
  std::string controlled_values{};  // "RequestsOnly", "RequestsAndLimits"
};

// minAllowed = maxAllowed: the recommendation is `resources` once the first usage window arrives.
ContainerPolicySpec pinned(const Resources& resources);

// spec.startupBoost.cpu: a factor of the request, or a quantity when one is set.
struct CpuBoostSpec {
  int factor = 0;            // none when 0
  std::string quantity{};    // type Quantity when set, else Factor
  int duration_seconds = 0;  // none when 0
};

// A VerticalScalingPolicy, or a VerticalPodAutoscaler from the same fields (vpa_manifest).
struct PolicySpec {
  std::string name;
  std::string deployment{};                       // targetRef to this Deployment; none when empty
  std::map<std::string, std::string> selector{};  // selector.matchLabels; none when empty
  std::string mode = "Off";                       // updatePolicy.mode (a VPA's updateMode)
  int min_replicas = 0;                           // none when 0
  std::string deferred_timeout{};                 // "45s"; none when empty
  std::vector<ContainerPolicySpec> containers{};
  std::optional<CpuBoostSpec> startup_boost{};
};

// autoscaling.tailor.dev/v1alpha1 VerticalScalingPolicy.
std::string policy_manifest(const PolicySpec& spec);
// autoscaling.k8s.io/v1 VerticalPodAutoscaler: the same, with updatePolicy.updateMode.
std::string vpa_manifest(const PolicySpec& spec);

}  // namespace tailor::e2e
