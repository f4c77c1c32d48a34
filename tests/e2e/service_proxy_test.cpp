// Issue 17 point 4: what kube-proxy and a kubelet give pods on `tailor cluster up`, on real
// containerd with the real kubectl. A pod on the pod network gets KUBERNETES_SERVICE_HOST/PORT =
// default/kubernetes' ClusterIP:443 and, with its projected kube-api-access volume, the build's own
// `tailor` (run from the host's build through hostPath volumes, the host's loader and libraries)
// reads the API in-cluster (kube/client's in-cluster config: the token, ca.crt, the ClusterIP)
// through the service proxy's NAT to tailor-cluster's address on node 1's gateway.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};

// The directory of the host's dynamic loader, where Debian keeps the libraries `tailor` loads.
std::string host_library_dir() {
  return std::filesystem::canonical("/lib64/ld-linux-x86-64.so.2").parent_path().string();
}

TEST(ServiceProxy, APodReadsTheApiInClusterThroughTheKubernetesClusterIp) {
  TestNamespace ns("e2e-in-cluster");
  const std::string cluster_ip =
      E2eCluster::get()
          .kubectl("get service kubernetes -n default -o 'jsonpath={.spec.clusterIP}'")
          .out;
  ASSERT_FALSE(cluster_ip.empty());
  // The pod's ServiceAccount may do anything in its namespace (tailor report lists policies,
  // pods and checkpoints there), nothing else.
  ASSERT_TRUE(ns.apply(R"(apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: everything}
rules: [{apiGroups: ["*"], resources: ["*"], verbs: ["*"]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: everything}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: everything}
subjects: [{kind: ServiceAccount, name: default, namespace: )" +
                       ns.name() + R"(}]
---
apiVersion: v1
kind: Pod
metadata: {name: reader}
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/hostname: )" +
                       kBigNode + R"(}
  containers:
  - name: tailor
    image: docker.io/library/busybox:latest
    command: ["sh", "-c", "echo service=$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT; exec /host/lib/ld-linux-x86-64.so.2 --library-path /host/lib /host/bin/tailor report -n )" +
                       ns.name() + R"( -o json"]
    resources: {requests: {cpu: 10m, memory: 32Mi}}
    volumeMounts:
    - {name: bin, mountPath: /host/bin, readOnly: true}
    - {name: lib, mountPath: /host/lib, readOnly: true}
  volumes:
  - name: bin
    hostPath: {path: )" +
                       E2eCluster::get().bin_dir().string() + R"(, type: Directory}
  - name: lib
    hostPath: {path: )" +
                       host_library_dir() + R"(, type: Directory}
)"));
  std::string logs;
  ASSERT_TRUE(wait_until("the reader pod completes", kStart, [&](std::string& seen) {
    const auto pod = ns.pod("reader");
    seen = pod ? pod->summary() : "no pod";
    logs = ns.kubectl("logs reader").out;
    seen += " | " + logs;
    return pod && (pod->phase == "Succeeded" || pod->phase == "Failed");
  }));
  EXPECT_EQ(ns.pod("reader")->phase, "Succeeded") << logs;
  // Not the API server's own address: the Service's, as a kubelet sets it.
  EXPECT_NE(logs.find("service=" + cluster_ip + ":443\n"), std::string::npos) << logs;
  // The report's JSON, read with the pod's token: no policies in a new namespace.
  EXPECT_NE(logs.find("\"rows\":[]"), std::string::npos) << logs;
}

}  // namespace
}  // namespace tailor::e2e
