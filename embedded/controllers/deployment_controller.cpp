// The Deployment controller: one ReplicaSet per template (named and labelled by its
// pod-template-hash), rolled by the RollingUpdate or Recreate strategy, old sets pruned to
// revisionHistoryLimit, and the status `kubectl rollout status` reads.
#include <algorithm>
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/rollout.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr const char* kHashLabel = "pod-template-hash";
constexpr const char* kRevision = "deployment.kubernetes.io/revision";

const ResourceInfo& deployments() {
  static const ResourceInfo& r = resource_named("apps", "deployments");
  return r;
}
const ResourceInfo& replicasets() {
  static const ResourceInfo& r = resource_named("apps", "replicasets");
  return r;
}

std::int64_t revision_of(const bj::object& rs) {
  try {
    return std::stoll(annotation(rs, kRevision));
  } catch (const std::exception&) {
    return 0;
  }
}

ReplicaSetCounts counts(const bj::object& rs) {
  return {int_at(rs, "spec.replicas", 1), int_at(rs, "status.availableReplicas", 0)};
}

bool older(const ObjectPtr& a, const ObjectPtr& b) {
  std::string ta = meta_string(*a, "creationTimestamp"), tb = meta_string(*b, "creationTimestamp");
  return ta != tb ? ta < tb : meta_string(*a, "name") < meta_string(*b, "name");
}

class DeploymentController : public WatchLoop {
 public:
  explicit DeploymentController(ObjectStore& store)
      : WatchLoop(store, {&deployments(), &replicasets()}),
        events_(store, "deployment-controller") {}

 protected:
  void reconcile() override {
    std::map<std::string, std::vector<ObjectPtr>> owned;
    for (const auto& [key, rs] : cached(replicasets())) {
      if (auto ref = controller_of(*rs); ref && ref->kind == "Deployment") {
        owned[ref->uid].push_back(rs);
      }
    }
    std::vector<ObjectPtr> list;
    for (const auto& [key, d] : cached(deployments())) list.push_back(d);
    for (const ObjectPtr& d : list) {
      if (is_terminating(*d)) continue;
      std::vector<ObjectPtr>& sets = owned[meta_string(*d, "uid")];
      std::sort(sets.begin(), sets.end(), older);
      try {
        sync(*d, sets);
      } catch (const std::exception&) {
        // Looked at again on the next pass: it changed or went meanwhile, or is invalid.
      }
    }
  }

 private:
  void sync(const bj::object& d, std::vector<ObjectPtr> sets) {
    const bj::object& tmpl = object_at(d, "spec.template");
    ObjectPtr new_rs;
    std::vector<ObjectPtr> old;
    for (const ObjectPtr& rs : sets) {
      if (template_without_label(object_at(*rs, "spec.template"), kHashLabel) == bj::value(tmpl)) {
        new_rs = rs;
      } else {
        old.push_back(rs);
      }
    }
    bool recreate = string_at(d, "spec.strategy.type") == "Recreate";
    bool created = false;
    if (!new_rs && !bool_at(d, "spec.paused")) {
      new_rs = create_replicaset(d, old, recreate ? 0 : first_scale(d, old));
      if (!new_rs) return;  // a name collision: retried with the next collisionCount
      created = true;
    }
    if (new_rs && !bool_at(d, "spec.paused")) {
      if (recreate) {
        roll_recreate(d, *new_rs, old);
      } else {
        roll(d, new_rs, old);
      }
      prune(d, old);
    }
    update_status(d, new_rs, old, created);
  }

  static bool bool_at(const bj::object& o, std::string_view path) {
    const bj::value* v = find_path(o, path);
    return v && v->is_bool() && v->as_bool();
  }

  RollingLimits limits(const bj::object& d) const {
    std::int64_t replicas = int_at(d, "spec.replicas", 1);
    const bj::object& ru = object_at(d, "spec.strategy.rollingUpdate");
    bj::value surge = ru.contains("maxSurge") ? ru.at("maxSurge") : bj::value("25%");
    bj::value unavailable =
        ru.contains("maxUnavailable") ? ru.at("maxUnavailable") : bj::value("25%");
    return rolling_limits(surge, unavailable, replicas);
  }

  // The new set's first size: as much as maxSurge leaves room for.
  std::int64_t first_scale(const bj::object& d, const std::vector<ObjectPtr>& old) const {
    std::vector<ReplicaSetCounts> o;
    for (const ObjectPtr& rs : old) o.push_back(counts(*rs));
    return rolling_update_step(int_at(d, "spec.replicas", 1), limits(d), {0, 0}, o).new_replicas;
  }

  ObjectPtr create_replicaset(const bj::object& d, const std::vector<ObjectPtr>& old,
                              std::int64_t replicas) {
    std::int64_t collisions = int_at(d, "status.collisionCount", 0);
    bj::object tmpl = object_at(d, "spec.template");
    std::string hash = pod_template_hash(tmpl, collisions);
    bj::value& meta = tmpl["metadata"];
    if (!meta.is_object()) meta = bj::object{};
    bj::value& labels = meta.as_object()["labels"];
    if (!labels.is_object()) labels = bj::object{};
    labels.as_object()[kHashLabel] = hash;
    bj::object selector = object_at(d, "spec.selector");
    bj::value& match = selector["matchLabels"];
    if (!match.is_object()) match = bj::object{};
    match.as_object()[kHashLabel] = hash;
    std::int64_t revision = 0;
    for (const ObjectPtr& rs : old) revision = std::max(revision, revision_of(*rs));
    std::string name = meta_string(d, "name") + "-" + hash;
    bj::object rs{
        {"metadata",
         bj::object{{"name", name},
                    {"namespace", meta_string(d, "namespace")},
                    {"labels", labels},
                    {"annotations", bj::object{{kRevision, std::to_string(revision + 1)}}},
                    {"ownerReferences", bj::array{controller_reference(deployments(), d)}}}},
        {"spec", bj::object{{"replicas", replicas},
                            {"minReadySeconds", int_at(d, "spec.minReadySeconds", 0)},
                            {"selector", std::move(selector)},
                            {"template", std::move(tmpl)}}}};
    try {
      ObjectPtr created = create(replicasets(), std::move(rs));
      events_.record(d, "Normal", "ScalingReplicaSet",
                     "Scaled up replica set " + name + " from 0 to " + std::to_string(replicas));
      return created;
    } catch (const StatusError& e) {
      if (e.code() != 409) throw;
      modify(
          deployments(), d,
          [&](const bj::object& current) {
            bj::object next = current;
            next["status"].as_object()["collisionCount"] = collisions + 1;
            return next;
          },
          UpdateScope::Status);
      return nullptr;
    }
  }

  void roll(const bj::object& d, const ObjectPtr& new_rs, const std::vector<ObjectPtr>& old) {
    std::vector<ReplicaSetCounts> o;
    for (const ObjectPtr& rs : old) o.push_back(counts(*rs));
    std::int64_t replicas = int_at(d, "spec.replicas", 1);
    bool rolling_over = std::any_of(o.begin(), o.end(), [](auto c) { return c.spec > 0; });
    if (!rolling_over) {  // a plain scale: the only active set follows spec.replicas
      scale(d, *new_rs, replicas);
      return;
    }
    RolloutStep step = rolling_update_step(replicas, limits(d), counts(*new_rs), o);
    scale(d, *new_rs, step.new_replicas);
    for (std::size_t i = 0; i < old.size(); ++i) scale(d, *old[i], step.old_replicas[i]);
  }

  // Recreate: every old pod goes before the new set grows.
  void roll_recreate(const bj::object& d, const bj::object& new_rs,
                     const std::vector<ObjectPtr>& old) {
    bool old_pods = false;
    for (const ObjectPtr& rs : old) {
      scale(d, *rs, 0);
      old_pods |= int_at(*rs, "status.replicas", 0) > 0;
    }
    if (!old_pods) scale(d, new_rs, int_at(d, "spec.replicas", 1));
  }

  void scale(const bj::object& d, const bj::object& rs, std::int64_t replicas) {
    std::int64_t from = int_at(rs, "spec.replicas", 1);
    if (from == replicas) return;
    modify(replicasets(), rs, [&](const bj::object& current) {
      bj::object next = current;
      next["spec"].as_object()["replicas"] = replicas;
      return next;
    });
    events_.record(d, "Normal", "ScalingReplicaSet",
                   std::string("Scaled ") + (replicas > from ? "up" : "down") + " replica set " +
                       meta_string(rs, "name") + " from " + std::to_string(from) + " to " +
                       std::to_string(replicas));
  }

  // Old sets scaled to zero beyond revisionHistoryLimit go, oldest first.
  void prune(const bj::object& d, const std::vector<ObjectPtr>& old) {
    std::int64_t limit = int_at(d, "spec.revisionHistoryLimit", 10);
    std::vector<ObjectPtr> idle;
    for (const ObjectPtr& rs : old) {
      if (int_at(*rs, "spec.replicas", 1) == 0 && int_at(*rs, "status.replicas", 0) == 0 &&
          !is_terminating(*rs)) {
        idle.push_back(rs);
      }
    }
    for (std::size_t i = 0; i + limit < idle.size(); ++i) remove(replicasets(), *idle[i], 0);
  }

  void update_status(const bj::object& d, const ObjectPtr& new_rs,
                     const std::vector<ObjectPtr>& old, bool created) {
    std::int64_t replicas = int_at(d, "spec.replicas", 1);
    std::int64_t actual = 0, ready = 0, available = 0, total_spec = 0;
    std::vector<ObjectPtr> all = old;
    if (new_rs) all.push_back(new_rs);
    for (const ObjectPtr& rs : all) {
      actual += int_at(*rs, "status.replicas", 0);
      ready += int_at(*rs, "status.readyReplicas", 0);
      available += int_at(*rs, "status.availableReplicas", 0);
      total_spec += int_at(*rs, "spec.replicas", 1);
    }
    std::int64_t updated = new_rs ? int_at(*new_rs, "status.replicas", 0) : 0;
    std::string rs_name = new_rs ? meta_string(*new_rs, "name") : "";
    bool complete = updated == replicas && available == replicas && actual == replicas && new_rs &&
                    int_at(*new_rs, "status.observedGeneration", 0) >=
                        int_at(*new_rs, "metadata.generation", 1);
    bool has_minimum = available >= replicas - limits(d).max_unavailable;
    std::string now = kube::format_rfc3339(system_now());
    std::int64_t revision = new_rs ? revision_of(*new_rs) : 0;
    if (new_rs && annotation(d, kRevision) != std::to_string(revision)) {
      modify(deployments(), d, [&](const bj::object& current) {
        bj::object next = current;
        bj::value& a = metadata(next)["annotations"];
        if (!a.is_object()) a = bj::object{};
        a.as_object()[kRevision] = std::to_string(revision);
        return next;
      });
    }
    modify(
        deployments(), d,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::value& sv = next["status"];
          if (!sv.is_object()) sv = bj::object{};
          bj::object& s = sv.as_object();
          s["observedGeneration"] = int_at(current, "metadata.generation", 1);
          s["replicas"] = actual;
          s["updatedReplicas"] = updated;
          s["readyReplicas"] = ready;
          s["availableReplicas"] = available;
          s["unavailableReplicas"] = std::max<std::int64_t>(0, total_spec - available);
          for (const char* zero : {"replicas", "updatedReplicas", "readyReplicas",
                                   "availableReplicas", "unavailableReplicas"}) {
            if (int_at(s, zero, 0) == 0) s.erase(zero);
          }
          set_condition(next,
                        has_minimum ? Condition{"Available", "True", "MinimumReplicasAvailable",
                                                "Deployment has minimum availability."}
                                    : Condition{"Available", "False", "MinimumReplicasUnavailable",
                                                "Deployment does not have minimum availability."},
                        ConditionStyle::Deployment, now);
          if (new_rs) {
            Condition progressing =
                complete  ? Condition{"Progressing", "True", "NewReplicaSetAvailable",
                                     "ReplicaSet \"" + rs_name + "\" has successfully progressed."}
                : created ? Condition{"Progressing", "True", "NewReplicaSetCreated",
                                      "Created new replica set \"" + rs_name + "\""}
                          : Condition{"Progressing", "True", "ReplicaSetUpdated",
                                      "ReplicaSet \"" + rs_name + "\" is progressing."};
            set_condition(next, progressing, ConditionStyle::Deployment, now);
          }
          return next;
        },
        UpdateScope::Status);
  }

  EventRecorder events_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_deployment_controller(ObjectStore& store) {
  return std::make_unique<DeploymentController>(store);
}

}  // namespace tailor::embedded
