// SelfSubjectRulesReview's answer (auth/rules_review.h) in Kubernetes' shape.
#include "embedded/auth/rules_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

TEST(RulesReviewTest, SplitsResourceAndNonResourceRules) {
  RbacAuthorizer::UserRules rules;
  rules.rules = {{.verbs = {"get", "patch"}, .api_groups = {""}, .resources = {"pods/resize"}},
                 {.verbs = {"get"},
                  .api_groups = {""},
                  .resources = {"configmaps"},
                  .resource_names = {"state"}},
                 {.verbs = {"get"}, .non_resource_urls = {"/api", "/api/*"}}};
  const bj::object review =
      review_self_rules(bj::object{{"apiVersion", "authorization.k8s.io/v1"},
                                   {"kind", "SelfSubjectRulesReview"},
                                   {"spec", bj::object{{"namespace", "default"}}}},
                        rules);
  EXPECT_EQ(review.at("spec").at("namespace"), "default");
  const bj::object& status = review.at("status").as_object();
  EXPECT_EQ(status.at("incomplete"), false);
  EXPECT_FALSE(status.contains("evaluationError"));
  EXPECT_EQ(status.at("resourceRules"), (bj::array{bj::object{{"verbs", {"get", "patch"}},
                                                              {"apiGroups", {""}},
                                                              {"resources", {"pods/resize"}}},
                                                   bj::object{{"verbs", {"get"}},
                                                              {"apiGroups", {""}},
                                                              {"resources", {"configmaps"}},
                                                              {"resourceNames", {"state"}}}}));
  EXPECT_EQ(status.at("nonResourceRules"),
            (bj::array{bj::object{{"verbs", {"get"}}, {"nonResourceURLs", {"/api", "/api/*"}}}}));
}

TEST(RulesReviewTest, AMissingRoleMakesTheAnswerIncomplete) {
  RbacAuthorizer::UserRules rules;
  rules.errors = {"clusterrole.rbac.authorization.k8s.io \"gone\" not found"};
  const bj::object review = review_self_rules(bj::object{}, rules);
  EXPECT_EQ(review.at("kind"), "SelfSubjectRulesReview");
  EXPECT_EQ(review.at("status").at("incomplete"), true);
  EXPECT_EQ(review.at("status").at("evaluationError"),
            "clusterrole.rbac.authorization.k8s.io \"gone\" not found");
  EXPECT_EQ(review.at("status").at("resourceRules"), bj::array{});
}

}  // namespace
}  // namespace tailor::embedded
