#include "node-agent/allocation/allocation_state.h"

#include <gtest/gtest.h>

namespace tailor::node::allocation {
namespace {

AllocatedPod pod_of(std::vector<std::pair<std::string, kube::ResourceRequirements>> containers) {
  AllocatedPod out;
  for (auto& [name, r] : containers) out.containers.push_back({name, r});
  return out;
}

kube::ResourceRequirements req(const std::string& cpu, const std::string& memory = "") {
  kube::ResourceRequirements r;
  if (!cpu.empty()) r.requests.insert_or_assign("cpu", kube::Quantity::parse(cpu));
  if (!memory.empty()) r.requests.insert_or_assign("memory", kube::Quantity::parse(memory));
  return r;
}

TEST(AllocationState, IncreasesRequests) {
  EXPECT_TRUE(increases_requests(pod_of({{"a", req("100m")}}), pod_of({{"a", req("200m")}})));
  EXPECT_FALSE(increases_requests(pod_of({{"a", req("200m")}}), pod_of({{"a", req("100m")}})));
  // One up, one down: still an increase for the retry order.
  EXPECT_TRUE(increases_requests(pod_of({{"a", req("200m")}, {"b", req("100m")}}),
                                 pod_of({{"a", req("100m")}, {"b", req("150m")}})));
  EXPECT_TRUE(
      increases_requests(pod_of({{"a", req("100m")}}), pod_of({{"a", req("100m", "1Mi")}})));
}

TEST(AllocationState, ResourceChanges) {
  const auto changes =
      resource_changes(pod_of({{"a", req("100m", "1Mi")}}), pod_of({{"a", req("200m")}}));
  EXPECT_EQ(changes, (std::vector<ResourceChange>{{"cpu", "requests", "increase"},
                                                  {"memory", "requests", "remove"}}));
}

TEST(AllocationState, DesiredAllocationKeepsOnlyCpuMemoryAndSidecars) {
  kube::Pod pod;
  pod.metadata.uid = "u";
  kube::Container app;
  app.name = "app";
  app.resources.requests = {{"cpu", kube::Quantity::parse("1")},
                            {"ephemeral-storage", kube::Quantity::parse("1Gi")}};
  pod.spec.containers.push_back(app);
  kube::Container init = app;
  init.name = "init";
  kube::Container sidecar = app;
  sidecar.name = "sidecar";
  sidecar.restart_policy = "Always";
  pod.spec.init_containers = {init, sidecar};
  const AllocatedPod a = desired_allocation(pod);
  ASSERT_EQ(a.containers.size(), 1u);
  EXPECT_EQ(a.containers[0].resources.requests,
            (kube::ResourceList{{"cpu", kube::Quantity::parse("1")}}));
  ASSERT_EQ(a.init_containers.size(), 1u);
  EXPECT_EQ(a.init_containers[0].name, "sidecar");
  EXPECT_FALSE(resize_requested(pod, a));
}

TEST(AllocationState, AllocatedRequestsUseTheAllocationNotTheSpec) {
  kube::Pod pod;
  kube::Container app;
  app.name = "app";
  app.resources.requests = {{"cpu", kube::Quantity::parse("2")}};
  pod.spec.containers.push_back(app);
  pod.spec.overhead = {{"cpu", kube::Quantity::parse("100m")}};
  const kube::ResourceList requests = allocated_requests(pod, pod_of({{"app", req("500m")}}));
  EXPECT_EQ(requests.at("cpu"), kube::Quantity::parse("600m"));
}

TEST(AllocationState, AmountsDefaultRequestsToLimits) {
  kube::ResourceRequirements r;
  r.limits = {{"cpu", kube::Quantity::parse("500m")}, {"memory", kube::Quantity::parse("64Mi")}};
  const cri::ResourceAmounts a = amounts_of(r);
  EXPECT_EQ(a.cpu_request_milli, 500);
  EXPECT_EQ(a.memory_request_bytes, 64 * 1024 * 1024);
  EXPECT_EQ(requirements_of(a).requests.at("memory"), kube::Quantity::parse("64Mi"));
}

}  // namespace
}  // namespace tailor::node::allocation
