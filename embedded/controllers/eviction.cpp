// pods/eviction: a pod goes only if the PodDisruptionBudget selecting it allows one more
// disruption (the budget's status is decremented and the pod noted in disruptedPods, in one
// write); otherwise 429 with kube-apiserver's message and DisruptionBudget cause.
#include <boost/json.hpp>

#include "embedded/api/rest.h"
#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/eviction_body.h"
#include "embedded/controllers/handlers.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"

namespace tailor::embedded {
namespace {

constexpr const char* kViolation =
    "Cannot evict pod as it would violate the pod's disruption budget.";

const ResourceInfo& budgets() {
  static const ResourceInfo& r = resource_named("policy", "poddisruptionbudgets");
  return r;
}

StatusError too_many_requests(const std::string& cause) {
  StatusError e(429, "TooManyRequests", kViolation);
  e.with_details("", "", "").with_causes({{"DisruptionBudget", cause, ""}});
  return e;
}

// Why a budget with no disruptions left refuses (kube-apiserver 1.35's wording).
std::string denied_message(const bj::object& pdb) {
  std::string name = meta_string(pdb, "name");
  std::int64_t desired = int_at(pdb, "status.desiredHealthy", 0);
  std::int64_t current = int_at(pdb, "status.currentHealthy", 0);
  const bj::object* condition = nullptr;
  if (const bj::value* c = find_path(pdb, "status.conditions"); c && c->is_array()) {
    for (const bj::value& v : c->as_array()) {
      if (v.is_object() && string_at(v.as_object(), "type") == "DisruptionAllowed") {
        condition = &v.as_object();
      }
    }
  }
  bool refused = condition && string_at(*condition, "status") == "False" &&
                 !string_at(*condition, "message").empty();
  if (refused && string_at(*condition, "reason") == "SyncFailed") {
    return "The disruption budget " + name +
           " does not allow evicting pods currently because it failed sync: " +
           string_at(*condition, "message");
  }
  if (current <= desired) {
    return "The disruption budget " + name + " needs " + std::to_string(desired) +
           " healthy pods and has " + std::to_string(current) + " currently";
  }
  if (refused) {
    return "The disruption budget " + name + " does not allow evicting pods currently (" +
           string_at(*condition, "reason") + "): " + string_at(*condition, "message");
  }
  return "The disruption budget " + name + " does not allow evicting pods currently";
}

// Takes one disruption from the budget, or throws the refusal.
void check_and_decrement(ObjectStore& store, const bj::object& pdb, const std::string& pod,
                         bool dry_run) {
  auto take = [&](const bj::object& current) {
    std::string name = meta_string(current, "name");
    if (int_at(current, "status.observedGeneration", 0) <
        int_at(current, "metadata.generation", 1)) {
      throw too_many_requests("The disruption budget " + name +
                              " is still being processed by the server.");
    }
    std::int64_t allowed = int_at(current, "status.disruptionsAllowed", 0);
    if (allowed < 0) {
      throw StatusError(403, "Forbidden",
                        "poddisruptionbudgets.policy \"" + name +
                            "\" is forbidden: pdb disruptions allowed is negative");
    }
    if (allowed == 0) throw too_many_requests(denied_message(current));
    bj::object next = current;
    bj::object& status = next["status"].as_object();
    status["disruptionsAllowed"] = allowed - 1;
    std::string now = kube::format_rfc3339(system_now());
    if (allowed == 1) {
      set_condition(next, {"DisruptionAllowed", "False", "InsufficientPods", ""},
                    ConditionStyle::Meta, now, int_at(current, "metadata.generation", 1));
    }
    bj::value& disrupted = next["status"].as_object()["disruptedPods"];
    if (!disrupted.is_object()) disrupted = bj::object{};
    disrupted.as_object()[pod] = now;
    return next;
  };
  if (dry_run) {
    take(pdb);
    return;
  }
  store.modify(budgets(), meta_string(pdb, "namespace"), meta_string(pdb, "name"), take,
               UpdateScope::Status);
}

std::vector<ObjectPtr> budgets_for(ObjectStore& store, const bj::object& pod) {
  std::vector<ObjectPtr> out;
  for (const ObjectPtr& pdb : store.list_objects(budgets(), meta_string(pod, "namespace"))) {
    if (selector_matches(find_path(*pdb, "spec.selector"), pod)) out.push_back(pdb);
  }
  return out;
}

// Terminal, pending and terminating pods cause no further disruption.
bool can_ignore_budgets(const bj::object& pod) {
  std::string phase = string_at(pod, "status.phase");
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" || is_terminating(pod);
}

kube::http::ServerResponse success(int code) {
  bj::object status{{"kind", "Status"},
                    {"apiVersion", "v1"},
                    {"metadata", bj::object{}},
                    {"status", "Success"},
                    {"code", code}};
  return json_response(code, bj::serialize(status));
}

std::int64_t grace_from(const bj::object& eviction, const bj::object& pod) {
  const bj::value* g = find_path(eviction, "deleteOptions.gracePeriodSeconds");
  if (g && g->is_number()) return std::max<std::int64_t>(0, g->to_number<std::int64_t>());
  return pod_grace_seconds(pod);
}

void delete_evicted(ObjectStore& store, const bj::object& eviction, const bj::object& pod) {
  std::string ns = meta_string(pod, "namespace"), name = meta_string(pod, "name");
  std::string now = kube::format_rfc3339(system_now());
  store.modify(
      pods_resource(), ns, name,
      [&](const bj::object& current) {
        if (meta_string(current, "uid") != meta_string(pod, "uid")) {
          throw conflict({"", "pods"}, name, "the pod was replaced during the eviction");
        }
        bj::object next = current;
        set_condition(
            next, {"DisruptionTarget", "True", "EvictionByEvictionAPI", "Eviction API: evicting"},
            ConditionStyle::Pod, now);
        return next;
      },
      UpdateScope::Status);
  store.remove(pods_resource(), ns, name, {meta_string(pod, "uid"), ""}, grace_from(eviction, pod));
}

kube::http::ServerResponse evict(const RestContext& c) {
  if (c.request.method != "POST") {
    throw method_not_supported({"", "pods/eviction"}, c.request.method);
  }
  bj::object eviction = eviction_body(c.request.header("Content-Type"), c.request.body);
  std::string kind = string_at(eviction, "kind");
  if (!kind.empty() && kind != "Eviction") {
    throw bad_request("not a Eviction object: " + kind);
  }
  if (meta_string(eviction, "name") != c.target.name) {
    throw bad_request("name in URL does not match name in Eviction object");
  }
  bool dry_run = c.request.query_param("dryRun").has_value() ||
                 find_path(eviction, "deleteOptions.dryRun") != nullptr;
  if (const bj::value* pre = find_path(eviction, "deleteOptions.preconditions.uid");
      pre && pre->is_string() && !pre->as_string().empty()) {
    ObjectPtr current = c.store.get(pods_resource(), c.target.ns, c.target.name);
    if (meta_string(*current, "uid") != pre->as_string()) {
      throw conflict({"", "pods"}, c.target.name,
                     "Precondition failed: UID in precondition: " + std::string(pre->as_string()) +
                         ", UID in object meta: " + meta_string(*current, "uid"));
    }
  }
  ObjectPtr pod = c.store.get(pods_resource(), c.target.ns, c.target.name);
  if (!can_ignore_budgets(*pod)) {
    std::vector<ObjectPtr> pdbs = budgets_for(c.store, *pod);
    if (pdbs.size() > 1) {
      throw StatusError(500, "",
                        "This pod has more than one PodDisruptionBudget, which the eviction "
                        "subresource does not support.");
    }
    if (pdbs.size() == 1) {
      const bj::object& pdb = *pdbs[0];
      bool unhealthy_goes =
          !is_pod_ready(*pod) &&
          (string_at(pdb, "spec.unhealthyPodEvictionPolicy") == "AlwaysAllow" ||
           (int_at(pdb, "status.currentHealthy", 0) >= int_at(pdb, "status.desiredHealthy", 0) &&
            int_at(pdb, "status.desiredHealthy", 0) > 0));
      if (!unhealthy_goes) check_and_decrement(c.store, pdb, c.target.name, dry_run);
    }
  }
  if (!dry_run) delete_evicted(c.store, eviction, *pod);
  return success(201);
}

}  // namespace

SubresourceHandler eviction_handler(ObjectStore&) { return evict; }

}  // namespace tailor::embedded
