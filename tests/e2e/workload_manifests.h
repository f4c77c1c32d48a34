// The manifests of the e2e tests' workloads, from one description: a Deployment or a bare Pod of
// busybox containers (imagePullPolicy IfNotPresent: the image `tailor cluster up` imported),
// pinned to a node or kept off a labelled one, for TestNamespace::apply. What differs between
// tests (name, replicas, commands, requests and limits, placement, labels) is a field; the rest is
// what every test wrote the same way. Strings are written double-quoted, so a command may hold
// any character.
#pragma once

#include <map>
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

}  // namespace tailor::e2e
