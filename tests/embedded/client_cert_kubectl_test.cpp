// Client-certificate authentication with the real kubectl (issue 3): a kubeconfig whose user
// holds a certificate signed by the cluster's CA is let in; one signed by another CA gets
// kube-apiserver's 401 (its x509 authenticator rejects the chain after the TLS handshake), which
// kubectl prints as "You must be logged in to the server".
#include <regex>

#include "kube/http/base64.h"
#include "kube/http/tls_certs.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class ClientCertKubectlTest : public ApiOnlyKubectlTest {
 protected:
  KubectlResult kubectl_with(const std::string& kubeconfig_name, const std::string& args) {
    return run_kubectl(dir_, (dir_ / kubeconfig_name).string(), args);
  }
};

// The kubeconfig's user fields with another certificate and key.
std::string with_certificate(std::string kubeconfig, const kube::http::CertificateAndKey& client) {
  kubeconfig =
      std::regex_replace(kubeconfig, std::regex("client-certificate-data: \\S+"),
                         "client-certificate-data: " + kube::base64_encode(client.cert_pem));
  return std::regex_replace(kubeconfig, std::regex("client-key-data: \\S+"),
                            "client-key-data: " + kube::base64_encode(client.key_pem));
}

TEST_F(ClientCertKubectlTest, KubeconfigHoldsACertificateAndNoToken) {
  const std::string config = cluster_->client_kubeconfig("jane", {"devs"});
  EXPECT_NE(config.find("- name: jane\n  user:\n    client-certificate-data: "), std::string::npos)
      << config;
  EXPECT_NE(config.find("    client-key-data: "), std::string::npos) << config;
  EXPECT_EQ(config.find("token:"), std::string::npos) << config;
  EXPECT_NE(config.find("    user: jane\n"), std::string::npos) << config;
}

TEST_F(ClientCertKubectlTest, CertificateSignedByTheClusterCaIsLetIn) {
  cluster_->write_client_kubeconfig((dir_ / "cert.yaml").string(), "jane", {"devs"});
  // Authenticated as jane (CN) in devs (O): RBAC grants her nothing until a binding names her
  // group.
  KubectlResult r = kubectl_with("cert.yaml", "get ns");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): namespaces is forbidden: User \"jane\" cannot list "
            "resource \"namespaces\" in API group \"\" at the cluster scope\n");
  ASSERT_EQ(
      kubectl("create clusterrolebinding devs --clusterrole=cluster-admin --group=devs").exit_code,
      0);
  r = kubectl_with("cert.yaml", "get ns");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("NAME              STATUS   AGE\ndefault           Active   "))
      << r.out;
  r = kubectl_with("cert.yaml", "create configmap made-by-jane --from-literal=a=1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "configmap/made-by-jane created\n");
}

TEST_F(ClientCertKubectlTest, CertificateOfAnotherCaIsUnauthorized) {
  kube::http::CertificateAndKey other_ca = kube::http::make_ca("other-ca");
  write("stranger.yaml",
        with_certificate(
            cluster_->client_kubeconfig("mallory", {"system:masters"}),
            kube::http::make_client_certificate(other_ca, "mallory", {"system:masters"})));
  // A typed command fails in discovery first; client-go reports a 401 there with the generic
  // text for the code, like kubectl against kube-apiserver with an expired client certificate.
  KubectlResult r = kubectl_with("stranger.yaml", "get configmaps");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("\"couldn't get current server API group list: the server has asked for "
                       "the client to provide credentials\""),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(
      r.err.ends_with("error: You must be logged in to the server (the server has asked "
                      "for the client to provide credentials)\n"))
      << r.err;
  // A raw request decodes kube-apiserver's Status, whose message is "Unauthorized".
  r = kubectl_with("stranger.yaml", "get --raw /api/v1/namespaces");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "error: You must be logged in to the server (Unauthorized)\n");
}

TEST_F(ClientCertKubectlTest, AnotherCaWithTheClusterTokenIsLetIn) {
  // kube-apiserver's authenticators form a union: a failed certificate does not stop a valid
  // bearer token.
  kube::http::CertificateAndKey other_ca = kube::http::make_ca("other-ca");
  std::string config =
      with_certificate(cluster_->client_kubeconfig("mallory", {}),
                       kube::http::make_client_certificate(other_ca, "mallory", {}));
  config = std::regex_replace(config, std::regex("    client-key-data: (\\S+)\n"),
                              "    client-key-data: $1\n    token: " + cluster_->token() + "\n");
  write("both.yaml", config);
  KubectlResult r = kubectl_with("both.yaml", "get ns default -o name");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "namespace/default\n");
}

TEST_F(ClientCertKubectlTest, CertificateStaysValidAcrossARestartWithTheStateDirectory) {
  // In system:masters, so that RBAC lets her read namespaces without a binding.
  const std::string issued = cluster_->client_kubeconfig("jane", {"system:masters"});
  ClusterOptions options = cluster_options();
  options.dir = (dir_ / "state").string();
  cluster_.reset();  // first: a second server on the same state directory is refused
  cluster_ = std::make_unique<Cluster>(options);
  cluster_->start();
  // Same CA from the state directory; only the (free) port is new.
  write("cert.yaml",
        std::regex_replace(issued, std::regex("server: \\S+"), "server: " + cluster_->url()));
  KubectlResult r = kubectl_with("cert.yaml", "get ns default -o name");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "namespace/default\n");
}

class PlainHttpClusterTest : public ClusterTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o;
    o.tls = false;
    o.control_loops = false;
    return o;
  }
};

TEST_F(PlainHttpClusterTest, ClientCertificatesNeedHttps) {
  EXPECT_THROW(cluster_->client_kubeconfig("jane", {}), std::runtime_error);
}

}  // namespace
}  // namespace tailor::embedded::testing
