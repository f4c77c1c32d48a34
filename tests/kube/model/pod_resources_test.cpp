#include "kube/model/pod_resources.h"

#include <gtest/gtest.h>

#include "kube/model/decode.h"
#include "tests/kube/model/fixtures.h"

namespace tailor::kube {
namespace {

Quantity q(const char* text) { return Quantity::parse(text); }

Container container(const char* name, const char* cpu_request, bool sidecar = false) {
  Container c;
  c.name = name;
  c.resources.requests.insert_or_assign("cpu", q(cpu_request));
  if (sidecar) c.restart_policy = "Always";
  return c;
}

ContainerStatus status(const char* name, const char* allocated_cpu, const char* actual_cpu) {
  ContainerStatus s;
  s.name = name;
  if (*allocated_cpu) s.allocated_resources.insert_or_assign("cpu", q(allocated_cpu));
  if (*actual_cpu) s.resources.emplace().requests.insert_or_assign("cpu", q(actual_cpu));
  return s;
}

TEST(PodRequests, RealPodWithSidecarInitContainerAndOverhead) {
  Pod pod = decode_pod(testing::kPodJson);
  ResourceList requests = pod_requests(pod);
  // cpu: app 250m + worker 1 + sidecar proxy 50m (init-db's 200m phase is lower) + overhead 10m
  EXPECT_EQ(requests.at("cpu"), q("1310m"));
  // memory: 256Mi + 1e9 + proxy 64Mi + overhead 16Mi
  EXPECT_EQ(requests.at("memory"), q("1352321536"));
  EXPECT_EQ(requests.at("example.com/gpu"), q("1"));
  EXPECT_EQ(pod_requests(pod, {.exclude_overhead = true}).at("cpu"), q("1300m"));
}

TEST(PodLimits, OverheadOnlyWhereALimitIsSet) {
  Pod pod = decode_pod(testing::kPodJson);
  pod.spec.containers[1].resources.limits.insert_or_assign("memory", q("0"));
  ResourceList limits = pod_limits(pod);
  EXPECT_EQ(limits.at("cpu"), q("1010m"));     // app 1 + overhead 10m
  EXPECT_EQ(limits.at("memory"), q("656Mi"));  // app 512Mi + proxy 128Mi + overhead 16Mi
  Pod no_limits;
  no_limits.spec.containers = {container("a", "1")};
  no_limits.spec.overhead.insert_or_assign("cpu", q("10m"));
  EXPECT_TRUE(pod_limits(no_limits).empty());
}

// KEP-753: each init container runs next to the sidecars declared before it.
TEST(PodRequests, SidecarsBeforeEachInitContainerCount) {
  Pod pod;
  pod.spec.containers = {container("app", "300m")};
  pod.spec.init_containers = {container("a", "100m", true), container("b", "400m"),
                              container("c", "200m", true), container("d", "100m")};
  // regular + sidecars = 600m; init phases: b with a = 500m, d with a+c = 400m
  EXPECT_EQ(pod_requests(pod).at("cpu"), q("600m"));
  pod.spec.init_containers[1] = container("b", "700m");
  EXPECT_EQ(pod_requests(pod).at("cpu"), q("800m"));  // b with a
  pod.spec.init_containers[1] = container("b", "100m");
  pod.spec.init_containers[3] = container("d", "2");
  EXPECT_EQ(pod_requests(pod).at("cpu"), q("2300m"));  // d with a and c
}

TEST(PodRequests, PodLevelResourcesReplaceTheAggregate) {
  Pod pod;
  pod.spec.containers = {container("app", "300m")};
  pod.spec.containers[0].resources.requests.insert_or_assign("memory", q("1Gi"));
  pod.spec.resources.emplace().requests.insert_or_assign("cpu", q("2"));
  ResourceList requests = pod_requests(pod);
  EXPECT_EQ(requests.at("cpu"), q("2"));
  EXPECT_EQ(requests.at("memory"), q("1Gi"));
  EXPECT_EQ(pod_requests(pod, {.skip_pod_level_resources = true}).at("cpu"), q("300m"));
}

TEST(PodRequests, DuringAResizeCountsTheLargestOfDesiredAllocatedActual) {
  Pod pod;
  pod.spec.containers = {container("a", "500m"), container("b", "100m")};
  pod.status.container_statuses = {status("a", "300m", "400m"), status("b", "300m", "")};
  PodResourcesOptions with_status{.use_status_resources = true};
  EXPECT_EQ(pod_requests(pod).at("cpu"), q("600m"));
  // a: max(500, 300, 400) summed per kind: spec 600m, allocated 600m, actual 400+300 = 700m
  EXPECT_EQ(pod_requests(pod, with_status).at("cpu"), q("700m"));
  pod.status.conditions.push_back(
      {.type = "PodResizePending", .status = "True", .reason = "Infeasible"});
  EXPECT_TRUE(is_resize_infeasible(pod.status));
  EXPECT_EQ(pod_requests(pod, with_status).at("cpu"), q("700m"));
  pod.spec.containers[0] = container("a", "5");
  EXPECT_EQ(pod_requests(pod, with_status).at("cpu"), q("700m"));  // infeasible desire ignored
  pod.status.conditions[0].reason = "Deferred";
  EXPECT_EQ(pod_requests(pod, with_status).at("cpu"), q("5100m"));
}

TEST(PodLimits, DuringAResizeCountsTheLargerOfDesiredAndActual) {
  Pod pod;
  Container a;
  a.name = "a";
  a.resources.limits.insert_or_assign("memory", q("1Gi"));
  pod.spec.containers = {a};
  ContainerStatus s;
  s.name = "a";
  s.resources.emplace().limits.insert_or_assign("memory", q("2Gi"));
  pod.status.container_statuses = {s};
  EXPECT_EQ(pod_limits(pod).at("memory"), q("1Gi"));
  EXPECT_EQ(pod_limits(pod, {.use_status_resources = true}).at("memory"), q("2Gi"));
}

}  // namespace
}  // namespace tailor::kube
