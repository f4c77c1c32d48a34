// networking.k8s.io/v1 NetworkPolicies through the real kubectl: discovered under the short name
// `netpol`, applied with Strict field validation, defaulted, printed with kubectl's columns
// (NAME, POD-SELECTOR, AGE), and a malformed one refused with kube-apiserver's words. Stored only:
// nothing here enforces them.
#include <regex>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class NetworkPolicyKubectlTest : public ApiOnlyKubectlTest {
 protected:
  KubectlResult apply(const std::string& name, const std::string& yaml) {
    return kubectl("apply --validate=strict -f " + write(name + ".yaml", yaml));
  }

  static std::string policy(const std::string& name, const std::string& spec) {
    return "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: " + name +
           "\nspec:\n" + spec;
  }

  // kubectl's table with runs of spaces collapsed and the AGE column dropped.
  static std::string columns(const std::string& out) {
    std::string s = std::regex_replace(out, std::regex(" +"), " ");
    return std::regex_replace(s, std::regex(" [0-9]+s\n"), "\n");
  }
};

TEST_F(NetworkPolicyKubectlTest, DiscoveredWithShortName) {
  KubectlResult r = kubectl("api-resources --api-group=networking.k8s.io");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(std::regex_replace(r.out, std::regex(" +"), " ")
                .find("\nnetworkpolicies netpol networking.k8s.io/v1 true NetworkPolicy\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(kubectl("get netpol").err, "No resources found in default namespace.\n");
}

TEST_F(NetworkPolicyKubectlTest, AppliedDefaultedAndPrinted) {
  // The chart's policy: the usage port only from the node agents.
  const std::string usage = policy("usage",
                                   "  podSelector:\n    matchLabels: {app: tailor}\n"
                                   "  ingress:\n  - from:\n    - podSelector:\n"
                                   "        matchLabels: {component: node-agent}\n"
                                   "    ports:\n    - port: usage\n");
  KubectlResult r = apply("usage", usage);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "networkpolicy.networking.k8s.io/usage created\n");
  ASSERT_EQ(apply("deny-all", policy("deny-all", "  podSelector: {}\n  egress: [{}]\n")).exit_code,
            0);
  // SetDefaults_NetworkPolicy: the port's protocol TCP; policyTypes from the rules present.
  EXPECT_EQ(kubectl("get netpol usage -o jsonpath={.spec.ingress[0].ports[0].protocol}/"
                    "{.spec.policyTypes}/{.metadata.generation}")
                .out,
            R"(TCP/["Ingress"]/1)");
  EXPECT_EQ(kubectl("get netpol deny-all -o jsonpath={.spec.policyTypes}").out,
            R"(["Ingress","Egress"])");
  r = kubectl("get networkpolicies");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(columns(r.out),
            "NAME POD-SELECTOR AGE\n"
            "deny-all <none>\n"
            "usage app=tailor\n");
  // Applied again (kubectl replaces the ports list, which has no merge key): defaulted again on
  // update, the spec is the same and the generation stays.
  r = apply("usage", usage);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(kubectl("get netpol usage -o jsonpath={.spec.ingress[0].ports[0].protocol}/"
                    "{.metadata.generation}")
                .out,
            "TCP/1");
}

TEST_F(NetworkPolicyKubectlTest, MalformedRefused) {
  KubectlResult r = apply("bad", policy("bad",
                                        "  podSelector: {}\n  ingress:\n  - from: [{}]\n"
                                        "    ports:\n    - port: 80\n      protocol: HTTP\n"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "The NetworkPolicy \"bad\" is invalid: \n"
            "* spec.ingress[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: "
            "\"TCP\", \"UDP\", \"SCTP\"\n"
            "* spec.ingress[0].from[0]: Required value: must specify a peer\n");
  // Strict field validation knows the kind's fields.
  r = apply("typo", policy("typo", "  podSelector: {}\n  ingres: []\n"));
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("strict decoding error: unknown field \"spec.ingres\""), std::string::npos)
      << r.err;
  EXPECT_EQ(kubectl("get netpol").err, "No resources found in default namespace.\n");
}

}  // namespace
}  // namespace tailor::embedded::testing
