#include "embedded/server/simulated_nodes.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

TEST(SimulatedNodes, ReadyNodesWithCanonicalQuantities) {
  std::vector<std::string> nodes = simulated_nodes(R"(
nodes:
- name: node-1
  labels: {zone: a}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  allocatable: {cpu: 3800m, memory: 7168Mi}
- name: node-2
  capacity: {cpu: 2000m, memory: "2147483648"}
)");
  ASSERT_EQ(nodes.size(), 2u);
  boost::json::value n1 = boost::json::parse(nodes[0]);
  EXPECT_EQ(n1.at("metadata").at("labels").at("zone").as_string(), "a");
  EXPECT_EQ(boost::json::serialize(n1.at("status").at("allocatable")),
            R"({"cpu":"3800m","memory":"7Gi"})");
  EXPECT_EQ(n1.at("status").at("conditions").at(0).at("status").as_string(), "True");
  boost::json::value n2 = boost::json::parse(nodes[1]);
  EXPECT_EQ(boost::json::serialize(n2.at("status").at("allocatable")),
            R"({"cpu":"2","memory":"2147483648"})");
}

TEST(SimulatedNodes, BadFilesNameTheProblem) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  for (Case c : std::vector<Case>{
           {"nodes: 3", "expected a top-level \"nodes\" list"},
           {"nodes:\n- capacity: {cpu: 1}", "nodes[0]: needs a name"},
           {"nodes:\n- name: a", "nodes[0] (a): needs capacity"},
           {"nodes:\n- name: a\n  capacity: {cpu: lots}", "nodes[0] (a).capacity.cpu: "},
           {"nodes: [", "not YAML: "},
       }) {
    try {
      simulated_nodes(c.yaml);
      ADD_FAILURE() << "accepted " << c.yaml;
    } catch (const NodesFileError& e) {
      EXPECT_TRUE(std::string(e.what()).starts_with(c.message)) << e.what();
    }
  }
}

}  // namespace
}  // namespace tailor::embedded
