#include "actuator/eligibility.h"

#include <gtest/gtest.h>

#include "actuator/hpa.h"
#include "fixtures.h"

namespace tailor::actuator {
namespace {

using namespace testing_support;
using policy::UpdateMode;

struct EligibilityCase {
  const char* name;
  kube::Pod pod;
  UpdateMode mode;
  bool in_place;
  bool recreate;
  const char* reason;
};

TEST(Eligibility, ByModeAndKindOfPod) {
  kube::Pod plain = running_pod({container("app", "cpu=1")});
  kube::Pod mirror = plain;
  mirror.metadata.annotations["kubernetes.io/config.mirror"] = "abc";
  kube::Pod node_owned = plain;
  node_owned.metadata.owner_references.push_back({"v1", "Node", "n1", "uid-n1", true, false});
  kube::Pod windows = plain;
  windows.spec.os_name = "windows";
  kube::Pod pod_level = plain;
  pod_level.spec.resources = kube::ResourceRequirements{rl("cpu=2"), rl("cpu=1")};
  kube::Pod pending = plain;
  pending.status.phase = "Pending";
  kube::Pod deleting = plain;
  deleting.metadata.deletion_timestamp = "2026-01-01T00:00:00Z";
  std::vector<EligibilityCase> cases{
      {"Default", plain, UpdateMode::InPlaceOrRecreate, true, true, ""},
      {"InPlace", plain, UpdateMode::InPlace, true, false, ""},
      {"Recreate", plain, UpdateMode::Recreate, false, true, ""},
      {"Off", plain, UpdateMode::Off, false, false, "update mode Off: recommendations only"},
      {"Initial", plain, UpdateMode::Initial, false, false,
       "update mode Initial: applied only when pods are created"},
      {"Mirror", mirror, UpdateMode::InPlaceOrRecreate, false, false,
       "static (mirror) pod: owned by its kubelet"},
      {"OwnedByNode", node_owned, UpdateMode::InPlaceOrRecreate, false, false,
       "static (mirror) pod: owned by its kubelet"},
      {"Windows", windows, UpdateMode::InPlaceOrRecreate, false, true,
       "Windows pod: in-place resize is not supported on Windows"},
      {"WindowsInPlaceOnly", windows, UpdateMode::InPlace, false, false,
       "Windows pod: in-place resize is not supported on Windows"},
      {"PodLevelResources", pod_level, UpdateMode::InPlaceOrRecreate, false, true,
       "pod-level resources: containers are not resized in place"},
      {"NotRunning", pending, UpdateMode::InPlaceOrRecreate, false, false, "pod is not running"},
      {"Deleting", deleting, UpdateMode::InPlaceOrRecreate, false, false, "pod is being deleted"},
  };
  for (const auto& c : cases) {
    Eligibility e = eligibility(c.pod, c.mode);
    EXPECT_EQ(e.in_place, c.in_place) << c.name;
    EXPECT_EQ(e.recreate, c.recreate) << c.name;
    EXPECT_EQ(e.reason, c.reason) << c.name;
  }
}

TEST(HpaConflict, OnlyCpuAndMemoryOfTheSameTarget) {
  policy::EffectivePolicy p = default_policy();
  std::vector<HorizontalScaler> hpas{
      {"web-cpu", {"apps/v1", "Deployment", "web"}, {"cpu"}},
      {"web-rps", {"apps/v1", "Deployment", "web"}, {}},
      {"web-mem", {"apps/v1", "Deployment", "web"}, {"memory", "cpu"}},
      {"other", {"apps/v1", "Deployment", "api"}, {"memory"}},
      {"gpu", {"apps/v1", "Deployment", "web"}, {"nvidia.com/gpu"}},
  };
  HpaConflict c = hpa_conflict(p, hpas);
  EXPECT_EQ(c.resources, (std::vector<std::string>{"cpu", "memory"}));
  EXPECT_EQ(c.message,
            "HorizontalPodAutoscaler web-cpu, web-mem scales Deployment web on cpu and memory; "
            "Tailor leaves cpu and memory alone");
  EXPECT_TRUE(hpa_conflict(p, {hpas[1], hpas[3]}).message.empty());
  policy::EffectivePolicy by_selector = p;
  by_selector.target_ref.reset();
  EXPECT_TRUE(hpa_conflict(by_selector, hpas).resources.empty());
}

// A pod's controller chain: an HPA on any workload of it counts, in the same API group only.
TEST(HpaConflict, AnyWorkloadOfAControllerChain) {
  const std::vector<policy::WorkloadRef> chain{
      {.api_version = "apps/v1", .kind = "ReplicaSet", .name = "web-5d9"},
      {.api_version = "apps/v1", .kind = "Deployment", .name = "web"}};
  std::vector<HorizontalScaler> hpas{
      {"web-cpu", {"apps/v1", "Deployment", "web"}, {"cpu"}},
      {"rs-mem", {"apps/v1", "ReplicaSet", "web-5d9"}, {"memory"}},
      {"other-group", {"example.com/v1", "Deployment", "web"}, {"memory"}},
  };
  HpaConflict c = hpa_conflict(chain, hpas);
  EXPECT_EQ(c.resources, (std::vector<std::string>{"cpu", "memory"}));
  EXPECT_EQ(c.message,
            "HorizontalPodAutoscaler rs-mem scales ReplicaSet web-5d9 and HorizontalPodAutoscaler "
            "web-cpu scales Deployment web on cpu and memory; Tailor leaves cpu and memory alone");
  EXPECT_TRUE(hpa_conflict(chain, {hpas[2]}).resources.empty());
  EXPECT_TRUE(hpa_conflict(std::vector<policy::WorkloadRef>{}, hpas).message.empty());
}

TEST(HpaConflict, ContainerResourceMetricNamesItsContainer) {
  std::vector<HorizontalScaler> hpas{{"web-app", {"apps/v1", "Deployment", "web"}, {"app/cpu"}},
                                     {"web-gpu", {"apps/v1", "Deployment", "web"}, {"app/gpu"}}};
  HpaConflict c = hpa_conflict(default_policy(), hpas);
  EXPECT_EQ(c.resources, (std::vector<std::string>{"app/cpu"}));
  EXPECT_EQ(c.message,
            "HorizontalPodAutoscaler web-app scales Deployment web on cpu of container app; Tailor "
            "leaves cpu of container app alone");
  EXPECT_TRUE(left_to_hpa(c.resources, "app", "cpu"));
  EXPECT_FALSE(left_to_hpa(c.resources, "side", "cpu"));
  EXPECT_FALSE(left_to_hpa(c.resources, "app", "memory"));
  EXPECT_TRUE(left_to_hpa({"memory"}, "any", "memory"));
}

}  // namespace
}  // namespace tailor::actuator
