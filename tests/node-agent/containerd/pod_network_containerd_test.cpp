// Pods on the real containerd with the node's pod network (bridge + host-local, the CNI plugins
// Debian ships), as under a kubelet: each pod has its own network namespace and IP, so two pods
// listen on one port; the host reaches each at its IP; a deleted pod's IP is released; a
// hostNetwork pod keeps the node's IP; a network plugin that fails leaves the pod waiting with
// the plugin's error, retried until it works.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "kube/http/client.h"
#include "tests/node-agent/containerd/embedded_node.h"

namespace tailor::node::testing {
namespace {
namespace bj = boost::json;
namespace fs = std::filesystem;

// busybox httpd on 8080 serving the pod's name and the IP the downward API gave it, ready by an
// httpGet probe (dialled at the pod's IP).
std::string web_server() {
  return R"([{"name":"web","image":"busybox",
      "env":[{"name":"NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}},
             {"name":"IP","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}}],
      "command":["sh","-c","mkdir -p /tmp/www; echo $NAME $IP > /tmp/www/index.html; hostname >> /tmp/www/index.html; exec httpd -f -p 8080 -h /tmp/www"],
      "ports":[{"name":"http","containerPort":8080}],
      "readinessProbe":{"httpGet":{"path":"/index.html","port":"http"},"periodSeconds":1}}])";
}

bool ready(const bj::value& pod) {
  const auto* s = first_container_status(pod);
  return s && field(*s, {"ready"}) == "true";
}

std::string get(const std::string& ip, int port, const std::string& path) {
  kube::http::Client client(
      {.base_url = "http://" + ip + ":" + std::to_string(port), .max_idle_connections = 0});
  return client.send({.target = path, .timeout = std::chrono::seconds(5)}).body;
}

class PodNetworkOnContainerd : public EmbeddedNode {
 protected:
  // host-local's lease file of an IP.
  fs::path lease(const std::string& ip) const {
    return dir_ / "cni-ipam" / ("tailor-pods-" + std::to_string(network_.slot)) / ip;
  }
  std::string subnet_prefix() const {
    return network_.subnet.substr(0, network_.subnet.rfind('.') + 1);
  }
};

TEST_F(PodNetworkOnContainerd, TwoPodsListenOnOnePortEachAtItsOwnIp) {
  create_pod("one", web_server());
  create_pod("two", web_server());
  const bj::value one = wait_for_pod("one", ready);
  const bj::value two = wait_for_pod("two", ready);
  const std::string ip1 = field(one, {"status", "podIP"});
  const std::string ip2 = field(two, {"status", "podIP"});
  EXPECT_NE(ip1, ip2);
  EXPECT_TRUE(ip1.starts_with(subnet_prefix())) << ip1 << " not in " << network_.subnet;
  EXPECT_TRUE(ip2.starts_with(subnet_prefix())) << ip2 << " not in " << network_.subnet;
  EXPECT_EQ(field(one, {"status", "podIPs"}), R"([{"ip":")" + ip1 + R"("}])");
  EXPECT_EQ(field(one, {"status", "hostIP"}), "127.0.0.1") << "the node's, not the pod's";
  // Reached from the host at each IP; each knows its IP (downward API) and its hostname.
  EXPECT_EQ(get(ip1, 8080, "/index.html"), "one " + ip1 + "\none\n");
  EXPECT_EQ(get(ip2, 8080, "/index.html"), "two " + ip2 + "\ntwo\n");
  EXPECT_TRUE(fs::exists(lease(ip1)));

  delete_pod("one");
  EXPECT_FALSE(fs::exists(lease(ip1))) << "the deleted pod's IP is released";
  EXPECT_TRUE(fs::exists(lease(ip2)));
  delete_pod("two");
  EXPECT_FALSE(fs::exists(lease(ip2)));
}

// tcpSocket readiness connects to the pod's IP; exec liveness runs in the container through
// ExecSync: once /tmp/healthy is gone, the command exits 1 and the container is restarted.
TEST_F(PodNetworkOnContainerd, TcpSocketAndExecProbesRunAsTheKubeletRunsThem) {
  create_pod("probed", R"([{"name":"app","image":"busybox",
      "command":["sh","-c","touch /tmp/healthy; (sleep 4; rm /tmp/healthy) & sleep 1; exec httpd -f -p 8080 -h /tmp"],
      "ports":[{"name":"http","containerPort":8080}],
      "readinessProbe":{"tcpSocket":{"port":"http"},"periodSeconds":1},
      "livenessProbe":{"exec":{"command":["test","-f","/tmp/healthy"]},"periodSeconds":1,
                       "failureThreshold":2}}])");
  wait_for_pod("probed", ready);
  const bj::value restarted = wait_for_pod("probed", container_restarted);
  EXPECT_NE(field(*first_container_status(restarted), {"lastState", "terminated"}), "");
  delete_pod("probed");
}

TEST_F(PodNetworkOnContainerd, AHostNetworkPodHasTheNodesIp) {
  create_pod("host", R"([{"name":"app","image":"busybox","command":["sleep","3600"]}])", "Always",
             R"("hostNetwork":true,)");
  const bj::value pod = wait_for_pod("host", ready);
  EXPECT_EQ(field(pod, {"status", "podIP"}), "127.0.0.1");
  EXPECT_EQ(field(pod, {"status", "hostIP"}), "127.0.0.1");
  delete_pod("host");
}

// containerd reloads its CNI conf dir on change: a conflist naming a plugin that is not
// installed fails every sandbox with the plugin's error, which the pod shows while the agent
// retries at its back-off; once the conflist is right again, the pod runs.
TEST_F(PodNetworkOnContainerd, AMissingCniPluginLeavesThePodWaitingWithItsErrorUntilFixed) {
  const fs::path conflist = dir_ / "cni" / cli::kConflistName;
  std::string good;
  {
    std::ifstream in(conflist);
    good.assign(std::istreambuf_iterator<char>(in), {});
  }
  std::string bad = good;
  bad.replace(bad.find(R"("type":"bridge")"), 15, R"("type":"tailor-no-such-plugin")");
  std::ofstream(conflist) << bad;
  create_pod("unwired", R"([{"name":"app","image":"busybox","command":["sleep","3600"]}])");
  const bj::value waiting = wait_for_pod("unwired", [](const bj::value& p) {
    const auto* s = first_container_status(p);
    return s && field(*s, {"state", "waiting", "message"}).find("tailor-no-such-plugin") !=
                    std::string::npos;
  });
  const auto* status = first_container_status(waiting);
  ASSERT_NE(status, nullptr);
  EXPECT_EQ(field(*status, {"state", "waiting", "reason"}), "ContainerCreating");
  EXPECT_TRUE(
      field(*status, {"state", "waiting", "message"}).starts_with("Failed to create pod sandbox"));
  EXPECT_EQ(field(waiting, {"status", "podIP"}), "") << "no network, no IP";

  std::ofstream(conflist) << good;
  const bj::value running = wait_for_pod("unwired", ready);
  EXPECT_TRUE(field(running, {"status", "podIP"}).starts_with(subnet_prefix()));
  delete_pod("unwired");
}

}  // namespace
}  // namespace tailor::node::testing
