// securityContext runAsUser / runAsGroup / runAsNonRoot as the kubelet applies them: decoded from
// the pod and its containers (bad input names the path), the container's field winning over the
// pod's, carried into the CRI container config, and runAsNonRoot refused in the kubelet's words.
#include "node-agent/runtime/security_context.h"

#include <gtest/gtest.h>

#include "kube/model/decode.h"
#include "node-agent/runtime/cri_specs.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::node::runtime {
namespace {

constexpr const char* kPod = R"({
  "metadata": {"name": "p", "namespace": "ns", "uid": "u1"},
  "spec": {
    "securityContext": {"runAsUser": 1000, "runAsGroup": 3000, "runAsNonRoot": true},
    "containers": [
      {"name": "inherits", "image": "busybox"},
      {"name": "overrides", "image": "busybox",
       "securityContext": {"runAsUser": 65534, "runAsNonRoot": false}}
    ]
  }
})";

TEST(SecurityContext, DecodedFromThePodAndItsContainers) {
  const PodRunSpec run = decode_pod_run_spec(kPod);
  EXPECT_EQ(run.security, (SecurityIdentity{1000, 3000, true}));
  EXPECT_EQ(run.containers[0].security, SecurityIdentity{});
  EXPECT_EQ(run.containers[1].security, (SecurityIdentity{65534, std::nullopt, false}));
}

TEST(SecurityContext, TheContainerWinsFieldByField) {
  const RuntimePod pod = decode_runtime_pod(kPod);
  EXPECT_EQ(container_identity(pod, "inherits"), (SecurityIdentity{1000, 3000, true}));
  EXPECT_EQ(container_identity(pod, "overrides"), (SecurityIdentity{65534, 3000, false}));
}

TEST(SecurityContext, UidAndGidReachTheContainerConfig) {
  const RuntimePod pod = decode_runtime_pod(kPod);
  const cri::ContainerSpec spec = container_spec(pod, pod.pod.spec.containers[1], 0, "img", {});
  EXPECT_EQ(spec.run_as_user, 65534);
  EXPECT_EQ(spec.run_as_group, 3000);
  const RuntimePod bare = decode_runtime_pod(
      R"({"metadata":{"name":"p","uid":"u"},"spec":{"containers":[{"name":"c","image":"i"}]}})");
  const cri::ContainerSpec image_user =
      container_spec(bare, bare.pod.spec.containers[0], 0, "i", {});
  EXPECT_FALSE(image_user.run_as_user);  // the image's user decides
  EXPECT_FALSE(image_user.run_as_group);
}

TEST(SecurityContext, RunAsNonRootIsRefusedInTheKubeletsWords) {
  const kube::Pod pod = decode_runtime_pod(kPod).pod;
  const std::string where = R"x((pod: "p_ns(u1)", container: c))x";
  const cri::ImageInfo root_image{.id = "i"};  // names no user: root
  cri::ImageInfo numeric{.id = "i"};
  numeric.uid = 65534;
  cri::ImageInfo named{.id = "i"};
  named.username = "nobody";
  cri::ImageInfo uid_zero{.id = "i"};
  uid_zero.uid = 0;

  const SecurityIdentity non_root{std::nullopt, std::nullopt, true};
  EXPECT_EQ(run_as_non_root_violation(pod, "c", non_root, root_image),
            "container has runAsNonRoot and image will run as root " + where);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", non_root, uid_zero),
            "container has runAsNonRoot and image will run as root " + where);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", non_root, named),
            "container has runAsNonRoot and image has non-numeric user (nobody), cannot verify "
            "user is non-root " +
                where);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", non_root, numeric), std::nullopt);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", {0, std::nullopt, true}, numeric),
            "container's runAsUser breaks non-root policy " + where);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", {65534, std::nullopt, true}, root_image),
            std::nullopt);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", {0, std::nullopt, false}, root_image),
            std::nullopt);
  EXPECT_EQ(run_as_non_root_violation(pod, "c", {}, root_image), std::nullopt);
}

TEST(SecurityContext, BadInputNamesThePath) {
  const auto path_of = [](const char* json) {
    try {
      decode_pod_run_spec(json);
    } catch (const kube::DecodeError& e) {
      return e.path();
    }
    return std::string("no error");
  };
  EXPECT_EQ(path_of(R"({"spec":{"securityContext":{"runAsUser":"root"}}})"),
            "spec.securityContext.runAsUser");
  EXPECT_EQ(path_of(R"({"spec":{"securityContext":{"runAsNonRoot":1}}})"),
            "spec.securityContext.runAsNonRoot");
  EXPECT_EQ(path_of(R"({"spec":{"containers":[{"name":"a","securityContext":[]}]}})"),
            "spec.containers[0].securityContext");
  EXPECT_EQ(
      path_of(R"({"spec":{"containers":[{"name":"a","securityContext":{"runAsGroup":1.5}}]}})"),
      "spec.containers[0].securityContext.runAsGroup");
}

}  // namespace
}  // namespace tailor::node::runtime
