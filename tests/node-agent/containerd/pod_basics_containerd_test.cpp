// What a kubelet gives a pod, on a real containerd (issue 17, point 4): the ServiceAccount
// admission plugin's kube-api-access volume filled by the node — a token the real kubectl
// authenticates as the pod's ServiceAccount, the cluster CA, the namespace — readable by a
// non-root container; KUBERNETES_SERVICE_HOST/PORT naming the API server; fieldRef env and $(VAR)
// in args; and httpGet probes acted on (readiness gates Ready, liveness restarts).
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "tests/node-agent/containerd/embedded_node.h"

namespace tailor::node::testing {
namespace {
namespace bj = boost::json;

constexpr const char* kKubectl = "/usr/bin/kubectl";

bool ready(const bj::value& pod) {
  if (!pod.is_object()) return false;
  const auto* conditions = pod.at("status").as_object().if_contains("conditions");
  if (!conditions) return false;
  for (const auto& c : conditions->as_array()) {
    if (c.at("type") == "Ready") return c.at("status") == "True";
  }
  return false;
}

// The stdout lines of attempt 0 of the pod's container "app" (CRI log format:
// "<time> stdout F <line>").
std::vector<std::string> log_lines(const std::filesystem::path& log_root, const bj::value& pod) {
  const std::string dir =
      "default_" + field(pod, {"metadata", "name"}) + "_" + field(pod, {"metadata", "uid"});
  std::ifstream in(log_root / dir / "app" / "0.log");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    const auto at = line.find(" stdout F ");
    if (at != std::string::npos) out.push_back(line.substr(at + 10));
  }
  return out;
}

std::string run(const std::string& command) {
  FILE* pipe = ::popen(command.c_str(), "r");
  std::string out;
  char buffer[4096];
  for (std::size_t n; pipe && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
    out.append(buffer, n);
  }
  if (pipe) ::pclose(pipe);
  return out;
}

using PodBasicsOnContainerd = EmbeddedNode;

TEST_F(PodBasicsOnContainerd, ServiceAccountTokenEnvironmentAndFieldRefsAsAKubeletGivesThem) {
  ASSERT_EQ(::access(kKubectl, X_OK), 0) << kKubectl << " is missing";
  client_->create({{.version = "v1", .resource = "serviceaccounts"}, "default"},
                  R"({"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"bot"}})");
  create_pod("reader", R"x([{"name":"app","image":"busybox",
      "securityContext":{"runAsUser":65532,"runAsGroup":65532},
      "command":["sh","-c","d=/var/run/secrets/kubernetes.io/serviceaccount; id -u; cat $d/token; echo; cat $d/namespace; echo; echo $KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT; echo \"$@\"; cat $d/ca.crt; sleep 3600","sh"],
      "args":["--identity=$(POD_NAME)","$(NOT_DEFINED)"],
      "env":[{"name":"POD_NAME","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}]}])x",
             "Always", R"("serviceAccountName":"bot",)");
  const bj::value pod = wait_for_pod("reader", ready);
  // The admission plugin's volume, mounted read-only.
  const auto& spec = pod.at("spec");
  EXPECT_TRUE(field(spec, {"volumes"}).find("kube-api-access-") != std::string::npos);
  std::vector<std::string> lines;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  auto whole = [](const std::vector<std::string>& l) {
    return l.size() >= 6 && l.back() == "-----END CERTIFICATE-----";
  };
  while (!whole(lines = log_lines(state_ / "logs", pod)) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(whole(lines)) << lines.size() << " lines";
  EXPECT_EQ(lines[0], "65532") << "the files are readable by the non-root user";
  const std::string token = lines[1];
  EXPECT_EQ(lines[2], "default");
  EXPECT_EQ(lines[3], "127.0.0.1:" + std::to_string(cluster_->port()));
  EXPECT_EQ(lines[4], "--identity=reader $(NOT_DEFINED)");
  std::string ca;
  for (std::size_t i = 5; i < lines.size(); ++i) ca += lines[i] + "\n";
  EXPECT_EQ(ca, cluster_->ca_pem());

  // The real kubectl, with nothing but what the pod got, is the pod's ServiceAccount.
  const std::filesystem::path ca_file = state_ / "pod-ca.crt";
  std::ofstream(ca_file) << ca;
  const std::string as_pod =
      std::string(kKubectl) + " --server=https://127.0.0.1:" + std::to_string(cluster_->port()) +
      " --certificate-authority=" + ca_file.string() + " --token=" + token + " ";
  EXPECT_EQ(run(as_pod + "auth whoami -o jsonpath='{.status.userInfo.username}' 2>&1"),
            "system:serviceaccount:default:bot");
  EXPECT_EQ(
      run(as_pod +
          "auth whoami -o "
          "jsonpath='{.status.userInfo.extra.authentication\\.kubernetes\\.io/pod-name[0]}' 2>&1"),
      "reader")
      << "the token is bound to the pod";
  EXPECT_EQ(run(as_pod + "auth can-i list secrets 2>&1"), "no\n");

  delete_pod("reader");
  EXPECT_FALSE(std::filesystem::exists(state_ / "pods" / field(pod, {"metadata", "uid"})))
      << "the pod's volumes go with it";
}

TEST_F(PodBasicsOnContainerd, HttpGetProbesGateReadinessAndRestartTheUnhealthy) {
  // The pod has a network of its own: any port, whatever else runs on the machine.
  const std::string p = "80";
  create_pod("served", R"([{"name":"app","image":"busybox",
      "command":["sh","-c","sleep 2; mkdir -p /tmp/www; echo ok > /tmp/www/index.html; httpd -f -p )" +
                           p + R"( -h /tmp/www"],
      "ports":[{"name":"http","containerPort":)" +
                           p + R"(}],
      "readinessProbe":{"httpGet":{"path":"/index.html","port":"http"},"periodSeconds":1},
      "livenessProbe":{"httpGet":{"path":"/missing","port":"http"},"initialDelaySeconds":6,
                       "periodSeconds":1,"failureThreshold":2}}])");
  // Running but not ready while httpd is not up yet.
  const bj::value starting = wait_for_pod("served", [](const bj::value& pod) {
    const auto* s = first_container_status(pod);
    return s && field(*s, {"started"}) == "true";
  });
  EXPECT_EQ(field(*first_container_status(starting), {"ready"}), "false");
  wait_for_pod("served", ready);
  // /missing answers 404: after the delay and two failures the container is restarted.
  const bj::value restarted = wait_for_pod("served", container_restarted);
  EXPECT_NE(field(*first_container_status(restarted), {"lastState", "terminated"}), "");
  delete_pod("served");
}

}  // namespace
}  // namespace tailor::node::testing
