#include "embedded/auth/rbac_rules.h"

#include <algorithm>
#include <boost/json.hpp>

#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

bool matches_or_all(const std::vector<std::string>& list, const std::string& value) {
  return contains(list, "*") || contains(list, value);
}

bool resource_matches(const PolicyRule& rule, const RequestAttributes& r) {
  const std::string combined =
      r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  for (const std::string& allowed : rule.resources) {
    if (allowed == "*" || allowed == combined) return true;
    if (!r.subresource.empty() && allowed == "*/" + r.subresource) return true;
  }
  return false;
}

bool resource_name_matches(const PolicyRule& rule, const std::string& name) {
  return rule.resource_names.empty() || contains(rule.resource_names, name);
}

bool non_resource_url_matches(const PolicyRule& rule, const std::string& path) {
  for (const std::string& url : rule.non_resource_urls) {
    if (url == "*" || url == path) return true;
    if (url.ends_with('*') && path.starts_with(std::string_view(url).substr(0, url.size() - 1)))
      return true;
  }
  return false;
}

}  // namespace

bool rule_allows(const RequestAttributes& request, const PolicyRule& rule) {
  if (!matches_or_all(rule.verbs, request.verb)) return false;
  if (!request.resource_request) return non_resource_url_matches(rule, request.path);
  return matches_or_all(rule.api_groups, request.api_group) && resource_matches(rule, request) &&
         resource_name_matches(rule, request.name);
}

bool subject_applies(const Subject& subject, const UserInfo& user, const std::string& binding_ns) {
  if (subject.kind == "User") return subject.name == user.name;
  if (subject.kind == "Group") return contains(user.groups, subject.name);
  if (subject.kind != "ServiceAccount") return false;
  const std::string& ns = subject.ns.empty() ? binding_ns : subject.ns;
  return !ns.empty() && service_account_user_name(ns, subject.name) == user.name;
}

std::string forbidden_message(const RequestAttributes& r) {
  const std::string who = "User \"" + r.user.name + "\" cannot " + r.verb;
  if (!r.resource_request) return who + " path \"" + r.path + "\"";
  const std::string resource =
      r.subresource.empty() ? r.resource : r.resource + "/" + r.subresource;
  const std::string what =
      who + " resource \"" + resource + "\" in API group \"" + r.api_group + "\"";
  if (!r.ns.empty()) return what + " in the namespace \"" + r.ns + "\"";
  return what + " at the cluster scope";
}

StatusError forbidden(const RequestAttributes& r, const std::string& reason) {
  std::string why = forbidden_message(r);
  if (!reason.empty()) why += ": " + reason;
  if (!r.resource_request || r.resource.empty()) {
    return StatusError(403, "Forbidden", "forbidden: " + why).with_details("", "", "");
  }
  const std::string qualified = GroupResource{r.api_group, r.resource}.qualified();
  const std::string subject = r.name.empty() ? qualified : qualified + " \"" + r.name + "\"";
  return StatusError(403, "Forbidden", subject + " is forbidden: " + why)
      .with_details(r.name, r.api_group, r.resource);
}

std::vector<PolicyRule> rules_of(const bj::object& role) {
  std::vector<PolicyRule> out;
  const bj::value* rules = role.if_contains("rules");
  if (!rules || !rules->is_array()) return out;
  for (const bj::value& r : rules->get_array()) {
    if (!r.is_object()) continue;
    const bj::object& o = r.get_object();
    out.push_back({strings_of(o, "verbs"), strings_of(o, "apiGroups"), strings_of(o, "resources"),
                   strings_of(o, "resourceNames"), strings_of(o, "nonResourceURLs")});
  }
  return out;
}

std::vector<Subject> subjects_of(const bj::object& binding) {
  std::vector<Subject> out;
  const bj::value* subjects = binding.if_contains("subjects");
  if (!subjects || !subjects->is_array()) return out;
  for (const bj::value& s : subjects->get_array()) {
    if (!s.is_object()) continue;
    const bj::object& o = s.get_object();
    out.push_back({string_at(o, "kind"), string_at(o, "name"), string_at(o, "namespace")});
  }
  return out;
}

bj::array json_strings(const std::vector<std::string>& list) {
  bj::array out;
  for (const std::string& s : list) out.emplace_back(s);
  return out;
}

bj::object rule_json(const PolicyRule& rule) {
  bj::object o{{"verbs", json_strings(rule.verbs)}};
  if (!rule.api_groups.empty()) o["apiGroups"] = json_strings(rule.api_groups);
  if (!rule.resources.empty()) o["resources"] = json_strings(rule.resources);
  if (!rule.resource_names.empty()) o["resourceNames"] = json_strings(rule.resource_names);
  if (!rule.non_resource_urls.empty()) o["nonResourceURLs"] = json_strings(rule.non_resource_urls);
  return o;
}

}  // namespace tailor::embedded
