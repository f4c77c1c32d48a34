// RBAC's rule matching, subject matching and 403 wording, table-driven, with upstream's semantics
// (plugin/pkg/auth/authorizer/rbac RuleAllows, appliesTo; responsewriters.forbiddenMessage).
#include "embedded/auth/rbac_rules.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

RequestAttributes resource(std::string verb, std::string group, std::string res,
                           std::string sub = "", std::string name = "", std::string ns = "ns") {
  RequestAttributes a;
  a.user = {.name = "system:serviceaccount:ns:sa"};
  a.verb = std::move(verb);
  a.resource_request = true;
  a.api_group = std::move(group);
  a.resource = std::move(res);
  a.subresource = std::move(sub);
  a.name = std::move(name);
  a.ns = std::move(ns);
  return a;
}

RequestAttributes path(std::string verb, std::string p) {
  RequestAttributes a;
  a.user = {.name = "bob"};
  a.verb = std::move(verb);
  a.path = std::move(p);
  return a;
}

struct RuleCase {
  const char* name;
  PolicyRule rule;
  RequestAttributes request;
  bool allowed;
};

class RuleAllowsTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(RuleAllowsTest, MatchesAsUpstream) {
  EXPECT_EQ(rule_allows(GetParam().request, GetParam().rule), GetParam().allowed);
}

const PolicyRule kPods{.verbs = {"get", "patch"}, .api_groups = {""}, .resources = {"pods"}};
const PolicyRule kResize{.verbs = {"patch"}, .api_groups = {""}, .resources = {"pods/resize"}};

INSTANTIATE_TEST_SUITE_P(
    Rules, RuleAllowsTest,
    ::testing::Values(
        RuleCase{"VerbAndResource", kPods, resource("get", "", "pods"), true},
        RuleCase{"OtherVerb", kPods, resource("delete", "", "pods"), false},
        RuleCase{"OtherGroup", kPods, resource("get", "apps", "pods"), false},
        RuleCase{"ResourceDoesNotCoverSubresource", kPods, resource("patch", "", "pods", "resize"),
                 false},
        RuleCase{"SubresourceExactly", kResize, resource("patch", "", "pods", "resize"), true},
        RuleCase{"SubresourceDoesNotCoverResource", kResize, resource("patch", "", "pods"), false},
        RuleCase{"OtherSubresource", kResize, resource("patch", "", "pods", "status"), false},
        RuleCase{"EvictionIsCreate",
                 {.verbs = {"create"}, .api_groups = {""}, .resources = {"pods/eviction"}},
                 resource("create", "", "pods", "eviction"),
                 true},
        RuleCase{"StarSlashSubresource",
                 {.verbs = {"patch"}, .api_groups = {""}, .resources = {"*/resize"}},
                 resource("patch", "", "pods", "resize"),
                 true},
        RuleCase{"StarSlashSubresourceNeedsOne",
                 {.verbs = {"patch"}, .api_groups = {""}, .resources = {"*/resize"}},
                 resource("patch", "", "pods"),
                 false},
        RuleCase{"ResourceSlashStarIsLiteral",
                 {.verbs = {"patch"}, .api_groups = {""}, .resources = {"pods/*"}},
                 resource("patch", "", "pods", "resize"),
                 false},
        RuleCase{"StarCoversSubresources",
                 {.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}},
                 resource("patch", "", "pods", "resize"),
                 true},
        RuleCase{"StarVerb",
                 {.verbs = {"*"}, .api_groups = {""}, .resources = {"pods"}},
                 resource("deletecollection", "", "pods"),
                 true},
        RuleCase{"StarGroup",
                 {.verbs = {"get"}, .api_groups = {"*"}, .resources = {"deployments"}},
                 resource("get", "apps", "deployments"),
                 true},
        RuleCase{"ResourceNameMatches",
                 {.verbs = {"get"},
                  .api_groups = {""},
                  .resources = {"configmaps"},
                  .resource_names = {"a", "b"}},
                 resource("get", "", "configmaps", "", "b"),
                 true},
        RuleCase{"ResourceNameOther",
                 {.verbs = {"get"},
                  .api_groups = {""},
                  .resources = {"configmaps"},
                  .resource_names = {"a"}},
                 resource("get", "", "configmaps", "", "c"),
                 false},
        RuleCase{"ResourceNamesNeverCoverAList",
                 {.verbs = {"list"},
                  .api_groups = {""},
                  .resources = {"configmaps"},
                  .resource_names = {"a"}},
                 resource("list", "", "configmaps"),
                 false},
        RuleCase{"NonResourceExact",
                 {.verbs = {"get"}, .non_resource_urls = {"/metrics"}},
                 path("get", "/metrics"),
                 true},
        RuleCase{"NonResourceOtherPath",
                 {.verbs = {"get"}, .non_resource_urls = {"/metrics"}},
                 path("get", "/metrics/x"),
                 false},
        RuleCase{"NonResourcePrefix",
                 {.verbs = {"get"}, .non_resource_urls = {"/apis/*"}},
                 path("get", "/apis/apps/v1"),
                 true},
        RuleCase{"NonResourcePrefixNeedsItsSlash",
                 {.verbs = {"get"}, .non_resource_urls = {"/api/*"}},
                 path("get", "/apis"),
                 false},
        RuleCase{"NonResourceStar",
                 {.verbs = {"*"}, .non_resource_urls = {"*"}},
                 path("post", "/anything"),
                 true},
        RuleCase{"NonResourceVerb",
                 {.verbs = {"get"}, .non_resource_urls = {"/healthz"}},
                 path("post", "/healthz"),
                 false},
        RuleCase{"ResourceRuleNeverCoversAPath",
                 {.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}},
                 path("get", "/api"),
                 false},
        RuleCase{"PathRuleNeverCoversAResource",
                 {.verbs = {"*"}, .non_resource_urls = {"*"}},
                 resource("get", "", "pods"),
                 false}),
    [](const auto& info) { return std::string(info.param.name); });

struct SubjectCase {
  const char* name;
  Subject subject;
  std::string binding_ns;
  bool applies;
};

class SubjectAppliesTest : public ::testing::TestWithParam<SubjectCase> {};

TEST_P(SubjectAppliesTest, NamesTheUser) {
  const UserInfo sa = service_account_user("ns", "sa", "uid-1");
  EXPECT_EQ(subject_applies(GetParam().subject, sa, GetParam().binding_ns), GetParam().applies);
}

INSTANTIATE_TEST_SUITE_P(
    Subjects, SubjectAppliesTest,
    ::testing::Values(
        SubjectCase{"ServiceAccountInItsNamespace", {"ServiceAccount", "sa", "ns"}, "", true},
        SubjectCase{
            "ServiceAccountTakesTheBindingsNamespace", {"ServiceAccount", "sa", ""}, "ns", true},
        SubjectCase{"ServiceAccountWithoutAnyNamespace", {"ServiceAccount", "sa", ""}, "", false},
        SubjectCase{
            "ServiceAccountOfAnotherNamespace", {"ServiceAccount", "sa", "other"}, "ns", false},
        SubjectCase{"UserByFullName", {"User", "system:serviceaccount:ns:sa", ""}, "", true},
        SubjectCase{"GroupOfAllServiceAccounts", {"Group", "system:serviceaccounts", ""}, "", true},
        SubjectCase{"GroupOfTheNamespace", {"Group", "system:serviceaccounts:ns", ""}, "", true},
        SubjectCase{"Authenticated", {"Group", "system:authenticated", ""}, "", true},
        SubjectCase{"OtherGroup", {"Group", "system:masters", ""}, "", false},
        SubjectCase{"UnknownKind", {"Robot", "sa", "ns"}, "", false}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(ForbiddenTest, NamespacedSubresourceOfANamedObject) {
  StatusError e = forbidden(resource("patch", "", "pods", "resize", "x"), "");
  EXPECT_EQ(e.code(), 403);
  EXPECT_EQ(e.reason(), "Forbidden");
  EXPECT_EQ(e.message(),
            "pods \"x\" is forbidden: User \"system:serviceaccount:ns:sa\" cannot patch resource "
            "\"pods/resize\" in API group \"\" in the namespace \"ns\"");
  const boost::json::value body = boost::json::parse(e.to_json());
  EXPECT_EQ(body.at("details"), boost::json::parse(R"({"name":"x","kind":"pods"})"));
}

TEST(ForbiddenTest, ClusterScopedListInAGroup) {
  EXPECT_EQ(forbidden(resource("list", "rbac.authorization.k8s.io", "clusterroles", "", "", ""), "")
                .message(),
            "clusterroles.rbac.authorization.k8s.io is forbidden: User "
            "\"system:serviceaccount:ns:sa\" cannot list resource \"clusterroles\" in API group "
            "\"rbac.authorization.k8s.io\" at the cluster scope");
}

TEST(ForbiddenTest, NonResourcePathWithAReason) {
  EXPECT_EQ(forbidden(path("get", "/metrics"),
                      "RBAC: clusterrole.rbac.authorization.k8s.io "
                      "\"gone\" not found")
                .message(),
            "forbidden: User \"bob\" cannot get path \"/metrics\": RBAC: "
            "clusterrole.rbac.authorization.k8s.io \"gone\" not found");
}

TEST(RulesOfTest, ReadsEveryListAndWritesThemBack) {
  const auto role =
      boost::json::parse(R"({"rules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],)"
                         R"("resourceNames":["a"]},{"verbs":["get"],"nonResourceURLs":["/x"]}]})")
          .as_object();
  std::vector<PolicyRule> rules = rules_of(role);
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].resource_names, std::vector<std::string>{"a"});
  EXPECT_EQ(rules[1].non_resource_urls, std::vector<std::string>{"/x"});
  EXPECT_EQ(boost::json::value(rule_json(rules[0])), role.at("rules").at(0));
}

}  // namespace
}  // namespace tailor::embedded
