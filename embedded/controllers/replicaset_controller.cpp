// The ReplicaSet controller: keeps spec.replicas active pods from the template (replacing
// deleted, evicted and finished ones), removes surplus pods least useful first, and reports
// status (replicas, fullyLabeled, ready, available, observedGeneration, ReplicaFailure).
#include <algorithm>
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

// Which surplus pod to delete first: unassigned, then pending, then not ready, then the newest.
bool delete_before(const ObjectPtr& a, const ObjectPtr& b) {
  auto rank = [](const bj::object& p) {
    return std::make_tuple(!string_at(p, "spec.nodeName").empty(),
                           string_at(p, "status.phase") != "Pending", is_pod_ready(p));
  };
  auto ra = rank(*a), rb = rank(*b);
  if (ra != rb) return ra < rb;
  return meta_string(*a, "creationTimestamp") > meta_string(*b, "creationTimestamp");
}

class ReplicaSetController : public WatchLoop {
 public:
  ReplicaSetController(ObjectStore& store, SharedExtensions extensions)
      : WatchLoop(store, {&replicasets(), &pods_resource()}),
        extensions_(std::move(extensions)),
        events_(store, "replicaset-controller") {}

 protected:
  void reconcile() override {
    std::map<std::string, std::vector<ObjectPtr>> owned;  // by owner uid
    for (const auto& [key, pod] : cached(pods_resource())) {
      if (auto ref = controller_of(*pod); ref && ref->kind == "ReplicaSet") {
        owned[ref->uid].push_back(pod);
      }
    }
    std::vector<ObjectPtr> sets;
    for (const auto& [key, rs] : cached(replicasets())) sets.push_back(rs);
    for (const ObjectPtr& rs : sets) {
      if (is_terminating(*rs)) continue;
      try {
        sync(*rs, owned[meta_string(*rs, "uid")]);
      } catch (const std::exception&) {
        // Looked at again on the next pass: it changed or went meanwhile, or is invalid.
      }
    }
  }

 private:
  static const ResourceInfo& replicasets() {
    static const ResourceInfo& r = resource_named("apps", "replicasets");
    return r;
  }

  void sync(const bj::object& rs, std::vector<ObjectPtr> pods) {
    std::erase_if(pods, [](const ObjectPtr& p) { return !is_active_pod(*p); });
    std::int64_t wanted = int_at(rs, "spec.replicas", 1);
    auto active = static_cast<std::int64_t>(pods.size());
    std::optional<std::string> failure;
    if (active < wanted) {
      failure = create_pods(rs, wanted - active, pods);
    } else if (active > wanted) {
      std::sort(pods.begin(), pods.end(), delete_before);
      for (std::int64_t i = 0; i < active - wanted; ++i) {
        remove(pods_resource(), *pods[i], pod_grace_seconds(*pods[i]));
      }
      pods.erase(pods.begin(), pods.begin() + (active - wanted));
    }
    update_status(rs, pods, failure);
  }

  // Creates up to n pods; the first rejection (quota, webhook) stops the batch and is reported.
  std::optional<std::string> create_pods(const bj::object& rs, std::int64_t n,
                                         std::vector<ObjectPtr>& pods) {
    for (std::int64_t i = 0; i < n; ++i) {
      bj::object pod = pod_from_template(rs, replicasets(), meta_string(rs, "name") + "-");
      try {
        pods.push_back(create(pods_resource(),
                              admitted_for_create(*extensions_, pods_resource(), std::move(pod))));
        events_.record(rs, "Normal", "SuccessfulCreate",
                       "Created pod: " + meta_string(*pods.back(), "name"));
      } catch (const StatusError& e) {
        std::string message =
            "pods \"" + meta_string(rs, "name") + "-\" is forbidden: " + e.message();
        if (e.code() != 403) message = e.message();
        events_.record(rs, "Warning", "FailedCreate", "Error creating: " + message);
        return message;
      }
    }
    return std::nullopt;
  }

  void update_status(const bj::object& rs, const std::vector<ObjectPtr>& pods,
                     const std::optional<std::string>& failure) {
    kube::TimePoint now = system_now();
    std::int64_t min_ready = int_at(rs, "spec.minReadySeconds", 0);
    std::int64_t ready = 0, available = 0, labeled = 0;
    const bj::object& template_labels = object_at(rs, "spec.template.metadata.labels");
    for (const ObjectPtr& p : pods) {
      ready += is_pod_ready(*p);
      available += is_pod_available(*p, min_ready, now);
      const bj::object& labels = object_at(*p, "metadata.labels");
      labeled += std::all_of(template_labels.begin(), template_labels.end(), [&](const auto& kv) {
        const bj::value* v = labels.if_contains(kv.key());
        return v && *v == kv.value();
      });
    }
    std::string stamp = kube::format_rfc3339(now);
    modify(
        replicasets(), rs,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::value& sv = next["status"];
          if (!sv.is_object()) sv = bj::object{};
          bj::object& s = sv.as_object();
          s["replicas"] = static_cast<std::int64_t>(pods.size());
          s["fullyLabeledReplicas"] = labeled;
          s["readyReplicas"] = ready;
          s["availableReplicas"] = available;
          s["observedGeneration"] = int_at(current, "metadata.generation", 1);
          if (failure) {
            set_condition(next, {"ReplicaFailure", "True", "FailedCreate", *failure},
                          ConditionStyle::Deployment, stamp);
          } else if (bj::value* c = next["status"].as_object().if_contains("conditions")) {
            c->as_array().clear();
          }
          bj::object& status = next["status"].as_object();
          if (status.contains("conditions") && status["conditions"].as_array().empty()) {
            status.erase("conditions");
          }
          for (const char* zero : {"readyReplicas", "availableReplicas", "fullyLabeledReplicas"}) {
            if (int_at(status, zero, 0) == 0) status.erase(zero);
          }
          return next;
        },
        UpdateScope::Status);
  }

  SharedExtensions extensions_;
  EventRecorder events_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_replicaset_controller(ObjectStore& store, SharedExtensions ext) {
  return std::make_unique<ReplicaSetController>(store, std::move(ext));
}

}  // namespace tailor::embedded
