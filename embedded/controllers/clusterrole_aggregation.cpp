// The ClusterRole aggregation controller (kube-controller-manager's clusterrole-aggregation):
// a ClusterRole with an aggregationRule gets as rules the rules of every other ClusterRole its
// clusterRoleSelectors select (in name order, each distinct rule once), kept up to date as
// labelled ClusterRoles come, change and go.
#include <algorithm>
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

const ResourceInfo& cluster_roles() {
  static const ResourceInfo& r = resource_named("rbac.authorization.k8s.io", "clusterroles");
  return r;
}

const bj::array* selectors_of(const bj::object& role) {
  const bj::value* s = find_path(role, "aggregationRule.clusterRoleSelectors");
  return s && s->is_array() ? &s->get_array() : nullptr;
}

bool selected(const bj::array& selectors, const bj::object& role) {
  for (const bj::value& s : selectors) {
    if (selector_matches(&s, role)) return true;
  }
  return false;
}

void add_rules(bj::array& into, const bj::object& role) {
  const bj::value* rules = role.if_contains("rules");
  if (!rules || !rules->is_array()) return;
  for (const bj::value& rule : rules->get_array()) {
    if (std::find(into.begin(), into.end(), rule) == into.end()) into.push_back(rule);
  }
}

class ClusterRoleAggregation : public WatchLoop {
 public:
  explicit ClusterRoleAggregation(ObjectStore& store) : WatchLoop(store, {&cluster_roles()}) {}

 protected:
  void reconcile() override {
    const ObjectMap& roles = cached(cluster_roles());
    std::vector<ObjectPtr> aggregated;
    for (const auto& [key, role] : roles) {
      if (selectors_of(*role)) aggregated.push_back(role);
    }
    for (const ObjectPtr& role : aggregated) {
      try {
        sync(*role, roles);
      } catch (const std::exception&) {
        // Looked at again on the next pass: it changed or went meanwhile.
      }
    }
  }

 private:
  void sync(const bj::object& role, const ObjectMap& roles) {
    const bj::array& selectors = *selectors_of(role);
    bj::array rules;
    for (const auto& [key, other] : roles) {
      if (key != key_of(role) && selected(selectors, *other)) add_rules(rules, *other);
    }
    const bj::value* current = role.if_contains("rules");
    if (current && current->is_array() && current->get_array() == rules) return;
    if ((!current || current->is_null()) && rules.empty()) return;
    modify(cluster_roles(), role, [&](const bj::object& stored) {
      bj::object o = stored;
      o["rules"] = rules;
      return o;
    });
  }
};

}  // namespace

std::unique_ptr<ControlLoop> make_clusterrole_aggregation(ObjectStore& store) {
  return std::make_unique<ClusterRoleAggregation>(store);
}

}  // namespace tailor::embedded
