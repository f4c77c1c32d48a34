// Issue 17 point 4: what kube-proxy and a kubelet give pods on `tailor cluster up`, on real
// containerd with the real kubectl. A pod on the pod network gets KUBERNETES_SERVICE_HOST/PORT =
// default/kubernetes' ClusterIP:443 and, with its projected kube-api-access volume, the build's own
// `tailor` (run from the host's build through hostPath volumes, the host's loader and libraries)
// reads the API in-cluster (kube/client's in-cluster config: the token, ca.crt, the ClusterIP)
// through the service proxy's NAT to tailor-cluster's address on node 1's gateway; so does a
// hostNetwork pod (the OUTPUT chain's NAT). A Deployment
// of two busybox httpd pods behind a Service (a named targetPort): another pod, which finds the
// Service's WEB_SERVICE_HOST/_PORT and WEB_PORT in its environment (enableServiceLinks), reaches
// both by ClusterIP and by DNS name, each web pod reaches its own Service and sometimes itself
// (hairpin), and a pod whose readiness probe fails leaves the Service's endpoints and its traffic;
// with none ready the port is refused.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};

// The directory of the host's dynamic loader, where Debian keeps the libraries `tailor` loads.
std::string host_library_dir() {
  return std::filesystem::canonical("/lib64/ld-linux-x86-64.so.2").parent_path().string();
}

// A pod `name` that prints its service variables, then runs `tailor report` on its namespace with
// the in-cluster config, once.
std::string reader_pod(const std::string& name, const std::string& ns, bool host_network) {
  return R"(apiVersion: v1
kind: Pod
metadata: {name: )" +
         name + R"(}
spec:
  restartPolicy: Never
  hostNetwork: )" +
         (host_network ? "true" : "false") + R"(
  nodeSelector: {kubernetes.io/hostname: )" +
         kBigNode + R"(}
  containers:
  - name: tailor
    image: docker.io/library/busybox:latest
    command: ["sh", "-c", "echo service=$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT; exec /host/lib/ld-linux-x86-64.so.2 --library-path /host/lib /host/bin/tailor report -n )" +
         ns + R"( -o json"]
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
)";
}

// On the pod network (PREROUTING's NAT) and on the node's (hostNetwork: OUTPUT's, as kube-proxy).
TEST(ServiceProxy, PodsReadTheApiInClusterThroughTheKubernetesClusterIp) {
  TestNamespace ns("e2e-in-cluster");
  const std::string cluster_ip =
      E2eCluster::get()
          .kubectl("get service kubernetes -n default -o 'jsonpath={.spec.clusterIP}'")
          .out;
  ASSERT_FALSE(cluster_ip.empty());
  // The pods' ServiceAccount may do anything in their namespace (tailor report lists policies,
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
)" + reader_pod("reader", ns.name(), false) +
                       "---\n" + reader_pod("host-reader", ns.name(), true)));
  for (const std::string name : {"reader", "host-reader"}) {
    std::string logs;
    ASSERT_TRUE(wait_until(name + " completes", kStart, [&](std::string& seen) {
      const auto pod = ns.pod(name);
      seen = pod ? pod->summary() : "no pod";
      logs = ns.kubectl("logs " + name).out;
      seen += " | " + logs;
      return pod && (pod->phase == "Succeeded" || pod->phase == "Failed");
    }));
    EXPECT_EQ(ns.pod(name)->phase, "Succeeded") << name << ": " << logs;
    // Not the API server's own address: the Service's, as a kubelet sets it.
    EXPECT_NE(logs.find("service=" + cluster_ip + ":443\n"), std::string::npos) << logs;
    // The report's JSON, read with the pod's token: no policies in a new namespace.
    EXPECT_NE(logs.find("\"rows\":[]"), std::string::npos) << name << ": " << logs;
  }
}

// The web pods answer their own name on port "web" (8080) and are Ready while /ctl/<name> (a
// directory of the test's, through hostPath) does not exist; each also asks its own Service for a
// name every 300 ms ("self NAME").
std::string web_manifest(const std::string& ctl_dir) {
  return R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      nodeSelector: {kubernetes.io/hostname: )" +
         std::string(kBigNode) + R"(}
      containers:
      - name: web
        image: docker.io/library/busybox:latest
        command: ["sh", "-c", "get() { printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 $1 80 2>&1 | tail -1; }; mkdir -p /www && hostname > /www/index.html; (while true; do echo \"self $(get web)\"; sleep 0.3; done) & exec httpd -f -p 8080 -h /www"]
        ports: [{name: web, containerPort: 8080}]
        readinessProbe:
          exec: {command: ["sh", "-c", "test ! -e /ctl/`hostname`"]}
          periodSeconds: 1
        resources: {requests: {cpu: 10m, memory: 16Mi}}
        volumeMounts: [{name: ctl, mountPath: /ctl, readOnly: true}]
      volumes:
      - name: ctl
        hostPath: {path: )" +
         ctl_dir + R"(, type: Directory}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: 80, targetPort: web}]
)";
}

// A pod asking the Service for a page by its ClusterIP and by its name, in turns, forever:
// lines "ip ANSWER" and "dns ANSWER" (nc's error when there is none; Debian's busybox-static wget
// crashes).
std::string client_manifest(const std::string& cluster_ip, const std::string& ns) {
  return R"(apiVersion: v1
kind: Pod
metadata: {name: client}
spec:
  nodeSelector: {kubernetes.io/hostname: )" +
         std::string(kBigNode) + R"(}
  containers:
  - name: client
    image: docker.io/library/busybox:latest
    command: ["sh", "-c", "get() { printf 'GET / HTTP/1.0\\r\\n\\r\\n' | nc -w 2 $1 80 2>&1 | tail -1; }; echo \"env $WEB_SERVICE_HOST:$WEB_SERVICE_PORT $WEB_PORT\"; while true; do echo \"ip $(get )" +
         cluster_ip + R"()\"; echo \"dns $(get web.)" + ns +
         R"(.svc.cluster.local)\"; sleep 0.2; done"]
    resources: {requests: {cpu: 10m, memory: 16Mi}}
)";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool has_line(const std::string& text, const std::string& line) {
  for (const std::string& l : lines_of(text)) {
    if (l == line) return true;
  }
  return false;
}

TEST(ServiceProxy, ADeploymentsServiceByClusterIpAndNameAndAnUnreadyPodLeavesIt) {
  TestNamespace ns("e2e-service-proxy");
  const std::filesystem::path ctl = E2eCluster::get().dir() / "service-proxy-ctl";
  std::filesystem::create_directories(ctl);
  ASSERT_TRUE(ns.apply(web_manifest(ctl.string())));
  const auto web = wait_for_ready_pods(ns, "both web pods Ready", "app=web", 2, kStart);
  ASSERT_EQ(web.size(), 2u);
  const std::string a = web[0].name, b = web[1].name;
  const std::string cluster_ip = ns.kubectl("get service web -o 'jsonpath={.spec.clusterIP}'").out;
  ASSERT_FALSE(cluster_ip.empty());
  ASSERT_TRUE(ns.apply(client_manifest(cluster_ip, ns.name())));

  // Both pods answer, by ClusterIP and by name (the proxy picks one at random each time).
  ASSERT_TRUE(wait_until("the client reaches both pods both ways", kStart, [&](std::string& seen) {
    const std::string logs = ns.kubectl("logs client --tail=400").out;
    seen = logs.substr(logs.size() > 600 ? logs.size() - 600 : 0);
    return has_line(logs, "ip " + a) && has_line(logs, "ip " + b) && has_line(logs, "dns " + a) &&
           has_line(logs, "dns " + b);
  }));
  // The kubelet's service links: the namespace's Service in the client's environment.
  EXPECT_EQ(lines_of(ns.kubectl("logs client").out).front(),
            "env " + cluster_ip + ":80 tcp://" + cluster_ip + ":80");
  // Hairpin: a web pod reaching its own Service is sometimes answered by itself.
  ASSERT_TRUE(wait_until("pod " + a + " reaches itself through its Service", kStart,
                         [&](std::string& seen) {
                           const std::string logs = ns.kubectl("logs " + a + " --tail=200").out;
                           seen = logs.substr(logs.size() > 300 ? logs.size() - 300 : 0);
                           return has_line(logs, "self " + a) && has_line(logs, "self " + b);
                         }));
  // The named targetPort resolved to the container's port in the slice.
  EXPECT_EQ(ns.kubectl("get endpointslices -l kubernetes.io/service-name=web -o "
                       "'jsonpath={.items[0].ports[0].name} {.items[0].ports[0].port}'")
                .out,
            "http 8080");

  // Pod a's readiness probe fails: it leaves the Service's ready endpoints, then its traffic.
  std::ofstream(ctl / a) << "unready\n";
  ASSERT_TRUE(
      wait_until("pod " + a + " not ready in the EndpointSlice", kStart, [&](std::string& seen) {
        seen = ns.kubectl(
                     "get endpointslices -l kubernetes.io/service-name=web "
                     "-o 'jsonpath={range .items[*].endpoints[*]}"
                     "{.targetRef.name}={.conditions.ready} {end}'")
                   .out;
        return seen.find(a + "=false") != std::string::npos &&
               seen.find(b + "=true") != std::string::npos;
      }));
  EXPECT_NE(
      ns.kubectl(
            "get endpoints web -o 'jsonpath={.subsets[0].notReadyAddresses[*].targetRef.name}'")
          .out.find(a),
      std::string::npos);
  ASSERT_TRUE(wait_until("the client reaches only pod " + b, kStart, [&](std::string& seen) {
    const std::string logs = ns.kubectl("logs client --tail=16").out;
    seen = logs;
    const auto lines = lines_of(logs);
    if (lines.size() < 16) return false;
    for (const std::string& line : lines) {
      if (line != "ip " + b && line != "dns " + b) return false;
    }
    return true;
  }));
  // Neither ready: the port is refused at once (the proxy's REJECT), not left to time out.
  std::ofstream(ctl / b) << "unready\n";
  const std::string refused =
      "ip nc: can't connect to remote host (" + cluster_ip + "): Connection refused";
  ASSERT_TRUE(wait_until("the client is refused", kStart, [&](std::string& seen) {
    seen = ns.kubectl("logs client --tail=4").out;
    return has_line(seen, refused);
  }));
  std::filesystem::remove_all(ctl);
}

}  // namespace
}  // namespace tailor::e2e
