// The ServiceAccount admission plugin on a new pod: "default" when no ServiceAccount is named, the
// projected kube-api-access volume as kube-apiserver writes it, mounted where no container mounts
// something already, and nothing when automount is off (the pod's choice over the account's).
#include "embedded/auth/service_account_admission.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object pod(std::string_view spec_json) {
  return bj::object{{"metadata", bj::object{{"name", "web"}}}, {"spec", bj::parse(spec_json)}};
}

const bj::array& volumes(const bj::object& p) { return p.at("spec").at("volumes").as_array(); }

const bj::array& mounts(const bj::object& p, const char* list, std::size_t i) {
  return p.at("spec").at(list).as_array().at(i).at("volumeMounts").as_array();
}

TEST(ServiceAccountAdmissionTest, DefaultsTheAccountAndAddsTheProjectedVolume) {
  bj::object p = pod(R"({"containers":[{"name":"app","image":"busybox"}]})");
  admit_service_account(p, std::nullopt);
  EXPECT_EQ(p.at("spec").at("serviceAccountName"), "default");
  ASSERT_EQ(volumes(p).size(), 1u);
  const bj::object& volume = volumes(p)[0].as_object();
  const std::string name(volume.at("name").as_string());
  ASSERT_EQ(name.size(), std::string("kube-api-access-").size() + 5) << name;
  EXPECT_TRUE(name.starts_with("kube-api-access-"));
  EXPECT_EQ(volume.at("projected"), bj::parse(R"({"sources":[
      {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
      {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
      {"downwardAPI":{"items":[{"path":"namespace",
          "fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}],
      "defaultMode":420})"));
  EXPECT_EQ(
      mounts(p, "containers", 0),
      bj::parse(
          R"([{"name":")" + name +
          R"(","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}])"));
}

TEST(ServiceAccountAdmissionTest, MountsInEveryContainerThatHasNothingThere) {
  bj::object p = pod(R"({"serviceAccountName":"bot",
      "initContainers":[{"name":"init"}],
      "containers":[{"name":"a","volumeMounts":[{"name":"own","mountPath":"/data"}]},
                    {"name":"b","volumeMounts":[{"name":"own",
                        "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
      "volumes":[{"name":"own","emptyDir":{}}]})");
  admit_service_account(p, std::nullopt);
  EXPECT_EQ(p.at("spec").at("serviceAccountName"), "bot");
  ASSERT_EQ(volumes(p).size(), 2u);
  EXPECT_EQ(mounts(p, "initContainers", 0).size(), 1u);
  EXPECT_EQ(mounts(p, "containers", 0).size(), 2u);
  EXPECT_EQ(mounts(p, "containers", 1).size(), 1u) << "its own mount at the path is kept alone";
}

TEST(ServiceAccountAdmissionTest, NoVolumeWhenEveryContainerMountsThePathItself) {
  bj::object p = pod(R"({"containers":[{"name":"a","volumeMounts":[{"name":"own",
      "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}]}],
      "volumes":[{"name":"own","emptyDir":{}}]})");
  admit_service_account(p, std::nullopt);
  EXPECT_EQ(volumes(p).size(), 1u);
}

TEST(ServiceAccountAdmissionTest, AutomountOffOnTheAccountOrThePod) {
  bj::object off = pod(R"({"containers":[{"name":"a"}]})");
  admit_service_account(off, false);
  EXPECT_FALSE(off.at("spec").as_object().contains("volumes"));
  bj::object pod_off = pod(R"({"automountServiceAccountToken":false,"containers":[{"name":"a"}]})");
  admit_service_account(pod_off, true);
  EXPECT_FALSE(pod_off.at("spec").as_object().contains("volumes"));
  bj::object pod_on = pod(R"({"automountServiceAccountToken":true,"containers":[{"name":"a"}]})");
  admit_service_account(pod_on, false);
  EXPECT_EQ(volumes(pod_on).size(), 1u) << "the pod's choice wins over the account's";
}

TEST(ServiceAccountAdmissionTest, VolumeNameAvoidsTheOnesThePodHas) {
  for (int i = 0; i < 50; ++i) {
    bj::object p = pod(R"({"containers":[{"name":"a"}]})");
    admit_service_account(p, std::nullopt);
    const bj::value first = volumes(p)[0].at("name");
    bj::object again = pod(R"({"containers":[{"name":"a"}]})");
    again["spec"].as_object()["volumes"] =
        bj::array{bj::object{{"name", first}, {"emptyDir", bj::object{}}}};
    admit_service_account(again, std::nullopt);
    ASSERT_EQ(volumes(again).size(), 2u);
    EXPECT_NE(volumes(again)[1].at("name"), first);
  }
}

TEST(ServiceAccountAdmissionTest, AMissingAccountIsRefusedInKubeApiserversWords) {
  EXPECT_EQ(missing_service_account("shop", "ghost", false),
            "error looking up service account shop/ghost: serviceaccount \"ghost\" not found");
  EXPECT_EQ(missing_service_account("shop", "ghost", true), std::nullopt);
  // "default" (named or implied) may not be made yet in a namespace just created.
  EXPECT_EQ(missing_service_account("shop", "default", false), std::nullopt);
  EXPECT_EQ(missing_service_account("shop", "", false), std::nullopt);
}

}  // namespace
}  // namespace tailor::embedded
