// The disruption controller: keeps each PodDisruptionBudget's status — expected and healthy
// pods, disruptionsAllowed, the DisruptionAllowed condition — and forgets evictions
// (disruptedPods) once their pods are gone or two minutes have passed.
#include <boost/json.hpp>
#include <set>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/disruption.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr auto kDeletionTimeout = std::chrono::minutes(2);

const ResourceInfo& budgets() {
  static const ResourceInfo& r = resource_named("policy", "poddisruptionbudgets");
  return r;
}

class DisruptionController : public WatchLoop {
 public:
  explicit DisruptionController(ObjectStore& store)
      : WatchLoop(store, {&budgets(), &pods_resource()}) {}

 protected:
  void reconcile() override {
    std::vector<ObjectPtr> list;
    for (const auto& [key, pdb] : cached(budgets())) list.push_back(pdb);
    for (const ObjectPtr& pdb : list) {
      try {
        sync(*pdb);
      } catch (const std::exception&) {
        // Looked at again on the next pass: it changed or went meanwhile, or is invalid.
      }
    }
  }

 private:
  // The replicas of the workloads owning the pods (a Deployment's when it owns the ReplicaSet).
  std::optional<std::int64_t> controller_scale(const std::vector<ObjectPtr>& pods) const {
    std::set<std::string> seen;
    std::int64_t total = 0;
    for (const ObjectPtr& p : pods) {
      auto ref = controller_of(*p);
      if (!ref) return std::nullopt;
      std::string ns = meta_string(*p, "namespace");
      try {
        ObjectPtr owner;
        if (ref->kind == "ReplicaSet") {
          owner = store_.get(resource_named("apps", "replicasets"), ns, ref->name);
          if (auto up = controller_of(*owner); up && up->kind == "Deployment") {
            owner = store_.get(resource_named("apps", "deployments"), ns, up->name);
          }
        } else if (ref->kind == "StatefulSet") {
          owner = store_.get(resource_named("apps", "statefulsets"), ns, ref->name);
        } else {
          return std::nullopt;
        }
        if (seen.insert(meta_string(*owner, "uid")).second) {
          total += int_at(*owner, "spec.replicas", 1);
        }
      } catch (const StatusError&) {
        return std::nullopt;
      }
    }
    return total;
  }

  void sync(const bj::object& pdb) {
    const bj::value* selector = find_path(pdb, "spec.selector");
    std::string ns = meta_string(pdb, "namespace");
    std::vector<ObjectPtr> pods;
    for (const auto& [key, p] : cached(pods_resource())) {
      if (meta_string(*p, "namespace") == ns && selector_matches(selector, *p)) pods.push_back(p);
    }
    kube::TimePoint now = system_now();
    bj::object disrupted;
    for (const auto& entry : object_at(pdb, "status.disruptedPods")) {
      // The key and value by name, not as a structured binding: C++20 lets no lambda capture one.
      const std::string_view name = entry.key();
      const bj::value& when = entry.value();
      auto t = when.is_string() ? kube::try_parse_rfc3339(when.as_string()) : std::nullopt;
      bool pending = std::any_of(pods.begin(), pods.end(), [&](const ObjectPtr& p) {
        return meta_string(*p, "name") == name && !is_terminating(*p);
      });
      if (pending && t && *t + kDeletionTimeout > now) disrupted[name] = when;
    }
    BudgetInputs in;
    in.min_available = find_path(pdb, "spec.minAvailable");
    in.max_unavailable = find_path(pdb, "spec.maxUnavailable");
    in.matching_pods = static_cast<std::int64_t>(pods.size());
    for (const ObjectPtr& p : pods) {
      in.current_healthy +=
          is_pod_ready(*p) && !is_terminating(*p) && !disrupted.contains(meta_string(*p, "name"));
    }
    std::optional<Condition> failed;
    BudgetNumbers numbers;
    try {
      if (in.max_unavailable || (in.min_available && in.min_available->is_string())) {
        in.controller_scale = controller_scale(pods);
      }
      numbers = budget_numbers(in);
    } catch (const std::invalid_argument& e) {
      failed = Condition{"DisruptionAllowed", "False", "SyncFailed", e.what()};
    }
    write_status(pdb, numbers, in.current_healthy, disrupted, failed);
  }

  void write_status(const bj::object& pdb, const BudgetNumbers& n, std::int64_t healthy,
                    const bj::object& disrupted, const std::optional<Condition>& failed) {
    std::string now = kube::format_rfc3339(system_now());
    std::int64_t generation = int_at(pdb, "metadata.generation", 1);
    Condition allowed = failed ? *failed
                        : n.disruptions_allowed > 0
                            ? Condition{"DisruptionAllowed", "True", "SufficientPods", ""}
                            : Condition{"DisruptionAllowed", "False", "InsufficientPods", ""};
    modify(
        budgets(), pdb,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::object s = object_at(current, "status");
          s["observedGeneration"] = generation;
          if (disrupted.empty()) {
            s.erase("disruptedPods");
          } else {
            s["disruptedPods"] = disrupted;
          }
          s["disruptionsAllowed"] = failed ? 0 : n.disruptions_allowed;
          s["currentHealthy"] = healthy;
          s["desiredHealthy"] = n.desired_healthy;
          s["expectedPods"] = n.expected_pods;
          next["status"] = std::move(s);
          set_condition(next, allowed, ConditionStyle::Meta, now, generation);
          return next;
        },
        UpdateScope::Status);
  }
};

}  // namespace

std::unique_ptr<ControlLoop> make_disruption_controller(ObjectStore& store) {
  return std::make_unique<DisruptionController>(store);
}

}  // namespace tailor::embedded
