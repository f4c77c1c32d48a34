// The scheduler's filters and messages, as kube-scheduler words them.
#include "embedded/controllers/scheduling.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/model/quantity.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object node(const std::string& json) { return bj::parse(json).as_object(); }

const char* kNode = R"({"metadata":{"name":"n1","labels":{"zone":"a"}},
  "status":{"allocatable":{"cpu":"2","memory":"4Gi","pods":"3"},
            "conditions":[{"type":"Ready","status":"True"}]}})";

bj::object pod(const std::string& spec_json = "{}") {
  return bj::object{{"metadata", bj::object{{"name", "p"}}}, {"spec", bj::parse(spec_json)}};
}

kube::ResourceList cpu_mem(const char* cpu, const char* mem) {
  return {{"cpu", kube::Quantity::parse(cpu)}, {"memory", kube::Quantity::parse(mem)}};
}

TEST(SchedulingTest, FitsWithinAllocatableMinusUsage) {
  NodeUsage usage{cpu_mem("1500m", "1Gi"), 1};
  EXPECT_TRUE(filter_failures(pod(), cpu_mem("500m", "3Gi"), node(kNode), usage).empty());
  EXPECT_EQ(filter_failures(pod(), cpu_mem("501m", "3Gi"), node(kNode), usage),
            std::vector<std::string>{"Insufficient cpu"});
  EXPECT_EQ(filter_failures(pod(), cpu_mem("1", "4Gi"), node(kNode), usage),
            (std::vector<std::string>{"Insufficient cpu", "Insufficient memory"}));
}

TEST(SchedulingTest, PodCountAndExtendedResources) {
  NodeUsage full{{}, 3};
  EXPECT_EQ(filter_failures(pod(), {}, node(kNode), full),
            std::vector<std::string>{"Too many pods"});
  kube::ResourceList gpu{{"nvidia.com/gpu", kube::Quantity::parse("1")}};
  EXPECT_EQ(filter_failures(pod(), gpu, node(kNode), {}),
            std::vector<std::string>{"Insufficient nvidia.com/gpu"});
}

TEST(SchedulingTest, FiltersInKubeSchedulerOrder) {
  bj::object cordoned = node(kNode);
  cordoned["spec"] = bj::object{{"unschedulable", true}};
  // Unschedulable is reported alone even when resources do not fit either.
  EXPECT_EQ(filter_failures(pod(), cpu_mem("8", "1Gi"), cordoned, {}),
            std::vector<std::string>{"node(s) were unschedulable"});
  EXPECT_TRUE(filter_failures(pod(R"({"tolerations":[{"key":"node.kubernetes.io/unschedulable",
      "operator":"Exists","effect":"NoSchedule"}]})"),
                              {}, cordoned, {})
                  .empty());

  bj::object tainted = node(kNode);
  tainted["spec"] =
      bj::parse(R"({"taints":[{"key":"dedicated","value":"gpu","effect":"NoSchedule"}]})");
  EXPECT_EQ(filter_failures(pod(), {}, tainted, {}),
            std::vector<std::string>{"node(s) had untolerated taint {dedicated: gpu}"});
  EXPECT_TRUE(filter_failures(pod(R"({"tolerations":[{"key":"dedicated","operator":"Equal",
      "value":"gpu"}]})"),
                              {}, tainted, {})
                  .empty());

  bj::object not_ready = node(kNode);
  not_ready["status"].as_object()["conditions"] =
      bj::parse(R"([{"type":"Ready","status":"False"}])");
  EXPECT_EQ(
      filter_failures(pod(), {}, not_ready, {}),
      std::vector<std::string>{"node(s) had untolerated taint {node.kubernetes.io/not-ready: }"});
}

TEST(SchedulingTest, NodeSelectorAndRequiredAffinity) {
  const std::string mismatch = "node(s) didn't match Pod's node affinity/selector";
  EXPECT_TRUE(
      filter_failures(pod(R"({"nodeSelector":{"zone":"a"}})"), {}, node(kNode), {}).empty());
  EXPECT_EQ(filter_failures(pod(R"({"nodeSelector":{"zone":"b"}})"), {}, node(kNode), {}),
            std::vector<std::string>{mismatch});
  auto affinity = [](const std::string& term) {
    return pod(R"({"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":
      {"nodeSelectorTerms":[)" +
               term + "]}}}}");
  };
  EXPECT_TRUE(filter_failures(affinity(R"({"matchFields":[{"key":"metadata.name","operator":"In",
      "values":["n1"]}]})"),
                              {}, node(kNode), {})
                  .empty());
  EXPECT_EQ(filter_failures(affinity(R"({"matchFields":[{"key":"metadata.name","operator":"In",
      "values":["n2"]}]})"),
                            {}, node(kNode), {}),
            std::vector<std::string>{mismatch});
  EXPECT_TRUE(filter_failures(affinity(R"({"matchExpressions":[{"key":"zone","operator":"NotIn",
      "values":["b"]}]},{"matchExpressions":[]})"),
                              {}, node(kNode), {})
                  .empty());
  EXPECT_EQ(filter_failures(
                affinity(R"({"matchExpressions":[{"key":"zone","operator":"DoesNotExist"}]})"), {},
                node(kNode), {}),
            std::vector<std::string>{mismatch});
}

TEST(SchedulingTest, UnschedulableMessages) {
  EXPECT_EQ(unschedulable_message({{"Insufficient cpu"}, {"Insufficient cpu"}}),
            "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 "
            "No preemption victims found for incoming pod..");
  EXPECT_EQ(unschedulable_message({{"Insufficient cpu", "Insufficient memory"},
                                   {"node(s) were unschedulable"},
                                   {"Insufficient cpu"}}),
            "0/3 nodes are available: 1 Insufficient memory, 1 node(s) were unschedulable, 2 "
            "Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful "
            "for scheduling, 2 No preemption victims found for incoming pod..");
  EXPECT_EQ(unschedulable_message({}), "no nodes available to schedule pods");
}

TEST(SchedulingTest, CountsResizedPodsAtTheirLargestResources) {
  // Desired 2 cpu (resize pending but feasible), allocated 1, actual 500m: counts 2.
  bj::object p = bj::parse(R"({"metadata":{"name":"p"},
    "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"2"}}}]},
    "status":{"conditions":[{"type":"PodResizePending","status":"True","reason":"Deferred"}],
      "containerStatuses":[{"name":"c","allocatedResources":{"cpu":"1"},
        "resources":{"requests":{"cpu":"500m"}}}]}})")
                     .as_object();
  EXPECT_EQ(scheduling_requests(p).at("cpu"), kube::Quantity::parse("2"));
  // Infeasible: the desired size does not count.
  p["status"].as_object()["conditions"].as_array()[0].as_object()["reason"] = "Infeasible";
  EXPECT_EQ(scheduling_requests(p).at("cpu"), kube::Quantity::parse("1"));
}

TEST(SchedulingTest, OverheadCounts) {
  bj::object p = bj::parse(R"({"metadata":{"name":"p"},"spec":{"overhead":{"cpu":"250m"},
    "containers":[{"name":"c","resources":{"requests":{"cpu":"1"}}}]}})")
                     .as_object();
  EXPECT_EQ(scheduling_requests(p).at("cpu"), kube::Quantity::parse("1250m"));
}

TEST(SchedulingTest, PicksTheLeastAllocatedNode) {
  bj::object a = node(kNode), b = node(kNode);
  NodeUsage busy{cpu_mem("1500m", "1Gi"), 1}, idle{};
  std::vector<const bj::object*> nodes{&a, &b};
  EXPECT_EQ(pick_least_allocated(nodes, {&busy, &idle}, cpu_mem("100m", "100Mi")), 1u);
  EXPECT_EQ(pick_least_allocated(nodes, {&idle, &busy}, cpu_mem("100m", "100Mi")), 0u);
}

}  // namespace
}  // namespace tailor::embedded
