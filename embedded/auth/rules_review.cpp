#include "embedded/auth/rules_review.h"

#include <boost/json.hpp>
#include <string>

#include "embedded/api/rest.h"
#include "embedded/auth/access_review.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace bj = boost::json;

bj::object review_self_rules(bj::object review, const RbacAuthorizer::UserRules& rules) {
  bj::array resource_rules, non_resource_rules;
  for (const PolicyRule& rule : rules.rules) {
    if (!rule.non_resource_urls.empty()) {
      non_resource_rules.push_back(
          bj::object{{"verbs", json_strings(rule.verbs)},
                     {"nonResourceURLs", json_strings(rule.non_resource_urls)}});
      continue;
    }
    bj::object r{{"verbs", json_strings(rule.verbs)},
                 {"apiGroups", json_strings(rule.api_groups)},
                 {"resources", json_strings(rule.resources)}};
    if (!rule.resource_names.empty()) r["resourceNames"] = json_strings(rule.resource_names);
    resource_rules.push_back(std::move(r));
  }
  bj::object status{{"resourceRules", std::move(resource_rules)},
                    {"nonResourceRules", std::move(non_resource_rules)},
                    {"incomplete", !rules.errors.empty()}};
  if (!rules.errors.empty()) {
    std::string text = rules.errors.size() == 1 ? rules.errors[0] : "[";
    for (std::size_t i = 0; rules.errors.size() > 1 && i < rules.errors.size(); ++i) {
      text += (i ? ", " : "") + rules.errors[i];
    }
    if (rules.errors.size() > 1) text += "]";
    status["evaluationError"] = text;
  }
  review["kind"] = "SelfSubjectRulesReview";
  review["apiVersion"] = "authorization.k8s.io/v1";
  if (!review.contains("spec") || !review["spec"].is_object()) review["spec"] = bj::object{};
  review["status"] = std::move(status);
  return review;
}

SubresourceHandler self_subject_rules_review_handler(std::shared_ptr<const RbacAuthorizer> rbac) {
  return [rbac](const RestContext& c) {
    bj::object review = review_body(c);
    std::string ns;
    if (const bj::value* spec = review.if_contains("spec"); spec && spec->is_object()) {
      if (const bj::value* n = spec->as_object().if_contains("namespace"); n && n->is_string()) {
        ns = std::string(n->as_string());
      }
    }
    review["metadata"] = bj::object{{"creationTimestamp", kube::format_rfc3339(c.now())}};
    review = review_self_rules(std::move(review), rbac->rules_for(c.user, ns));
    return json_response(201, bj::serialize(review));
  };
}

}  // namespace tailor::embedded
