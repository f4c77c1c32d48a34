// The real kubectl's create commands and auth can-i, which send Kubernetes protobuf bodies,
// against tailor-cluster: kubectl's usual output, and the stored objects as kubectl reads them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <utility>
#include <vector>

#include "tests/embedded/cluster_fixture.h"
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

class KubectlProtobufTest : public KubectlClusterTest {
 protected:
  bj::value get_json(const std::string& what) {
    KubectlResult r = kubectl("get " + what + " -o json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? bj::parse(r.out) : bj::value();
  }
};

// One kubectl create: what kubectl prints, and fields of the object read back (JSON pointers).
struct Create {
  const char* name;
  std::string args;
  std::string printed;
  std::string object;
  std::vector<std::pair<std::string, std::string>> fields;
};

class KubectlCreateTest : public KubectlProtobufTest,
                          public ::testing::WithParamInterface<Create> {};

TEST_P(KubectlCreateTest, CreatesTheObjectKubectlDescribes) {
  const Create& c = GetParam();
  KubectlResult r = kubectl("create " + c.args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, c.printed);
  bj::value object = get_json(c.object);
  for (const auto& [pointer, expected] : c.fields) {
    boost::system::error_code ec;
    const bj::value* found = object.find_pointer(pointer, ec);
    ASSERT_NE(found, nullptr) << pointer << " missing in " << bj::serialize(object);
    EXPECT_EQ(*found, bj::parse(expected)) << pointer;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, KubectlCreateTest,
    ::testing::Values(
        Create{"Namespace",
               "namespace demo",
               "namespace/demo created\n",
               "namespace demo",
               {{"/metadata/name", R"("demo")"}, {"/status/phase", R"("Active")"}}},
        Create{"ConfigMap",
               "configmap cfg --from-literal=a=1 --from-literal=b=two",
               "configmap/cfg created\n",
               "configmap cfg",
               {{"/data", R"({"a":"1","b":"two"})"}, {"/metadata/namespace", R"("default")"}}},
        Create{"Secret",
               "secret generic s1 --from-literal=password=hunter2",
               "secret/s1 created\n",
               "secret s1",
               {{"/data", R"({"password":"aHVudGVyMg=="})"}}},
        Create{"Deployment",
               "deployment web --image=busybox --replicas=2",
               "deployment.apps/web created\n",
               "deployment web",
               {{"/spec/replicas", "2"},
                {"/spec/selector", R"({"matchLabels":{"app":"web"}})"},
                {"/spec/template/metadata/labels", R"({"app":"web"})"},
                {"/spec/template/spec/containers/0/name", R"("busybox")"},
                {"/spec/template/spec/containers/0/image", R"("busybox")"}}},
        Create{"Job",
               "job pi --image=busybox -- echo hi",
               "job.batch/pi created\n",
               "job pi",
               {{"/spec/template/spec/containers/0/command", R"(["echo","hi"])"},
                {"/spec/template/spec/restartPolicy", R"("Never")"}}},
        Create{"CronJob",
               "cronjob tick --image=busybox --schedule='*/5 * * * *' -- date",
               "cronjob.batch/tick created\n",
               "cronjob tick",
               {{"/spec/schedule", R"("*/5 * * * *")"},
                {"/spec/jobTemplate/spec/template/spec/containers/0/command", R"(["date"])"},
                {"/spec/jobTemplate/spec/template/spec/restartPolicy", R"("OnFailure")"}}},
        Create{"Service",
               "service clusterip front --tcp=80:8080",
               "service/front created\n",
               "service front",
               {{"/spec/type", R"("ClusterIP")"},
                {"/spec/selector", R"({"app":"front"})"},
                {"/spec/ports/0", R"({"name":"80-8080","protocol":"TCP","port":80,)"
                                  R"("targetPort":8080})"}}},
        Create{"ServiceAccount",
               "serviceaccount robot",
               "serviceaccount/robot created\n",
               "serviceaccount robot",
               {{"/metadata/name", R"("robot")"}}},
        Create{
            "PodDisruptionBudget",
            "poddisruptionbudget web --selector=app=web --min-available=1",
            "poddisruptionbudget.policy/web created\n",
            "poddisruptionbudget web",
            {{"/spec/minAvailable", "1"}, {"/spec/selector", R"({"matchLabels":{"app":"web"}})"}}}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(KubectlProtobufTest, AuthCanICreatePodsSaysYes) {
  KubectlResult r = kubectl("auth can-i create pods");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "yes\n");
}

TEST_F(KubectlProtobufTest, AuthCanIForANonResourceUrlSaysYes) {
  KubectlResult r = kubectl("auth can-i get /healthz");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "yes\n");
}

TEST_F(KubectlProtobufTest, CreatedDeploymentIsListedAsUsual) {
  ASSERT_EQ(kubectl("create deployment web --image=nginx:1.25 --port=80").exit_code, 0);
  KubectlResult r = kubectl("get deployment web -o jsonpath={.spec.template.spec.containers[0]}");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bj::value container = bj::parse(r.out);
  // kubectl sends the port alone (protocol "" is omitted); defaulting it is not the decoder's job.
  EXPECT_EQ(container.at("ports").at(0).at("containerPort"), bj::value(80));
  EXPECT_EQ(container.at("image"), bj::value("nginx:1.25"));
}

}  // namespace
}  // namespace tailor::embedded::testing
