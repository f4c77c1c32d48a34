// The pure decisions of the usage stream's trust: which node a client certificate names and
// whether a window's pod is bound to it.
#include "controller/usage/usage_trust.h"

#include <gtest/gtest.h>

namespace tailor::controller::usage {
namespace {

using Attributes = std::vector<std::pair<std::string, std::string>>;

TEST(UsageTrust, ParsesDistinguishedNamesWithEscapes) {
  EXPECT_EQ(parse_distinguished_name("CN=system:node:n1,O=system:nodes"),
            (Attributes{{"CN", "system:node:n1"}, {"O", "system:nodes"}}));
  EXPECT_EQ(parse_distinguished_name("O=system:nodes+CN=system:node:n1"),
            (Attributes{{"O", "system:nodes"}, {"CN", "system:node:n1"}}));
  // An escaped comma is part of the value, not a new attribute.
  EXPECT_EQ(parse_distinguished_name("CN=system:node:a\\,O=system:nodes"),
            (Attributes{{"CN", "system:node:a,O=system:nodes"}}));
  EXPECT_EQ(parse_distinguished_name("CN=x\\\\,O=y"), (Attributes{{"CN", "x\\"}, {"O", "y"}}));
  EXPECT_TRUE(parse_distinguished_name("no equals sign").empty());
  EXPECT_TRUE(parse_distinguished_name("=value").empty());
  EXPECT_TRUE(parse_distinguished_name("CN=a,,O=b").empty());
}

TEST(UsageTrust, ANodeIdentityIsAKubeletStyleSubject) {
  EXPECT_EQ(node_of_subject("CN=system:node:worker-1,O=system:nodes"), "worker-1");
  EXPECT_EQ(node_of_subject("O=system:nodes,CN=system:node:worker-1"), "worker-1");  // RFC 2253
  EXPECT_EQ(node_of_subject("O=other,O=system:nodes,CN=system:node:w"), "w");
  for (const char* subject : {
           "CN=system:node:worker-1",                           // not in system:nodes
           "CN=system:node:,O=system:nodes",                    // no node name
           "CN=worker-1,O=system:nodes",                        // not a node user
           "CN=system:nodes,O=system:nodes",                    // the group, not a node
           "CN=system:node:a,CN=system:node:b,O=system:nodes",  // which one?
           "CN=system:node:a\\,O=system:nodes",                 // escaped: one CN, no O
           "O=system:nodes",                                    // no user at all
           "",                                                  //
       }) {
    EXPECT_EQ(node_of_subject(subject), std::nullopt) << subject;
  }
}

TEST(UsageTrust, OnlyPodsBoundToTheReportingNodeAreTaken) {
  EXPECT_EQ(binding_problem("node-a", std::string("node-a")), std::nullopt);
  EXPECT_EQ(binding_problem("node-a", std::string("node-b")), Rejection::kWrongNode);
  EXPECT_EQ(binding_problem("node-a", std::string("")), Rejection::kWrongNode);  // unscheduled
  EXPECT_EQ(binding_problem("", std::string("")), Rejection::kWrongNode);
  EXPECT_EQ(binding_problem("node-a", std::nullopt), Rejection::kUnknownPod);
}

TEST(UsageTrust, EveryRejectionHasItsMetricLabel) {
  std::vector<std::string> labels;
  for (Rejection r : kRejections) labels.emplace_back(rejection_reason(r));
  EXPECT_EQ(labels, (std::vector<std::string>{"unauthenticated", "wrong_node", "unknown_pod",
                                              "rate_limited", "invalid"}));
}

}  // namespace
}  // namespace tailor::controller::usage
