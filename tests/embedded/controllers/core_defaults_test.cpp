// SetDefaults_Service and SetDefaults_Secret as kube-apiserver applies them: a table of what the
// client sends against what is stored, and what kubectl shows.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/controllers/handlers.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

bj::object defaulted(const std::string& resource, const std::string& json) {
  bj::object o = bj::parse(json).as_object();
  AdmissionRequest request{AdmissionOperation::Create,
                           *find_resource("", "v1", resource),
                           "",
                           "default",
                           "x",
                           o,
                           nullptr};
  default_service_and_secret(request);
  return o;
}

struct ServiceCase {
  std::string name, spec, want;
};

TEST(CoreDefaults, ServiceSpec) {
  const std::vector<ServiceCase> cases = {
      {"empty ClusterIP", R"({"ports":[{"port":80}]})",
       R"({"ports":[{"port":80,"protocol":"TCP","targetPort":80}],"sessionAffinity":"None",
           "type":"ClusterIP","internalTrafficPolicy":"Cluster","ipFamilyPolicy":"SingleStack",
           "ipFamilies":["IPv4"]})"},
      {"named and zero targetPort, UDP kept",
       R"({"ports":[{"port":53,"protocol":"UDP","targetPort":"dns"},{"port":8080,"targetPort":0}]})",
       R"({"ports":[{"port":53,"protocol":"UDP","targetPort":"dns"},
                    {"port":8080,"targetPort":8080,"protocol":"TCP"}],"sessionAffinity":"None",
           "type":"ClusterIP","internalTrafficPolicy":"Cluster","ipFamilyPolicy":"SingleStack",
           "ipFamilies":["IPv4"]})"},
      {"ClientIP affinity gets its timeout", R"({"sessionAffinity":"ClientIP"})",
       R"({"sessionAffinity":"ClientIP",
           "sessionAffinityConfig":{"clientIP":{"timeoutSeconds":10800}},"type":"ClusterIP",
           "internalTrafficPolicy":"Cluster","ipFamilyPolicy":"SingleStack",
           "ipFamilies":["IPv4"]})"},
      {"None affinity drops its config",
       R"({"sessionAffinity":"None","sessionAffinityConfig":{"clientIP":{"timeoutSeconds":5}}})",
       R"({"sessionAffinity":"None","type":"ClusterIP","internalTrafficPolicy":"Cluster",
           "ipFamilyPolicy":"SingleStack","ipFamilies":["IPv4"]})"},
      {"NodePort is externally accessible", R"({"type":"NodePort"})",
       R"({"type":"NodePort","sessionAffinity":"None","externalTrafficPolicy":"Cluster",
           "internalTrafficPolicy":"Cluster","ipFamilyPolicy":"SingleStack",
           "ipFamilies":["IPv4"]})"},
      {"LoadBalancer allocates node ports", R"({"type":"LoadBalancer"})",
       R"({"type":"LoadBalancer","sessionAffinity":"None","externalTrafficPolicy":"Cluster",
           "internalTrafficPolicy":"Cluster","allocateLoadBalancerNodePorts":true,
           "ipFamilyPolicy":"SingleStack","ipFamilies":["IPv4"]})"},
      {"ClusterIP with external IPs", R"({"externalIPs":["192.0.2.1"]})",
       R"({"externalIPs":["192.0.2.1"],"sessionAffinity":"None","type":"ClusterIP",
           "externalTrafficPolicy":"Cluster","internalTrafficPolicy":"Cluster",
           "ipFamilyPolicy":"SingleStack","ipFamilies":["IPv4"]})"},
      {"ExternalName has no traffic policies or families",
       R"({"type":"ExternalName","externalName":"db.example.com"})",
       R"({"type":"ExternalName","externalName":"db.example.com","sessionAffinity":"None"})"},
      {"set values are kept",
       R"({"type":"NodePort","externalTrafficPolicy":"Local","internalTrafficPolicy":"Local",
           "ipFamilyPolicy":"PreferDualStack","ipFamilies":["IPv6"]})",
       R"({"type":"NodePort","externalTrafficPolicy":"Local","internalTrafficPolicy":"Local",
           "ipFamilyPolicy":"PreferDualStack","ipFamilies":["IPv6"],"sessionAffinity":"None"})"},
  };
  for (const ServiceCase& c : cases) {
    bj::object service = defaulted("services", R"({"spec":)" + c.spec + "}");
    EXPECT_EQ(service.at("spec"), bj::parse(c.want)) << c.name << ": " << service.at("spec");
  }
}

TEST(CoreDefaults, SecretType) {
  EXPECT_EQ(defaulted("secrets", "{}").at("type"), "Opaque");
  EXPECT_EQ(defaulted("secrets", R"({"type":"kubernetes.io/tls"})").at("type"),
            "kubernetes.io/tls");
}

TEST(CoreDefaults, StatusWritesAndOtherKindsAreLeftAlone) {
  bj::object o = bj::parse(R"({"spec":{}})").as_object();
  AdmissionRequest status{AdmissionOperation::Update,
                          *find_resource("", "v1", "services"),
                          "status",
                          "default",
                          "x",
                          o,
                          nullptr};
  default_service_and_secret(status);
  EXPECT_EQ(o, bj::parse(R"({"spec":{}})"));
  EXPECT_FALSE(defaulted("configmaps", "{}").contains("type"));
}

using CoreDefaultsKubectlTest = ApiOnlyKubectlTest;

TEST_F(CoreDefaultsKubectlTest, GetOutputYamlShowsTheDefaults) {
  KubectlResult applied = kubectl(
      "apply -f " +
      write("objects.yaml",
            "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n"
            "  selector: {app: web}\n  ports: [{port: 80}]\n  clusterIP: 10.0.0.80\n---\n"
            "apiVersion: v1\nkind: Secret\nmetadata: {name: token}\nstringData: {key: value}\n"));
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  KubectlResult service = kubectl("get service web -o yaml");
  ASSERT_EQ(service.exit_code, 0) << service.err;
  const std::string spec = service.out.substr(service.out.find("\nspec:\n"));
  EXPECT_TRUE(
      spec.starts_with("\nspec:\n"
                       "  clusterIP: 10.0.0.80\n"
                       "  clusterIPs:\n  - 10.0.0.80\n"
                       "  internalTrafficPolicy: Cluster\n"
                       "  ipFamilies:\n  - IPv4\n"
                       "  ipFamilyPolicy: SingleStack\n"
                       "  ports:\n  - port: 80\n    protocol: TCP\n    targetPort: 80\n"
                       "  selector:\n    app: web\n"
                       "  sessionAffinity: None\n"
                       "  type: ClusterIP\n"))
      << service.out;
  EXPECT_EQ(kubectl("get secret token -o jsonpath={.type}").out, "Opaque");
}

}  // namespace
}  // namespace tailor::embedded::testing
