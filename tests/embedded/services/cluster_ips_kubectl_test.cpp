// ClusterIP allocation through the real kubectl: the address in `kubectl get svc`, kept across a
// restart of the server over the same state, and kube-apiserver's three refusals as kubectl
// prints them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class ClusterIpsKubectlTest : public KubectlClusterTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o;
    o.service_cidr = "10.201.3.0/24";
    return o;
  }

  std::string service(const std::string& name, const std::string& cluster_ip) {
    return write(name + ".yaml",
                 "apiVersion: v1\nkind: Service\nmetadata: {name: " + name +
                     "}\nspec:\n  selector: {app: " + name + "}\n  ports: [{port: 80}]\n" +
                     (cluster_ip.empty() ? "" : "  clusterIP: " + cluster_ip + "\n"));
  }
};

TEST_F(ClusterIpsKubectlTest, GetShowsTheAllocatedAddressAndARestartKeepsIt) {
  ASSERT_EQ(kubectl("create -f " + service("web", "")).exit_code, 0);
  ASSERT_EQ(kubectl("create -f " + service("api", "10.201.3.5")).exit_code, 0);
  KubectlResult ip = kubectl("get svc web -o jsonpath={.spec.clusterIP}");
  ASSERT_EQ(ip.exit_code, 0) << ip.err;
  // The upper band of a /24: past the 16 addresses kept for names.
  ASSERT_TRUE(ip.out.starts_with("10.201.3.")) << ip.out;
  EXPECT_GE(std::stoi(ip.out.substr(9)), 17) << ip.out;
  KubectlResult table = kubectl("get svc api");
  EXPECT_TRUE(
      table.out.starts_with("NAME   TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n"
                            "api    ClusterIP   10.201.3.5   <none>        80/TCP    "))
      << table.out;

  // Restart over the same state directory: the addresses are still held.
  ClusterOptions o = cluster_options();
  o.dir = (dir_ / "state").string();
  o.sync = SyncMode::Normal;
  o.port = cluster_->port();
  cluster_.reset();
  cluster_ = std::make_unique<Cluster>(std::move(o));
  cluster_->start();
  KubectlResult taken = kubectl("create -f " + service("again", ip.out));
  EXPECT_NE(taken.exit_code, 0);
  EXPECT_EQ(taken.err,
            "The Service \"again\" is invalid: spec.clusterIPs: Invalid value: "
            "[]string{\"" +
                ip.out + "\"}: failed to allocate IP " + ip.out +
                ": provided IP is already allocated\n");
  // Deleted: free again at once.
  ASSERT_EQ(kubectl("delete svc api").exit_code, 0);
  EXPECT_EQ(kubectl("create -f " + service("api2", "10.201.3.5")).exit_code, 0);
}

TEST_F(ClusterIpsKubectlTest, RefusalsAsKubectlPrintsThem) {
  ASSERT_EQ(kubectl("create -f " + service("web", "10.201.3.7")).exit_code, 0);
  struct Case {
    std::string args, err;
  };
  const std::vector<Case> cases = {
      {"create -f " + service("outside", "10.96.0.10"),
       "The Service \"outside\" is invalid: spec.clusterIPs: Invalid value: "
       "[]string{\"10.96.0.10\"}: failed to allocate IP 10.96.0.10: the provided IP "
       "(10.96.0.10) is not in the valid range. The range of valid IPs is 10.201.3.0/24\n"},
      {"create -f " + service("taken", "10.201.3.7"),
       "The Service \"taken\" is invalid: spec.clusterIPs: Invalid value: "
       "[]string{\"10.201.3.7\"}: failed to allocate IP 10.201.3.7: provided IP is already "
       "allocated\n"},
      {"patch svc web -p '{\"spec\":{\"clusterIP\":\"10.201.3.8\"}}'",
       "The Service \"web\" is invalid: spec.clusterIPs[0]: Invalid value: "
       "[]string{\"10.201.3.8\"}: may not change once set\n"},
  };
  for (const Case& c : cases) {
    KubectlResult r = kubectl(c.args);
    EXPECT_NE(r.exit_code, 0) << c.args;
    EXPECT_EQ(r.err, c.err) << c.args;
  }
  // An apply of the manifest without the address keeps it.
  ASSERT_EQ(kubectl("apply -f " + service("web", "")).exit_code, 0);
  EXPECT_EQ(kubectl("get svc web -o jsonpath={.spec.clusterIP}").out, "10.201.3.7");
}

TEST_F(ClusterIpsKubectlTest, TheKubernetesServiceNamesTheApiServer) {
  const std::string port = std::to_string(cluster_->port());
  // Written by a control loop after start: wait for the last of the three.
  KubectlResult slice;
  for (int i = 0; i < 100; ++i) {
    slice = kubectl(
        "get endpointslices kubernetes -o jsonpath={.endpoints[0].addresses[0]}:"
        "{.ports[0].port}:{.ports[0].name}:{.endpoints[0].conditions.ready}");
    if (slice.exit_code == 0) break;
    ::usleep(100 * 1000);
  }
  EXPECT_EQ(slice.out, "127.0.0.1:" + port + ":https:true") << slice.err;
  KubectlResult table = kubectl("get svc kubernetes");
  EXPECT_TRUE(
      table.out.starts_with("NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE\n"
                            "kubernetes   ClusterIP   10.201.3.1   <none>        443/TCP   "))
      << table.out;
  EXPECT_EQ(kubectl("get svc kubernetes -o jsonpath={.spec.ports[0].targetPort}").out, port);
  EXPECT_EQ(kubectl("get endpoints kubernetes -o jsonpath={.subsets[0].addresses[0].ip}:"
                    "{.subsets[0].ports[0].port}")
                .out,
            "127.0.0.1:" + port);
  EXPECT_TRUE(
      kubectl("get endpoints kubernetes")
          .out.starts_with("NAME         ENDPOINTS         AGE\nkubernetes   127.0.0.1:" + port))
      << kubectl("get endpoints kubernetes").out;
  EXPECT_TRUE(kubectl("get endpointslices kubernetes")
                  .out.starts_with("NAME         ADDRESSTYPE   PORTS   ENDPOINTS   AGE\n"
                                   "kubernetes   IPv4          " +
                                   port + "   127.0.0.1   "))
      << kubectl("get endpointslices kubernetes").out;
  // Taken: no Service can ask for the address.
  KubectlResult taken = kubectl("create -f " + service("imposter", "10.201.3.1"));
  EXPECT_NE(taken.exit_code, 0) << taken.out;
  // Deleted: put back.
  ASSERT_EQ(kubectl("delete svc kubernetes").exit_code, 0);
  KubectlResult back;
  for (int i = 0; i < 200; ++i) {
    back = kubectl("get svc kubernetes -o jsonpath={.spec.clusterIP}");
    if (back.exit_code == 0) break;
    ::usleep(100 * 1000);
  }
  EXPECT_EQ(back.out, "10.201.3.1");
  // The serving certificate names the service address, as a pod dialling it checks.
  std::ofstream(dir_ / "ca.crt") << cluster_->ca_pem();
  const std::string curl = "curl -sS -H 'Authorization: Bearer " + cluster_->token() +
                           "' --cacert " + (dir_ / "ca.crt").string() +
                           " --connect-to 10.201.3.1:443:127.0.0.1:" + port +
                           " -o /dev/null -w '%{http_code}' https://10.201.3.1/version";
  FILE* p = ::popen(curl.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char code[16] = {};
  std::fread(code, 1, sizeof code - 1, p);
  EXPECT_EQ(::pclose(p), 0) << code;
  EXPECT_STREQ(code, "200");
}

}  // namespace
}  // namespace tailor::embedded::testing
