// What tests of tailor-controller on a live tailor-cluster set up the same way: the node the test
// plays, Tailor's CRDs from the chart, a policy and the running status of its pod. Judged
// through the real kubectl; used by the integration tests and the Prometheus history test.
#pragma once

#include <unistd.h>

#include <fstream>
#include <string>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::controller::testing {

using embedded::ClusterOptions;

// One node with room for every recommendation the tests' usage leads to.
inline constexpr const char* kOneNode = R"(nodes:
- name: node-1
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
)";

// What the node would report for web-1 running: Ready, allocated and actual resources.
inline constexpr const char* kWebRunning =
    R"({"status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z",
 "conditions":[{"type":"Ready","status":"True"}],
 "containerStatuses":[{"name":"app","ready":true,"restartCount":0,"image":"busybox",
   "imageID":"","started":true,"state":{"running":{"startedAt":"2026-01-01T00:00:00Z"}},
   "allocatedResources":{"cpu":"100m","memory":"100Mi"},
   "resources":{"requests":{"cpu":"100m","memory":"100Mi"},
                "limits":{"cpu":"200m","memory":"200Mi"}}}]}})";

// A cluster whose nodes (`nodes`, written to `nodes_file`) the test plays: without control
// loops, pod status and the workload controllers' objects are the test's own.
inline ClusterOptions test_played_nodes(const std::string& nodes_file, const std::string& nodes) {
  std::ofstream(nodes_file) << nodes;
  ClusterOptions o;
  o.nodes_file = nodes_file;
  o.control_loops = false;
  return o;
}

// Policy web on the pods labelled app=web in default.
inline std::string policy_yaml(const std::string& mode) {
  return R"(apiVersion: autoscaling.tailor.dev/v1alpha1
kind: VerticalScalingPolicy
metadata: {name: web, namespace: default}
spec:
  selector: {matchLabels: {app: web}}
  updatePolicy: {mode: ")" +
         mode + "\"}\n";  // quoted: YAML reads a bare Off as false, as kubectl does
}

// A kubectl cluster test (`Cluster`) with Tailor's resources on it.
template <class Cluster>
class PolicyClusterTest : public Cluster {
 protected:
  // A CRD from the chart, served before it returns: the controller's informers sync only once
  // it is.
  void install_crd(const std::string& plural = "verticalscalingpolicies") {
    auto applied = this->kubectl(std::string("apply -f ") + TAILOR_SOURCE_DIR +
                                 "/charts/tailor/crds/" + plural + ".yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
    auto established = this->kubectl("wait --for=condition=Established --timeout=10s crd/" +
                                     plural + ".autoscaling.tailor.dev");
    ASSERT_EQ(established.exit_code, 0) << established.err;
  }

  // Both CRDs the controller watches: policies and checkpoints.
  void install_crds() {
    for (const char* crd : {"verticalscalingpolicies", "verticalscalingcheckpoints"}) {
      ASSERT_NO_FATAL_FAILURE(install_crd(crd));
    }
  }

  void apply_policy(const std::string& mode) {
    this->write("vsp.yaml", policy_yaml(mode));
    auto applied = this->kubectl("apply -f vsp.yaml");
    ASSERT_EQ(applied.exit_code, 0) << applied.err;
  }

  // Pod web-1's status as its node would report it.
  void report_running(const std::string& status = kWebRunning) {
    this->write("running.json", status);
    auto patched = this->kubectl(
        "patch pod web-1 --subresource status --type merge --patch-file running.json");
    ASSERT_EQ(patched.exit_code, 0) << patched.err;
  }
};

// A kubectl cluster test (`Base`) that plays kOneNode and the workload controllers itself: it
// writes the objects they would make and reads back the uids their owner references name.
template <class Base>
class OneNodePlayedTest : public Base {
 protected:
  ClusterOptions cluster_options() override { return test_played_nodes(nodes_file(), kOneNode); }

  std::string nodes_file() const {
    return "/tmp/tailor-played-nodes-" + std::to_string(::getpid()) + ".yaml";
  }

  std::string uid_of(const std::string& object) {
    return this->kubectl("get " + object + " -o 'jsonpath={.metadata.uid}'").out;
  }
};

}  // namespace tailor::controller::testing
