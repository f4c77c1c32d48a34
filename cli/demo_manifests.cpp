#include "cli/demo_manifests.h"

#include <algorithm>
#include <boost/json.hpp>
#include <stdexcept>

#include "kube/model/quantity.h"
#include "policy/resources.h"
#include "policy/types.h"

namespace tailor::cli::demo {
namespace {
namespace bj = boost::json;
constexpr std::int64_t kMi = 1024 * 1024;

std::int64_t memory_mi(const NodeView& node) {
  auto it = node.allocatable.find("memory");
  if (it == node.allocatable.end()) return 0;
  auto q = kube::Quantity::try_parse(it->second);
  return q ? q->value() / kMi : 0;
}

// Holds MiB of anonymous memory: tail keeps its one endless "line" and then blocks writing it
// into a pipe nobody reads.
std::string hold_memory(std::int64_t mi) {
  return "head -c " + std::to_string(mi) + "m /dev/zero | tail | sleep 86400";
}

// A fixed amount of work per second, so CPU use follows demand rather than the CPU limit.
constexpr const char* kCpuWork =
    "while :; do i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; usleep 700000; done";

bj::object resources(const std::string& cpu, const std::string& memory,
                     const std::string& cpu_limit, const std::string& memory_limit) {
  bj::object out{{"requests", bj::object{{"cpu", cpu}, {"memory", memory}}}};
  if (!cpu_limit.empty()) {
    out["limits"] = bj::object{{"cpu", cpu_limit}, {"memory", memory_limit}};
  }
  return out;
}

bj::object pod_spec(const std::string& script, bj::object resources, const std::string& node) {
  bj::object spec{{"terminationGracePeriodSeconds", 1},
                  {"containers", bj::array{bj::object{{"name", "app"},
                                                      {"image", "busybox"},
                                                      {"imagePullPolicy", "IfNotPresent"},
                                                      {"command", bj::array{"sh", "-c", script}},
                                                      {"resources", std::move(resources)}}}}};
  if (!node.empty()) spec["nodeSelector"] = bj::object{{"kubernetes.io/hostname", node}};
  return spec;
}

bj::object workload(const char* kind, const std::string& name, int replicas, bj::object spec) {
  bj::object labels{{"app", name}};
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"metadata", bj::object{{"name", name}, {"labels", labels}}},
          {"spec", bj::object{{"replicas", replicas},
                              {"selector", bj::object{{"matchLabels", labels}}},
                              {"template", bj::object{{"metadata", bj::object{{"labels", labels}}},
                                                      {"spec", std::move(spec)}}}}}};
}

bj::object policy(const std::string& name, const char* kind, const std::string& deferred_timeout) {
  bj::object update{{"mode", "InPlaceOrRecreate"}, {"minReplicas", 1}};
  if (!deferred_timeout.empty()) update["deferredTimeout"] = deferred_timeout;
  return {{"apiVersion", policy::kTailorApiVersion},
          {"kind", policy::kind_of(policy::PolicyApi::VerticalScalingPolicy)},
          {"metadata", bj::object{{"name", name}}},
          {"spec",
           bj::object{
               {"targetRef", bj::object{{"apiVersion", "apps/v1"}, {"kind", kind}, {"name", name}}},
               {"updatePolicy", std::move(update)},
               {"resourcePolicy",
                bj::object{{"containerPolicies",
                            bj::array{bj::object{
                                {"containerName", "*"},
                                {"minAllowed", bj::object{{"cpu", "10m"}, {"memory", "32Mi"}}},
                                {"maxAllowed", bj::object{{"cpu", "2"}, {"memory", "4Gi"}}},
                                {"controlledValues", "RequestsAndLimits"}}}}}}}}};
}

// What a web pod's memory request grows to (250Mi used, plus the recommender's margin).
constexpr std::int64_t kWebFinalMi = 300;

std::string mi(std::int64_t n) { return std::to_string(n) + "Mi"; }

}  // namespace

Plan plan_scenario(const std::vector<NodeView>& nodes) {
  std::vector<const NodeView*> ready;
  for (const auto& n : nodes) {
    if (n.ready && memory_mi(n) > 0) ready.push_back(&n);
  }
  if (ready.empty()) throw std::runtime_error("no Ready node with allocatable memory");
  auto by_memory = [](const NodeView* a, const NodeView* b) {
    return memory_mi(*a) < memory_mi(*b);
  };
  const NodeView& small = **std::min_element(ready.begin(), ready.end(), by_memory);
  const NodeView& big = **std::max_element(ready.begin(), ready.end(), by_memory);
  Plan plan{.small_node = small.name,
            .big_node = big.name,
            .small_memory_mi = memory_mi(small),
            .big_memory_mi = memory_mi(big)};
  // The grower, alone on the small node, uses 15% more than that node can allocate: its
  // requests follow the recommendation up in place until the next step no longer fits the node
  // at all (Infeasible). On the big node the ballast leaves room for the web pods as they grow
  // but not for the cache's grown request (Deferred); once the ballast is gone, the cache and
  // the grower's replacement both fit.
  plan.grower_mi = plan.small_memory_mi * 115 / 100;
  plan.cache_mi = 400;
  // What other pods (Tailor's own, when it runs in the cluster) already hold of the big node
  // is not the ballast's to hold.
  const std::int64_t big_free_mi = plan.big_memory_mi - big.requested_memory_mi;
  plan.ballast_mi = big_free_mi - plan.web_replicas * kWebFinalMi - 64 - 100;
  const std::int64_t after_ballast =
      plan.web_replicas * kWebFinalMi + plan.cache_mi * 6 / 5 + plan.grower_mi * 6 / 5 + 128;
  if (small.name == big.name) {
    plan.why_no_fallbacks = "one node only: no smaller node to be Infeasible on";
  } else if (plan.small_memory_mi > 4096) {
    plan.why_no_fallbacks =
        "the smallest node has more than 4 GiB: the demo will not use that much";
  } else if (big_free_mi < after_ballast || plan.big_memory_mi > 8192) {
    plan.why_no_fallbacks =
        "the largest node needs " + std::to_string(after_ballast) + "-8192 MiB free for the cases";
  } else {
    plan.fallbacks = true;
  }
  return plan;
}

std::vector<std::string> policies(const Plan& plan) {
  std::vector<std::string> out{bj::serialize(policy(kWeb, "Deployment", ""))};
  if (plan.fallbacks) {
    out.push_back(bj::serialize(policy(kGrower, "ReplicaSet", "")));
    // Long enough that the demo, not the timeout, resolves the Deferred resize.
    out.push_back(bj::serialize(policy(kCache, "Deployment", "15m")));
  }
  return out;
}

std::vector<std::string> workloads(const Plan& plan) {
  // The web pods' memory steps up after 40 s: a second recommendation, a second resize.
  const std::string web_script =
      "(" + hold_memory(100) + ") & (sleep 40; " + hold_memory(150) + ") & " + kCpuWork;
  std::vector<std::string> out{bj::serialize(
      workload("Deployment", kWeb, plan.web_replicas,
               pod_spec(web_script, resources("100m", "64Mi", "200m", "512Mi"), plan.big_node)))};
  if (!plan.fallbacks) return out;
  bj::object ballast{{"apiVersion", "v1"},
                     {"kind", "Pod"},
                     {"metadata", bj::object{{"name", kBallast}, {"labels", {{"app", kBallast}}}}},
                     {"spec", pod_spec("sleep 86400", resources("10m", mi(plan.ballast_mi), "", ""),
                                       plan.big_node)}};
  out.push_back(bj::serialize(ballast));
  out.push_back(bj::serialize(workload(
      "Deployment", kCache, 1,
      pod_spec(hold_memory(plan.cache_mi), resources("50m", "64Mi", "", ""), plan.big_node))));
  // Pinned to the small node for its first pod only: grower_unpin_patch() lifts the pin once that
  // pod is scheduled (a ReplicaSet, unlike a Deployment, does not roll its pods for that).
  out.push_back(bj::serialize(workload(
      "ReplicaSet", kGrower, 1,
      pod_spec(hold_memory(plan.grower_mi), resources("50m", "64Mi", "", ""), plan.small_node))));
  return out;
}

std::string grower_unpin_patch() {
  return R"({"spec":{"template":{"spec":{"nodeSelector":null}}}})";
}

}  // namespace tailor::cli::demo
