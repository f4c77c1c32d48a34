#include "embedded/auth/escalation.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "embedded/auth/stored_objects.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

std::string quoted_list(const std::vector<std::string>& items, const char* separator) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? separator : "") + ("\"" + items[i] + "\"");
  return out + "]";
}

// One permission a rule grants: a verb on one group/resource[/name], or on one URL.
struct Permission {
  RequestAttributes request;
  std::string resource;  // as the rule names it ("pods/resize")
};

std::vector<Permission> permissions(const PolicyRule& rule, const UserInfo& user,
                                    const std::string& ns) {
  std::vector<Permission> out;
  for (const std::string& verb : rule.verbs) {
    for (const std::string& url : rule.non_resource_urls) {
      out.push_back({{.user = user, .verb = verb, .path = url}, ""});
    }
    std::vector<std::string> names = rule.resource_names;
    if (names.empty()) names.push_back("");
    for (const std::string& group : rule.api_groups) {
      for (const std::string& resource : rule.resources) {
        for (const std::string& name : names) {
          RequestAttributes a{.user = user, .verb = verb, .resource_request = true};
          a.api_group = group;
          const std::size_t slash = resource.find('/');
          a.resource = resource.substr(0, slash);
          if (slash != std::string::npos) a.subresource = resource.substr(slash + 1);
          a.name = name;
          a.ns = ns;
          out.push_back({a, resource});
        }
      }
    }
  }
  return out;
}

// CompactString: the missing permissions merged by what they apply to, verbs gathered.
std::vector<std::string> compact(const std::vector<Permission>& missing) {
  std::map<std::string, std::vector<std::string>> verbs;
  std::vector<std::string> order;
  for (const Permission& p : missing) {
    const RequestAttributes& a = p.request;
    std::string key;
    if (a.resource_request) {
      key = "APIGroups:" + quoted_list({a.api_group}, " ") +
            ", Resources:" + quoted_list({p.resource}, " ");
      if (!a.name.empty()) key += ", ResourceNames:" + quoted_list({a.name}, " ");
    } else {
      key = "NonResourceURLs:" + quoted_list({a.path}, " ");
    }
    if (!verbs.count(key)) order.push_back(key);
    verbs[key].push_back(a.verb);
  }
  std::vector<std::string> out;
  for (const std::string& key : order) {
    out.push_back("{" + key + ", Verbs:" + quoted_list(verbs[key], " ") + "}");
  }
  std::sort(out.begin(), out.end());
  return out;
}

StatusError not_held(const AdmissionRequest& r, const std::vector<std::string>& missing,
                     const std::string& extra = "") {
  std::string why = "user \"" + r.user->name + "\" (groups=" + quoted_list(r.user->groups, " ") +
                    ") is attempting to grant RBAC permissions not currently held:";
  for (const std::string& m : missing) why += "\n" + m;
  why += extra;
  const GroupResource gr = r.resource.group_resource();
  return StatusError(403, "Forbidden", gr.qualified() + " \"" + r.name + "\" is forbidden: " + why)
      .with_details(r.name, gr.group, gr.resource);
}

bool allowed(const Authorizer& authorize, const AdmissionRequest& r, const std::string& verb,
             const std::string& resource, const std::string& name) {
  RequestAttributes a{.user = *r.user, .verb = verb, .resource_request = true};
  a.api_group = kRbacGroup;
  a.resource = resource;
  a.name = name;
  a.ns = r.ns;
  return authorize(a).allowed;
}

bool unchanged(const AdmissionRequest& r, std::initializer_list<const char*> fields) {
  if (!r.old_object) return false;
  return std::all_of(fields.begin(), fields.end(), [&](const char* f) {
    const bj::value* now = r.object.if_contains(f);
    const bj::value* before = r.old_object->if_contains(f);
    return (now ? *now : bj::value()) == (before ? *before : bj::value());
  });
}

void check_role(const AdmissionRequest& r, const Authorizer& authorize) {
  if (unchanged(r, {"rules", "aggregationRule"})) return;
  if (allowed(authorize, r, "escalate", r.resource.resource, r.name)) return;
  const bj::value* aggregation = r.object.if_contains("aggregationRule");
  if (aggregation && !aggregation->is_null()) {
    PolicyRule everything{.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}};
    PolicyRule every_url{.verbs = {"*"}, .non_resource_urls = {"*"}};
    if (!missing_permissions({everything, every_url}, *r.user, "", authorize).empty()) {
      const GroupResource gr = r.resource.group_resource();
      throw StatusError(403, "Forbidden",
                        gr.qualified() + " \"" + r.name +
                            "\" is forbidden: must have cluster-admin privileges to use the "
                            "aggregationRule")
          .with_details(r.name, gr.group, gr.resource);
    }
  }
  std::vector<std::string> missing =
      missing_permissions(rules_of(r.object), *r.user, r.ns, authorize);
  if (!missing.empty()) throw not_held(r, missing);
}

void check_binding(const AdmissionRequest& r, const Authorizer& authorize,
                   const ObjectStore& store) {
  if (unchanged(r, {"subjects", "roleRef"})) return;
  const std::string kind = string_at(r.object, "roleRef.kind");
  const std::string role = string_at(r.object, "roleRef.name");
  const bool cluster = kind == "ClusterRole";
  if (allowed(authorize, r, "bind", cluster ? "clusterroles" : "roles", role)) return;
  ObjectPtr found = find_object(store, builtin(kRbacGroup, cluster ? "clusterroles" : "roles"),
                                cluster ? "" : r.ns, role);
  if (!found) {
    throw not_held(r, {},
                   "; resolution errors: [" + std::string(cluster ? "clusterroles" : "roles") +
                       "." + kRbacGroup + " \"" + role + "\" not found]");
  }
  std::vector<std::string> missing =
      missing_permissions(rules_of(*found), *r.user, r.ns, authorize);
  if (!missing.empty()) throw not_held(r, missing);
}

}  // namespace

std::vector<std::string> missing_permissions(const std::vector<PolicyRule>& rules,
                                             const UserInfo& user, const std::string& ns,
                                             const Authorizer& authorize) {
  std::vector<Permission> missing;
  for (const PolicyRule& rule : rules) {
    for (Permission& p : permissions(rule, user, ns)) {
      if (!authorize(p.request).allowed) missing.push_back(std::move(p));
    }
  }
  return compact(missing);
}

AdmissionPlugin rbac_escalation_check(Authorizer authorize, const ObjectStore& store) {
  return [authorize, &store](AdmissionRequest& r) {
    if (!r.user || r.resource.group != kRbacGroup || !r.subresource.empty()) return;
    const std::string& kind = r.resource.resource;
    if (kind == "roles" || kind == "clusterroles") check_role(r, authorize);
    if (kind == "rolebindings" || kind == "clusterrolebindings") check_binding(r, authorize, store);
  };
}

}  // namespace tailor::embedded
