// RBAC's decisions as pure functions (k8s.io/kubernetes plugin/pkg/auth/authorizer/rbac): what a
// request asks (RequestAttributes), whether a PolicyRule allows it, whether a binding's subject
// names the user, and kube-apiserver's 403 text for a request no rule allows.
#pragma once

#include <boost/json/fwd.hpp>
#include <string>
#include <vector>

#include "embedded/auth/user.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {

// authorizer.Attributes: a resource request (verb on group/resource[/subresource], in a namespace,
// maybe of one name) or a non-resource one (verb on a path).
struct RequestAttributes {
  UserInfo user{};
  std::string verb{};  // get, list, watch, create, update, patch, delete, deletecollection, ...
  bool resource_request = false;
  std::string api_group{};
  std::string api_version{};
  std::string resource{};
  std::string subresource{};
  std::string ns{};
  std::string name{};
  std::string path{};  // non-resource requests: the URL path
};

// rbacv1.PolicyRule.
struct PolicyRule {
  std::vector<std::string> verbs{};
  std::vector<std::string> api_groups{};
  std::vector<std::string> resources{};
  std::vector<std::string> resource_names{};
  std::vector<std::string> non_resource_urls{};
};

// rbacv1.Subject: kind User, Group or ServiceAccount (namespace: the binding's when empty).
struct Subject {
  std::string kind{};
  std::string name{};
  std::string ns{};
};

// RuleAllows: verbs ("*" or equal), then for resource requests API group ("*" or equal),
// resource ("*", "resource/subresource" exactly, or "*/subresource"), resourceNames (empty: any);
// for non-resource requests the path ("*", equal, or a prefix given as "/prefix*"). A rule with
// nonResourceURLs never allows a resource request and vice versa.
bool rule_allows(const RequestAttributes& request, const PolicyRule& rule);
// appliesTo: whether the subject names the user; binding_ns is a RoleBinding's namespace ("" for
// a ClusterRoleBinding, whose ServiceAccount subjects must name their namespace).
bool subject_applies(const Subject& subject, const UserInfo& user, const std::string& binding_ns);

// "User \"u\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"ns\"",
// "... at the cluster scope", "User \"u\" cannot get path \"/metrics\"" (forbiddenMessage).
std::string forbidden_message(const RequestAttributes& request);

// An authorizer's answer; reason: why it allowed ("RBAC: allowed by ClusterRoleBinding ..."), or
// what went wrong looking (a binding to a missing role) when it did not.
struct AuthorizationDecision {
  bool allowed = false;
  std::string reason{};
};

// kube-apiserver's 403: "<resource> \"<name>\" is forbidden: <forbidden_message>[: <reason>]",
// "forbidden: ..." for non-resource requests; details {name, group, kind: resource}.
StatusError forbidden(const RequestAttributes& request, const std::string& reason);

// The rules of a Role or ClusterRole object (absent fields: empty lists).
std::vector<PolicyRule> rules_of(const boost::json::object& role);
std::vector<Subject> subjects_of(const boost::json::object& binding);
boost::json::object rule_json(const PolicyRule& rule);
// A rule's list as JSON (rule_json; SelfSubjectRulesReview's status).
boost::json::array json_strings(const std::vector<std::string>& list);

}  // namespace tailor::embedded
