// The StatefulSet controller: pods <name>-0 … <name>-(n-1) with stable names; OrderedReady
// creates each only when the ones before it run and are ready, and removes from the highest
// ordinal one at a time (Parallel does both at once); a changed template replaces pods from the
// highest ordinal down (RollingUpdate, above the partition), one at a time.
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/rollout.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr const char* kRevisionLabel = "controller-revision-hash";

const ResourceInfo& statefulsets() {
  static const ResourceInfo& r = resource_named("apps", "statefulsets");
  return r;
}

// The ordinal of a pod named <set>-<n>; -1 when the name has another shape.
long ordinal_of(const std::string& set, const std::string& pod) {
  if (!pod.starts_with(set + "-")) return -1;
  std::string rest = pod.substr(set.size() + 1);
  if (rest.empty() || rest.size() > 9 || rest.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stol(rest);
}

class StatefulSetController : public WatchLoop {
 public:
  StatefulSetController(ObjectStore& store, SharedExtensions extensions)
      : WatchLoop(store, {&statefulsets(), &pods_resource()}),
        extensions_(std::move(extensions)),
        events_(store, "statefulset-controller") {}

 protected:
  void reconcile() override {
    std::map<std::string, std::map<long, ObjectPtr>> owned;
    for (const auto& [key, pod] : cached(pods_resource())) {
      auto ref = controller_of(*pod);
      if (!ref || ref->kind != "StatefulSet") continue;
      long ordinal = ordinal_of(ref->name, meta_string(*pod, "name"));
      if (ordinal >= 0) owned[ref->uid][ordinal] = pod;
    }
    std::vector<ObjectPtr> sets;
    for (const auto& [key, s] : cached(statefulsets())) sets.push_back(s);
    for (const ObjectPtr& s : sets) {
      if (is_terminating(*s)) continue;
      try {
        sync(*s, owned[meta_string(*s, "uid")]);
      } catch (const std::exception&) {
        // Looked at again on the next pass: it changed or went meanwhile, or is invalid.
      }
    }
  }

 private:
  std::string revision(const bj::object& set) const {
    return meta_string(set, "name") + "-" + pod_template_hash(object_at(set, "spec.template"), 0);
  }

  static bool running_and_ready(const bj::object& pod) {
    return is_active_pod(pod) && string_at(pod, "status.phase") == "Running" && is_pod_ready(pod);
  }

  void sync(const bj::object& set, std::map<long, ObjectPtr> pods) {
    long replicas = static_cast<long>(int_at(set, "spec.replicas", 1));
    bool parallel = string_at(set, "spec.podManagementPolicy") == "Parallel";
    std::string update = revision(set);
    bool healthy = true;  // every pod below the current ordinal runs and is ready
    for (long i = 0; i < replicas; ++i) {
      auto it = pods.find(i);
      if (it == pods.end() || !is_active_pod(*it->second)) {
        if (it != pods.end()) {  // finished pods are replaced once gone; terminating ones go
          if (!is_terminating(*it->second)) remove(pods_resource(), *it->second, 0);
          healthy = false;
          if (!parallel) break;
          continue;
        }
        if (!parallel && !healthy) break;
        pods[i] = create_pod(set, i, update);
        healthy = false;
        if (!parallel) break;
        continue;
      }
      healthy = healthy && running_and_ready(*it->second);
      if (!parallel && !healthy) break;
    }
    bool all_ready = true;
    for (long i = 0; i < replicas; ++i) {
      all_ready = all_ready && pods.contains(i) && running_and_ready(*pods[i]);
    }
    // Surplus pods go from the highest ordinal.
    for (auto it = pods.rbegin(); it != pods.rend(); ++it) {
      if (it->first < replicas || !is_active_pod(*it->second)) continue;
      if (!parallel && !all_ready) break;
      remove(pods_resource(), *it->second, pod_grace_seconds(*it->second));
      if (!parallel) break;
    }
    if (all_ready && string_at(set, "spec.updateStrategy.type") != "OnDelete") {
      long partition =
          static_cast<long>(int_at(set, "spec.updateStrategy.rollingUpdate.partition", 0));
      for (long i = replicas - 1; i >= partition; --i) {
        const bj::object& pod = *pods[i];
        if (label(pod, kRevisionLabel) != update) {
          remove(pods_resource(), pod, pod_grace_seconds(pod));
          break;
        }
      }
    }
    update_status(set, pods, update);
  }

  ObjectPtr create_pod(const bj::object& set, long ordinal, const std::string& update) {
    std::string name = meta_string(set, "name") + "-" + std::to_string(ordinal);
    bj::object pod = pod_from_template(set, statefulsets(), "", name);
    bj::object& meta = pod["metadata"].as_object();
    bj::value& labels = meta["labels"];
    if (!labels.is_object()) labels = bj::object{};
    labels.as_object()[kRevisionLabel] = update;
    labels.as_object()["statefulset.kubernetes.io/pod-name"] = name;
    labels.as_object()["apps.kubernetes.io/pod-index"] = std::to_string(ordinal);
    bj::object& spec = pod["spec"].as_object();
    spec["hostname"] = name;
    if (std::string service = string_at(set, "spec.serviceName"); !service.empty()) {
      spec["subdomain"] = service;
    }
    try {
      ObjectPtr created = create(
          pods_resource(), admitted_for_create(*extensions_, pods_resource(), std::move(pod)));
      events_.record(
          set, "Normal", "SuccessfulCreate",
          "create Pod " + name + " in StatefulSet " + meta_string(set, "name") + " successful");
      return created;
    } catch (const StatusError& e) {
      events_.record(set, "Warning", "FailedCreate",
                     "create Pod " + name + " in StatefulSet " + meta_string(set, "name") +
                         " failed error: " + e.message());
      throw;
    }
  }

  void update_status(const bj::object& set, const std::map<long, ObjectPtr>& pods,
                     const std::string& update) {
    kube::TimePoint now = system_now();
    std::int64_t min_ready = int_at(set, "spec.minReadySeconds", 0);
    std::int64_t count = 0, ready = 0, available = 0, updated = 0;
    for (const auto& [ordinal, pod] : pods) {
      if (!is_active_pod(*pod)) continue;
      ++count;
      ready += is_pod_ready(*pod);
      available += is_pod_available(*pod, min_ready, now);
      updated += label(*pod, kRevisionLabel) == update;
    }
    std::int64_t replicas = int_at(set, "spec.replicas", 1);
    modify(
        statefulsets(), set,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::value& sv = next["status"];
          if (!sv.is_object()) sv = bj::object{};
          bj::object& s = sv.as_object();
          std::string current_revision = string_at(s, "currentRevision");
          if (current_revision.empty() || (updated == replicas && count == replicas)) {
            current_revision = update;
          }
          s["observedGeneration"] = int_at(current, "metadata.generation", 1);
          s["replicas"] = count;
          s["readyReplicas"] = ready;
          s["availableReplicas"] = available;
          s["currentReplicas"] = current_revision == update ? updated : count - updated;
          s["updatedReplicas"] = updated;
          s["currentRevision"] = current_revision;
          s["updateRevision"] = update;
          s["collisionCount"] = 0;
          return next;
        },
        UpdateScope::Status);
  }

  SharedExtensions extensions_;
  EventRecorder events_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_statefulset_controller(ObjectStore& store, SharedExtensions ext) {
  return std::make_unique<StatefulSetController>(store, std::move(ext));
}

}  // namespace tailor::embedded
