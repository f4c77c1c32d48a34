// networking.k8s.io/v1 NetworkPolicies: SetDefaults_NetworkPolicy and ValidateNetworkPolicySpec,
// field paths and messages as kube-apiserver words them.
#include "embedded/controllers/network_policies.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

struct DefaultCase {
  const char* spec;       // as written
  const char* defaulted;  // as stored
};

TEST(NetworkPolicies, DefaultedAsKubeApiserver) {
  const DefaultCase cases[] = {
      // No podSelector: the empty one (all pods); no rules: an Ingress policy (deny all).
      {R"({})", R"({"podSelector":{},"policyTypes":["Ingress"]})"},
      {R"({"podSelector":{"matchLabels":{"a":"b"}},"ingress":[{"ports":[{"port":80}]}]})",
       R"({"podSelector":{"matchLabels":{"a":"b"}},"ingress":[{"ports":[{"port":80,)"
       R"("protocol":"TCP"}]}],"policyTypes":["Ingress"]})"},
      // Egress rules make it an Ingress and Egress policy; a protocol given is kept.
      {R"({"podSelector":{},"egress":[{"ports":[{"port":53,"protocol":"UDP"},{"port":"dns"}]}]})",
       R"({"podSelector":{},"egress":[{"ports":[{"port":53,"protocol":"UDP"},{"port":"dns",)"
       R"("protocol":"TCP"}]}],"policyTypes":["Ingress","Egress"]})"},
      // policyTypes given are left alone, even with egress rules.
      {R"({"podSelector":{},"policyTypes":["Egress"],"egress":[{}]})",
       R"({"podSelector":{},"policyTypes":["Egress"],"egress":[{}]})"},
      // An empty egress list is no egress rule.
      {R"({"podSelector":{},"egress":[]})",
       R"({"podSelector":{},"egress":[],"policyTypes":["Ingress"]})"},
  };
  for (const DefaultCase& c : cases) {
    bj::object policy{{"spec", bj::parse(c.spec)}};
    default_network_policy(policy);
    EXPECT_EQ(policy["spec"], bj::parse(c.defaulted)) << c.spec;
  }
}

struct Case {
  const char* spec;                 // spec as JSON
  std::vector<std::string> causes;  // "field: message"
};

TEST(NetworkPolicies, ValidatedAsKubeApiserver) {
  const Case cases[] = {
      // The chart's policy.
      {R"({"podSelector":{"matchLabels":{"app.kubernetes.io/name":"tailor"}},
           "policyTypes":["Ingress"],
           "ingress":[{"from":[{"podSelector":{"matchLabels":{"component":"node-agent"}}}],
                       "ports":[{"port":"usage","protocol":"TCP"}]},
                      {"ports":[{"port":"webhook","protocol":"TCP"}]}]})",
       {}},
      {R"({"podSelector":{},"egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/8",
           "except":["10.1.0.0/16"]}},{"namespaceSelector":{},"podSelector":{}}],
           "ports":[{"port":30000,"endPort":32767,"protocol":"UDP"}]}],
           "policyTypes":["Ingress","Egress"]})",
       {}},
      {R"({"podSelector":{},"ingress":[{"ports":[{"port":80,"protocol":"HTTP"}]}]})",
       {"spec.ingress[0].ports[0].protocol: Unsupported value: \"HTTP\": supported values: "
        "\"TCP\", \"UDP\", \"SCTP\""}},
      {R"({"podSelector":{},"ingress":[{"ports":[{"port":0},{"port":70000}]}]})",
       {"spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive",
        "spec.ingress[0].ports[1].port: Invalid value: 70000: must be between 1 and 65535, "
        "inclusive"}},
      {R"({"podSelector":{},"egress":[{"ports":[{"port":8080,"endPort":80}]}]})",
       {"spec.egress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to "
        "`port`"}},
      {R"({"podSelector":{},"egress":[{"ports":[{"port":"http","endPort":90},{"endPort":90}]}]})",
       {"spec.egress[0].ports[0].endPort: Invalid value: 90: may not be specified when `port` "
        "is non-numeric",
        "spec.egress[0].ports[1].endPort: Invalid value: 90: may not be specified when `port` "
        "is not specified"}},
      {R"({"podSelector":{},"ingress":[{"ports":[{"port":"Web_Port"}]}]})",
       {"spec.ingress[0].ports[0].port: Invalid value: \"Web_Port\": must contain only "
        "alpha-numeric characters (a-z, 0-9), and hyphens (-)"}},
      {R"({"podSelector":{},"ingress":[{"from":[{}]}]})",
       {"spec.ingress[0].from[0]: Required value: must specify a peer"}},
      {R"({"podSelector":{},"egress":[{"to":[{"ipBlock":{"cidr":"10.0.0.0/8"},
           "podSelector":{}}]}]})",
       {"spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer"}},
      {R"({"podSelector":{},"ingress":[{"from":[{"ipBlock":{}},{"ipBlock":{"cidr":"10.0.0.300/8"}},
           {"ipBlock":{"cidr":"10.0.0.0/16","except":["10.0.0.0/16","192.168.0.0/24","x"]}}]}]})",
       {"spec.ingress[0].from[0].ipBlock.cidr: Required value",
        "spec.ingress[0].from[1].ipBlock.cidr: Invalid value: \"10.0.0.300/8\": must be a valid "
        "CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)",
        "spec.ingress[0].from[2].ipBlock.except[0]: Invalid value: \"10.0.0.0/16\": must be a "
        "strict subset of `cidr`",
        "spec.ingress[0].from[2].ipBlock.except[1]: Invalid value: \"192.168.0.0/24\": must be a "
        "strict subset of `cidr`",
        "spec.ingress[0].from[2].ipBlock.except[2]: Invalid value: \"x\": must be a valid CIDR "
        "value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"}},
      {R"({"podSelector":{},"egress":[{"to":[{"ipBlock":{"cidr":"2001:db8::/32",
           "except":["2001:db8:1::/48"]}}]}]})",
       {}},
      {R"({"podSelector":{"matchExpressions":[{"key":"tier","operator":"In"},
           {"key":"env","operator":"Exists","values":["x"]},{"key":"-bad","operator":"Is"}]}})",
       {"spec.podSelector.matchExpressions[0].values: Required value: must be specified when "
        "`operator` is 'In' or 'NotIn'",
        "spec.podSelector.matchExpressions[1].values: Forbidden: may not be specified when "
        "`operator` is 'Exists' or 'DoesNotExist'",
        "spec.podSelector.matchExpressions[2].operator: Invalid value: \"Is\": not a valid "
        "selector operator",
        "spec.podSelector.matchExpressions[2].key: Invalid value: \"-bad\": name part must "
        "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
        "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
        "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"}},
      {R"({"podSelector":{},"ingress":[{"from":[{"namespaceSelector":{"matchLabels":
           {"a/b/c":"x"}}}]}]})",
       {"spec.ingress[0].from[0].namespaceSelector.matchLabels: Invalid value: \"a/b/c\": a "
        "qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start "
        "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
        "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an "
        "optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"}},
      {R"({"podSelector":{},"policyTypes":["Ingress","Egress","Ingress"]})",
       {"spec.policyTypes: Invalid value: []networking.PolicyType{\"Ingress\", \"Egress\", "
        "\"Ingress\"}: may not specify more than two policyTypes"}},
      {R"({"podSelector":{},"policyTypes":["ingress"]})",
       {"spec.policyTypes[0]: Unsupported value: \"ingress\": supported values: \"Ingress\", "
        "\"Egress\""}},
  };
  for (const Case& c : cases) {
    bj::object policy{{"spec", bj::parse(c.spec)}};
    std::vector<std::string> got;
    for (const FieldCause& f : network_policy_errors(policy)) {
      got.push_back(f.field + ": " + f.message);
    }
    EXPECT_EQ(got, c.causes) << c.spec;
  }
}

}  // namespace
}  // namespace tailor::embedded
