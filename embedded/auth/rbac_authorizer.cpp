#include "embedded/auth/rbac_authorizer.h"

#include <algorithm>
#include <boost/json.hpp>

#include "embedded/auth/stored_objects.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

// Past this many parsed revisions a cache starts again (deleted objects' entries go with it).
constexpr std::size_t kMaxParsed = 20000;

const ResourceInfo& rbac(const char* resource) { return builtin(kRbacGroup, resource); }

// describeSubject: ServiceAccount "name/namespace", otherwise Kind "name".
std::string describe(const Subject& s, const std::string& binding_ns) {
  if (s.kind == "ServiceAccount")
    return s.kind + " \"" + s.name + "/" + (s.ns.empty() ? binding_ns : s.ns) + "\"";
  return s.kind + " \"" + s.name + "\"";
}

bool privileged(const UserInfo& user) {
  return std::find(user.groups.begin(), user.groups.end(), kSystemMasters) != user.groups.end();
}

struct Search {
  const RbacAuthorizer& rbac;
  const RequestAttributes& request;
  std::vector<std::string> errors{};
  std::string allowed_by{};

  // Whether the binding applies to the user and its role allows the request.
  bool visit(const RbacAuthorizer::Binding& b, bool cluster_binding) {
    auto subject = std::find_if(b.subjects.begin(), b.subjects.end(), [&](const Subject& s) {
      return subject_applies(s, request.user, b.ns);
    });
    if (subject == b.subjects.end()) return false;
    if (cluster_binding && b.role_kind != "ClusterRole") return false;
    std::shared_ptr<const RbacAuthorizer::Rules> rules =
        rbac.role_rules(b.role_kind, b.role_name, b.ns);
    if (!rules) {
      errors.push_back(std::string(b.role_kind == "ClusterRole" ? "clusterrole" : "role") + "." +
                       kRbacGroup + " \"" + b.role_name + "\" not found");
      return false;
    }
    if (std::none_of(rules->begin(), rules->end(),
                     [&](const PolicyRule& rule) { return rule_allows(request, rule); }))
      return false;
    allowed_by = (cluster_binding ? "ClusterRoleBinding \"" + b.name + "\""
                                  : "RoleBinding \"" + b.name + "/" + b.ns + "\"") +
                 " of " + b.role_kind + " \"" + b.role_name + "\" to " + describe(*subject, b.ns);
    return true;
  }

  bool any(bool cluster, const std::string& ns) {
    for (const StoredPtr& stored : rbac.bindings(cluster, ns)) {
      if (visit(*rbac.binding(*stored), cluster)) return true;
    }
    return false;
  }

  // utilerrors.NewAggregate's text: one error alone, several in brackets.
  std::string error_text() const {
    if (errors.size() == 1) return errors[0];
    std::string out = "[";
    for (std::size_t i = 0; i < errors.size(); ++i) out += (i ? ", " : "") + errors[i];
    return out + "]";
  }
};

template <class Map>
typename Map::mapped_type::second_type cached(Map& map, const std::string& key,
                                              std::uint64_t revision) {
  auto it = map.find(key);
  return it != map.end() && it->second.first == revision ? it->second.second : nullptr;
}

template <class Map, class Value>
void keep(Map& map, const std::string& key, std::uint64_t revision, Value value) {
  if (map.size() >= kMaxParsed) map.clear();
  map[key] = {revision, std::move(value)};
}

}  // namespace

std::vector<StoredPtr> RbacAuthorizer::bindings(bool cluster, const std::string& ns) const {
  return store_
      .list(rbac(cluster ? "clusterrolebindings" : "rolebindings"), ns,
            [](const StoredObject&) { return true; })
      .items;
}

std::shared_ptr<const RbacAuthorizer::Binding> RbacAuthorizer::binding(
    const StoredObject& stored) const {
  const std::string key = stored.ns() + "/" + stored.name();
  {
    std::lock_guard lock(mu_);
    if (auto b = cached(bindings_, key, stored.resource_version())) return b;
  }
  const bj::object o = stored.object();
  auto b = std::make_shared<const Binding>(Binding{meta_string(o, "name"), stored.ns(),
                                                   string_at(o, "roleRef.kind"),
                                                   string_at(o, "roleRef.name"), subjects_of(o)});
  std::lock_guard lock(mu_);
  keep(bindings_, key, stored.resource_version(), b);
  return b;
}

std::shared_ptr<const RbacAuthorizer::Rules> RbacAuthorizer::role_rules(
    const std::string& kind, const std::string& name, const std::string& ns) const {
  const bool cluster = kind == "ClusterRole";
  if (!cluster && kind != "Role") return nullptr;
  StoredPtr stored;
  try {
    stored = store_.get_stored(rbac(cluster ? "clusterroles" : "roles"), cluster ? "" : ns, name);
  } catch (const StatusError& e) {
    if (e.code() == 404) return nullptr;
    throw;
  }
  const std::string key = kind + "/" + stored->ns() + "/" + name;
  {
    std::lock_guard lock(mu_);
    if (auto r = cached(roles_, key, stored->resource_version())) return r;
  }
  auto rules = std::make_shared<const Rules>(rules_of(stored->object()));
  std::lock_guard lock(mu_);
  keep(roles_, key, stored->resource_version(), rules);
  return rules;
}

AuthorizationDecision RbacAuthorizer::authorize(const RequestAttributes& request) const {
  if (privileged(request.user)) return {true, ""};
  Search search{*this, request};
  if (search.any(true, "") || (!request.ns.empty() && search.any(false, request.ns)))
    return {true, "RBAC: allowed by " + search.allowed_by};
  return {false, search.errors.empty() ? "" : "RBAC: " + search.error_text()};
}

RbacAuthorizer::UserRules RbacAuthorizer::rules_for(const UserInfo& user,
                                                    const std::string& ns) const {
  UserRules out;
  if (privileged(user)) {
    out.rules = {{.verbs = {"*"}, .api_groups = {"*"}, .resources = {"*"}},
                 {.verbs = {"*"}, .non_resource_urls = {"*"}}};
    return out;
  }
  auto collect = [&](bool cluster, const std::string& where) {
    for (const StoredPtr& stored : bindings(cluster, where)) {
      const std::shared_ptr<const Binding> b = binding(*stored);
      if (cluster && b->role_kind != "ClusterRole") continue;
      if (std::none_of(b->subjects.begin(), b->subjects.end(),
                       [&](const Subject& s) { return subject_applies(s, user, b->ns); })) {
        continue;
      }
      const std::shared_ptr<const Rules> rules = role_rules(b->role_kind, b->role_name, b->ns);
      if (!rules) {
        out.errors.push_back(std::string(b->role_kind == "ClusterRole" ? "clusterrole" : "role") +
                             "." + kRbacGroup + " \"" + b->role_name + "\" not found");
        continue;
      }
      out.rules.insert(out.rules.end(), rules->begin(), rules->end());
    }
  };
  collect(true, "");
  if (!ns.empty()) collect(false, ns);
  return out;
}

}  // namespace tailor::embedded
