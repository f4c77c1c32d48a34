#include "node-agent/allocation/resource_bounds.h"

#include <gtest/gtest.h>

#include "tests/node-agent/allocation/resize_manager_fakes.h"

namespace tailor::node::allocation {
namespace {

using testing::container;
using testing::make_pod;

struct BoundsCase {
  const char* name;
  kube::Pod pod;
  std::optional<std::string> want;
};

kube::Pod with_overhead(kube::Pod pod, const std::string& memory) {
  pod.spec.overhead = {{"memory", kube::Quantity::parse(memory)}};
  return pod;
}

kube::Pod with_init(kube::Pod pod, const kube::Container& init) {
  pod.spec.init_containers.push_back(init);
  return pod;
}

TEST(UnrepresentableResources, Table) {
  const BoundsCase cases[] = {
      {"ordinary", make_pod("p", {container("a", {"500m", "1", "1Gi", "2Gi"})}), std::nullopt},
      {"largest cpu that fits", make_pod("p", {container("a", {"", "92233720368547m", "", ""})}),
       std::nullopt},
      {"one milli-CPU more", make_pod("p", {container("a", {"", "92233720368548m", "", ""})}),
       "container \"a\": limits.cpu 92233720368548m is more than a cgroup can hold (at most "
       "92233720368547m)"},
      {"cpu request 1e18", make_pod("p", {container("a", {"1e18", "", "", ""})}),
       "container \"a\": requests.cpu 1e18 is more than a cgroup can hold (at most "
       "92233720368547m)"},
      {"memory 3Ei fits", make_pod("p", {container("a", {"", "", "", "3Ei"})}), std::nullopt},
      {"memory beyond int64", make_pod("p", {container("a", {"", "", "1e19", ""})}),
       "container \"a\": requests.memory 10e18 is more than a cgroup can hold (at most "
       "4611686018427387903)"},
      {"sum of limits",
       make_pod("p", {container("a", {"", "", "", "3Ei"}), container("b", {"", "", "", "2Ei"})}),
       "pod: limits (sum).memory 5Ei is more than a cgroup can hold (at most "
       "4611686018427387903)"},
      {"overhead counts",
       with_overhead(make_pod("p", {container("a", {"", "", "3Ei", ""})}), "2Ei"),
       "pod: requests (sum).memory 5Ei is more than a cgroup can hold (at most "
       "4611686018427387903)"},
      {"init container",
       with_init(make_pod("p", {container("a", {"100m", "", "", ""})}),
                 container("init", {"", "1e15", "", ""})),
       "container \"init\": limits.cpu 1e15 is more than a cgroup can hold (at most "
       "92233720368547m)"},
  };
  for (const BoundsCase& c : cases) {
    EXPECT_EQ(unrepresentable_resources(c.pod), c.want) << c.name;
  }
}

}  // namespace
}  // namespace tailor::node::allocation
