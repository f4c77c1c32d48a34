// Expectations from Kubernetes' own table (pkg/apis/core/v1/helper/qos/qos_test.go,
// TestComputePodQOS), with PodLevelResources enabled as in 1.35.
#include "kube/model/qos.h"

#include <gtest/gtest.h>

#include <optional>

namespace tailor::kube {
namespace {

// cpu/memory "" means unset, as getResourceList in the upstream test.
ResourceList resources(const char* cpu, const char* memory) {
  ResourceList list;
  if (*cpu) list.insert_or_assign("cpu", Quantity::parse(cpu));
  if (*memory) list.insert_or_assign("memory", Quantity::parse(memory));
  return list;
}

ResourceList with(ResourceList list, const char* name, const char* value) {
  list.insert_or_assign(name, Quantity::parse(value));
  return list;
}

Container container(ResourceList requests, ResourceList limits) {
  Container c;
  c.name = "c";
  c.resources.requests = std::move(requests);
  c.resources.limits = std::move(limits);
  return c;
}

struct QosCase {
  const char* name;
  std::vector<Container> containers;
  std::vector<Container> init_containers;
  std::optional<ResourceRequirements> pod_resources;
  QosClass expected;
};

std::vector<QosCase> upstream_cases() {
  auto be = [] { return container(resources("", ""), resources("", "")); };
  auto g = [] { return container(resources("100m", "100Mi"), resources("100m", "100Mi")); };
  auto pod_level = [](ResourceList requests, ResourceList limits) {
    return std::optional<ResourceRequirements>(
        ResourceRequirements{std::move(limits), std::move(requests)});
  };
  return {
      {"guaranteed", {g()}, {}, {}, QosClass::Guaranteed},
      {"guaranteed-guaranteed", {g(), g()}, {}, {}, QosClass::Guaranteed},
      {"best-effort-best-effort", {be(), be()}, {}, {}, QosClass::BestEffort},
      {"best-effort", {be()}, {}, {}, QosClass::BestEffort},
      {"best-effort-burstable",
       {be(), container(resources("1", ""), resources("2", ""))},
       {},
       {},
       QosClass::Burstable},
      {"best-effort-guaranteed",
       {be(), container(resources("10m", "100Mi"), resources("10m", "100Mi"))},
       {},
       {},
       QosClass::Burstable},
      {"burstable-cpu-guaranteed-memory",
       {container(resources("", "100Mi"), resources("", "100Mi"))},
       {},
       {},
       QosClass::Burstable},
      {"burstable-no-limits",
       {container(resources("100m", "100Mi"), resources("", ""))},
       {},
       {},
       QosClass::Burstable},
      {"burstable-guaranteed",
       {container(resources("1", "100Mi"), resources("2", "100Mi")), g()},
       {},
       {},
       QosClass::Burstable},
      {"burstable-unbounded-but-requests-match-limits",
       {container(resources("100m", "100Mi"), resources("200m", "200Mi")),
        container(resources("100m", "100Mi"), resources("", ""))},
       {},
       {},
       QosClass::Burstable},
      {"burstable-1",
       {container(resources("10m", "100Mi"), resources("100m", "200Mi"))},
       {},
       {},
       QosClass::Burstable},
      {"burstable-2",
       {container(resources("0", "0"), resources("100m", "200Mi"))},
       {},
       {},
       QosClass::Burstable},
      {"best-effort-hugepages",
       {container(with(resources("0", "0"), "hugepages-2Mi", "1Gi"),
                  with(resources("0", "0"), "hugepages-2Mi", "1Gi"))},
       {},
       {},
       QosClass::BestEffort},
      {"init-container",
       {be()},
       {container(resources("10m", "100Mi"), resources("100m", "200Mi"))},
       {},
       QosClass::Burstable},
      {"guaranteed-with-pod-level-resources",
       {be()},
       {},
       pod_level(resources("10m", "100Mi"), resources("10m", "100Mi")),
       QosClass::Guaranteed},
      {"guaranteed-with-pod-and-container-level-resources",
       {container(resources("3m", "10Mi"), resources("5m", "20Mi"))},
       {},
       pod_level(resources("10m", "100Mi"), resources("10m", "100Mi")),
       QosClass::Guaranteed},
      {"burstable-with-pod-level-resources",
       {be()},
       {},
       pod_level(resources("10m", "10Mi"), resources("20m", "50Mi")),
       QosClass::Burstable},
      {"burstable-with-pod-and-container-level-resources",
       {container(resources("5m", "10Mi"), resources("5m", "10Mi"))},
       {},
       pod_level(resources("10m", "10Mi"), resources("20m", "50Mi")),
       QosClass::Burstable},
      {"burstable-with-pod-and-container-level-requests",
       {container(resources("5m", "10Mi"), resources("", ""))},
       {},
       pod_level(resources("10m", "10Mi"), resources("", "")),
       QosClass::Burstable},
      {"burstable-with-pod-and-container-level-resources-2",
       {container(resources("5m", "10Mi"), resources("", "")),
        container(resources("5m", "10Mi"), resources("5m", "10Mi"))},
       {},
       pod_level(resources("10m", "10Mi"), resources("5m", "")),
       QosClass::Burstable},
  };
}

TEST(ComputePodQos, KubernetesTable) {
  for (const QosCase& c : upstream_cases()) {
    SCOPED_TRACE(c.name);
    PodSpec spec;
    spec.containers = c.containers;
    spec.init_containers = c.init_containers;
    spec.resources = c.pod_resources;
    EXPECT_EQ(to_string(compute_pod_qos(spec)), to_string(c.expected));
  }
}

// PodLevelResourcesFixKubeletQOSClass: pod-level resources without cpu/memory/hugepages (here an
// empty spec.resources) leave the decision to the containers.
TEST(ComputePodQos, EmptyPodLevelResourcesFallBackToContainers) {
  PodSpec spec;
  spec.containers = {container(resources("1", "1Gi"), resources("1", "1Gi"))};
  spec.resources = ResourceRequirements{};
  EXPECT_EQ(compute_pod_qos(spec), QosClass::Guaranteed);
  spec.resources->requests = with({}, "ephemeral-storage", "1Gi");
  EXPECT_EQ(compute_pod_qos(spec), QosClass::Guaranteed);
}

// Equal values in different notations are equal quantities.
TEST(ComputePodQos, ComparesValuesNotSpelling) {
  PodSpec spec;
  spec.containers = {container(resources("0.5", "1Gi"), resources("500m", "1024Mi"))};
  EXPECT_EQ(compute_pod_qos(spec), QosClass::Guaranteed);
}

TEST(PodQos, PrefersTheStoredClass) {
  Pod pod;
  pod.spec.containers = {container(resources("", ""), resources("", ""))};
  EXPECT_EQ(pod_qos(pod), QosClass::BestEffort);
  pod.status.qos_class = "Burstable";
  EXPECT_EQ(pod_qos(pod), QosClass::Burstable);
  pod.status.qos_class = "Unknown";  // not a class: computed instead
  EXPECT_EQ(pod_qos(pod), QosClass::BestEffort);
}

TEST(QosClassNames, RoundTrip) {
  for (QosClass qos : {QosClass::Guaranteed, QosClass::Burstable, QosClass::BestEffort}) {
    EXPECT_EQ(parse_qos_class(to_string(qos)), qos);
  }
  EXPECT_FALSE(parse_qos_class("guaranteed").has_value());
}

}  // namespace
}  // namespace tailor::kube
