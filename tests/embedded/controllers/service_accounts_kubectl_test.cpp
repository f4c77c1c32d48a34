// What every namespace and pod gets, seen with the real kubectl: the ServiceAccount "default" and
// the ConfigMap kube-root-ca.crt (the cluster CA) in each namespace, made again when deleted; a
// new pod runs as "default" with the projected kube-api-access volume mounted read-only, unless
// automountServiceAccountToken is false; a pod naming an account that does not exist is refused.
#include <gtest/gtest.h>

#include <functional>
#include <thread>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

using ServiceAccountsKubectlTest = KubectlClusterTest;

// Polls `args` until it prints `want` (10 s at most); returns the last output.
std::string eventually(const std::function<KubectlResult(const std::string&)>& kubectl,
                       const std::string& args, const std::string& want) {
  std::string out;
  for (int i = 0; i < 100 && out != want; ++i) {
    out = kubectl(args).out;
    if (out != want) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return out;
}

TEST_F(ServiceAccountsKubectlTest, EveryNamespaceHasDefaultAndTheRootCa) {
  auto run = [this](const std::string& args) { return kubectl(args); };
  ASSERT_EQ(kubectl("create namespace shop").exit_code, 0);
  EXPECT_EQ(eventually(run, "-n shop get sa default -o name", "serviceaccount/default\n"),
            "serviceaccount/default\n");
  const std::string ca = "-n shop get configmap kube-root-ca.crt -o jsonpath='{.data.ca\\.crt}'";
  EXPECT_EQ(eventually(run, ca, cluster_->ca_pem()), cluster_->ca_pem());
  // Deleted or changed: put back.
  ASSERT_EQ(kubectl("-n shop delete sa default").exit_code, 0);
  ASSERT_EQ(kubectl("-n shop delete configmap kube-root-ca.crt").exit_code, 0);
  EXPECT_EQ(eventually(run, "-n shop get sa default -o name", "serviceaccount/default\n"),
            "serviceaccount/default\n");
  EXPECT_EQ(eventually(run, ca, cluster_->ca_pem()), cluster_->ca_pem());
  ASSERT_EQ(kubectl(R"(-n shop patch configmap kube-root-ca.crt -p '{"data":{"ca.crt":"forged"}}')")
                .exit_code,
            0);
  EXPECT_EQ(eventually(run, ca, cluster_->ca_pem()), cluster_->ca_pem());
}

TEST_F(ServiceAccountsKubectlTest, NewPodsGetTheServiceAccountVolume) {
  ASSERT_EQ(kubectl("run web --image=busybox").exit_code, 0);
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.spec.serviceAccountName}").out, "default");
  const std::string volume = kubectl("get pod web -o jsonpath={.spec.volumes[0].name}").out;
  EXPECT_TRUE(volume.starts_with("kube-api-access-")) << volume;
  EXPECT_EQ(
      kubectl("get pod web -o jsonpath={.spec.volumes[0].projected.sources[*]}").out,
      R"({"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}} )"
      R"({"configMap":{"items":[{"key":"ca.crt","path":"ca.crt"}],"name":"kube-root-ca.crt"}} )"
      R"({"downwardAPI":{"items":[{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"},"path":"namespace"}]}})");
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.spec.containers[0].volumeMounts[0]}").out,
            R"({"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount","name":")" + volume +
                R"(","readOnly":true})");

  create("quiet", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"quiet"},
      "spec":{"automountServiceAccountToken":false,
              "containers":[{"name":"app","image":"busybox"}]}})");
  EXPECT_EQ(kubectl("get pod quiet -o jsonpath={.spec.volumes}").out, "");
}

// kube-apiserver's ServiceAccount admission: a pod naming an account that is not there is refused
// (403), and admitted once the account exists.
TEST_F(ServiceAccountsKubectlTest, APodNamingAMissingServiceAccountIsRefused) {
  const std::string run_ghost =
      R"(run web2 --image=busybox --overrides='{"spec":{"serviceAccountName":"ghost"}}')";
  KubectlResult refused = kubectl(run_ghost);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_EQ(refused.err,
            "Error from server (Forbidden): pods \"web2\" is forbidden: error looking up service "
            "account default/ghost: serviceaccount \"ghost\" not found\n");
  EXPECT_NE(kubectl("get pod web2").exit_code, 0);
  ASSERT_EQ(kubectl("create serviceaccount ghost").exit_code, 0);
  KubectlResult admitted = kubectl(run_ghost);
  ASSERT_EQ(admitted.exit_code, 0) << admitted.err;
  EXPECT_EQ(kubectl("get pod web2 -o jsonpath={.spec.serviceAccountName}").out, "ghost");
}

}  // namespace
}  // namespace tailor::embedded::testing
