// Issue 17: cluster DNS on `tailor cluster up`, with the real kubectl and busybox pods on real
// containerd. A pod with the default dnsPolicy (ClusterFirst) gets the kubelet's resolv.conf
// (the cluster DNS, the search path <ns>.svc.cluster.local svc.cluster.local cluster.local, the
// host's search domains, ndots:5) and resolves a headless Service to its pod's IP by the full
// name, by <svc>.<ns> and by <svc> (the search path), the pod's own <hostname>.<svc> record, a
// Service with an explicit spec.clusterIP (of the environment's range) to that IP and
// kube-system/kube-dns to its ClusterIP, the range's 10th address, where the DNS answers;
// a missing name of the zone and a name outside it fail as "bad address". dnsPolicy None takes
// dnsConfig alone; an invalid dnsConfig is refused with kube-apiserver's message.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/e2e/e2e_cluster.h"

namespace tailor::e2e {
namespace {

using std::chrono::seconds;

constexpr seconds kStart{90};

// An address of the environment's service range (its /24, that of default/kubernetes at its first
// address): `host` is the last octet. Explicit addresses are taken from the lower band (up to .16)
// a range keeps for addresses asked for by name, so no Service given a free address holds them.
std::string service_ip(int host) {
  const std::string kubernetes =
      E2eCluster::get()
          .kubectl("get service kubernetes -n default -o 'jsonpath={.spec.clusterIP}'")
          .out;
  EXPECT_EQ(kubernetes.substr(kubernetes.rfind('.')), ".1") << kubernetes;
  return kubernetes.substr(0, kubernetes.rfind('.') + 1) + std::to_string(host);
}

std::string backend_and_services(const std::string& fixed_ip) {
  return std::string(R"(apiVersion: v1
kind: Pod
metadata:
  name: db-0
  labels: {app: db}
spec:
  hostname: db-0
  subdomain: db
  containers:
  - name: db
    image: docker.io/library/busybox:latest
    command: ["sleep", "3600"]
    resources: {requests: {cpu: 10m, memory: 16Mi}}
---
apiVersion: v1
kind: Service
metadata: {name: db}
spec:
  clusterIP: None
  selector: {app: db}
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: fixed}
spec:
  clusterIP: )") +
         fixed_ip + R"(
  selector: {app: db}
  ports: [{port: 80}]
)";
}

// A busybox pod "lookup" that runs `script` (lines of shell) once: it waits until `ready_name`
// resolves (the DNS follows the API within moments), then runs the rest. Names are looked up
// with busybox ping's first line, "PING name (IP)" or "ping: bad address 'name'" (its resolver
// is libc's: search path and ndots as any program's).
std::string lookup_pod(const std::string& ready_name, const std::string& script) {
  return R"(apiVersion: v1
kind: Pod
metadata: {name: lookup}
spec:
  restartPolicy: Never
  containers:
  - name: lookup
    image: docker.io/library/busybox:latest
    resources: {requests: {cpu: 10m, memory: 16Mi}}
    command:
    - sh
    - -c
    - |
      for i in $(seq 60); do ping -c1 -W1 )" +
         ready_name + R"( 2>&1 | grep -q PING && break; sleep 1; done
)" + script;
}

// The lookups of the first test, after the pod's resolv.conf; and a pod of dnsPolicy None.
std::string lookup_pods(const std::string& ns) {
  const std::string names = "db db." + ns + " db." + ns +
                            ".svc.cluster.local db-0.db fixed fixed." + ns +
                            " kube-dns.kube-system nope." + ns + ".svc.cluster.local nope.invalid";
  return lookup_pod("db-0.db", "      cat /etc/resolv.conf\n      echo ===\n      for n in " +
                                   names + "; do ping -c1 -W1 $n 2>&1 | head -1; done\n") +
         R"(---
apiVersion: v1
kind: Pod
metadata: {name: custom}
spec:
  restartPolicy: Never
  dnsPolicy: None
  dnsConfig:
    nameservers: [192.0.2.10]
    searches: [corp.example]
    options: [{name: ndots, value: "2"}, {name: edns0}]
  containers:
  - name: custom
    image: docker.io/library/busybox:latest
    resources: {requests: {cpu: 10m, memory: 16Mi}}
    command: ["cat", "/etc/resolv.conf"]
)";
}

// The search domains of the host's resolv.conf (its last search line), which ClusterFirst pods
// get after the cluster's.
std::string host_searches() {
  std::ifstream in("/etc/resolv.conf");
  std::string out;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string word;
    if (!(words >> word) || word != "search") continue;
    out.clear();
    while (words >> word) {
      if (word == ".") continue;
      if (word.back() == '.') word.pop_back();
      out += " " + word;
    }
  }
  return out;
}

std::string logs_when_done(const TestNamespace& ns, const std::string& pod) {
  std::string logs;
  EXPECT_TRUE(wait_until(pod + " finished", kStart, [&](std::string& seen) {
    const CommandResult phase = ns.kubectl("get pod " + pod + " -o 'jsonpath={.status.phase}'");
    seen = phase.out + phase.err;
    if (phase.out != "Succeeded" && phase.out != "Failed") return false;
    const CommandResult r = ns.kubectl("logs " + pod);
    logs = r.out;
    seen += " " + r.err;
    return r.exit_code == 0;
  }));
  return logs;
}

TEST(ClusterDns, PodsResolveServicesThroughTheClusterDns) {
  TestNamespace ns("e2e-cluster-dns");
  const std::string fixed_ip = service_ip(13);
  ASSERT_TRUE(ns.apply(backend_and_services(fixed_ip)));
  const std::optional<PodView> db = wait_for_ready_pod(ns, "db-0 running", "db-0", kStart);
  ASSERT_TRUE(db);
  const std::string db_ip = ns.kubectl("get pod db-0 -o 'jsonpath={.status.podIP}'").out;
  ASSERT_EQ(db_ip.rfind("10.200.", 0), 0u) << db_ip;
  const CommandResult fixed = ns.kubectl("get service fixed -o 'jsonpath={.spec.clusterIP}'");
  ASSERT_EQ(fixed.out, fixed_ip) << "tailor-cluster keeps an explicit clusterIP";
  const std::string dns_ip =
      E2eCluster::get()
          .kubectl("get service kube-dns -n kube-system -o 'jsonpath={.spec.clusterIP}'")
          .out;
  ASSERT_EQ(dns_ip, service_ip(10)) << "kube-dns: the range's 10th address, as kubeadm's";

  ASSERT_TRUE(ns.apply(lookup_pods(ns.name())));
  const std::string logs = logs_when_done(ns, "lookup");
  const std::string n = ns.name();
  EXPECT_EQ(logs.substr(0, logs.find("===")),
            "search " + n + ".svc.cluster.local svc.cluster.local cluster.local" + host_searches() +
                "\nnameserver " + dns_ip + "\noptions ndots:5\n")
      << "the kubelet's ClusterFirst resolv.conf";
  const std::string looked_up = logs.substr(logs.find("===") + 4);
  EXPECT_EQ(looked_up, "PING db (" + db_ip + "): 56 data bytes\n" + "PING db." + n + " (" + db_ip +
                           "): 56 data bytes\n" + "PING db." + n + ".svc.cluster.local (" + db_ip +
                           "): 56 data bytes\n" + "PING db-0.db (" + db_ip + "): 56 data bytes\n" +
                           "PING fixed (" + fixed_ip + "): 56 data bytes\n" + "PING fixed." + n +
                           " (" + fixed_ip + "): 56 data bytes\n" + "PING kube-dns.kube-system (" +
                           dns_ip + "): 56 data bytes\n" + "ping: bad address 'nope." + n +
                           ".svc.cluster.local'\n" + "ping: bad address 'nope.invalid'\n");
  EXPECT_EQ(logs_when_done(ns, "custom"),
            "search corp.example\nnameserver 192.0.2.10\noptions ndots:2 edns0\n")
      << "dnsPolicy None: dnsConfig alone";
}

// The pid in a pid file; 0 when unreadable.
pid_t pid_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  pid_t pid = 0;
  in >> pid;
  return pid;
}

// SIGKILL of `tailor cluster-dns` (its dnsmasq left behind, as a crash leaves it): the
// supervisor starts it again, the new one stops the old dnsmasq, binds the same address and
// serves what the API holds, a Service created after the crash included.
TEST(ClusterDns, TheDnsServesAgainAfterItsProcessIsKilled) {
  TestNamespace ns("e2e-cluster-dns-restart");
  const std::filesystem::path dir = E2eCluster::get().dir();
  const pid_t feeder = pid_in(dir / "dns.pid");
  const pid_t dnsmasq = pid_in(dir / "dns" / "dnsmasq.pid");
  ASSERT_GT(feeder, 0);
  ASSERT_GT(dnsmasq, 0);
  const std::string late_ip = service_ip(14);
  ASSERT_EQ(::kill(feeder, SIGKILL), 0);
  ASSERT_TRUE(
      wait_until("a new tailor cluster-dns and dnsmasq", seconds(60), [&](std::string& seen) {
        const pid_t now = pid_in(dir / "dns" / "dnsmasq.pid");
        seen = "dnsmasq pid " + std::to_string(now);
        return now != dnsmasq && now > 0 && ::kill(now, 0) == 0;
      }));
  std::ifstream stat("/proc/" + std::to_string(dnsmasq) + "/stat");
  std::string state;
  std::getline(stat, state);
  EXPECT_TRUE(state.empty() || state.find(") Z ") != std::string::npos)
      << "the old dnsmasq was stopped: " << state;
  ASSERT_TRUE(ns.apply(R"(apiVersion: v1
kind: Service
metadata: {name: late}
spec:
  clusterIP: )" + late_ip +
                       R"(
  ports: [{port: 80}]
---
)" + lookup_pod("late", "      ping -c1 -W1 late 2>&1 | head -1\n")));
  EXPECT_EQ(logs_when_done(ns, "lookup"), "PING late (" + late_ip + "): 56 data bytes\n");
}

TEST(ClusterDns, AnInvalidDnsConfigIsRefusedWithKubeApiserversMessage) {
  TestNamespace ns("e2e-cluster-dns-invalid");
  const std::string file = (E2eCluster::get().dir() / "dns-invalid-pod.yaml").string();
  std::ofstream(file) << R"(apiVersion: v1
kind: Pod
metadata: {name: bad-dns}
spec:
  dnsPolicy: None
  dnsConfig:
    nameservers: [not-an-ip]
    options: [{value: "1"}]
  containers:
  - {name: app, image: docker.io/library/busybox:latest}
)";
  const CommandResult r = ns.kubectl("apply -f " + file);
  EXPECT_NE(r.exit_code, 0);
  // kubectl lists the API's causes one a line.
  EXPECT_NE(r.err.find("The Pod \"bad-dns\" is invalid: \n"
                       "* spec.dnsConfig.nameservers[0]: Invalid value: \"not-an-ip\": must be a "
                       "valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)\n"
                       "* spec.dnsConfig.options[0]: Required value: Option.Name must not be "
                       "empty\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(ns.kubectl("get pod bad-dns").exit_code, 1) << "nothing was stored";
}

}  // namespace
}  // namespace tailor::e2e
