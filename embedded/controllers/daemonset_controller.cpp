// The DaemonSet controller: one pod per node the template's node selector, affinity and
// tolerations admit, pinned to it by node affinity (the scheduler binds it); pods on other nodes
// go; a changed template replaces pods up to maxUnavailable at a time.
#include <boost/json.hpp>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/pod_templates.h"
#include "embedded/controllers/rollout.h"
#include "embedded/controllers/scheduling.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {
namespace {

constexpr const char* kRevisionLabel = "controller-revision-hash";

const ResourceInfo& daemonsets() {
  static const ResourceInfo& r = resource_named("apps", "daemonsets");
  return r;
}

// The tolerations the DaemonSet controller adds to its pods.
bj::array daemon_tolerations() {
  bj::array out;
  auto add = [&](const char* key, const char* effect) {
    out.push_back(bj::object{{"key", key}, {"operator", "Exists"}, {"effect", effect}});
  };
  add("node.kubernetes.io/not-ready", "NoExecute");
  add("node.kubernetes.io/unreachable", "NoExecute");
  add("node.kubernetes.io/disk-pressure", "NoSchedule");
  add("node.kubernetes.io/memory-pressure", "NoSchedule");
  add("node.kubernetes.io/pid-pressure", "NoSchedule");
  add("node.kubernetes.io/unschedulable", "NoSchedule");
  return out;
}

bj::object pinned_affinity(const std::string& node) {
  bj::object field{{"key", "metadata.name"}, {"operator", "In"}, {"values", bj::array{node}}};
  bj::object term{{"matchFields", bj::array{std::move(field)}}};
  return bj::object{{"nodeAffinity",
                     bj::object{{"requiredDuringSchedulingIgnoredDuringExecution",
                                 bj::object{{"nodeSelectorTerms", bj::array{std::move(term)}}}}}}};
}

// The node a daemon pod is for: where it is bound, else where its affinity pins it.
std::string node_of(const bj::object& pod) {
  std::string bound = string_at(pod, "spec.nodeName");
  if (!bound.empty()) return bound;
  const bj::value* terms = find_path(pod,
                                     "spec.affinity.nodeAffinity."
                                     "requiredDuringSchedulingIgnoredDuringExecution."
                                     "nodeSelectorTerms");
  if (!terms || !terms->is_array()) return "";
  for (const bj::value& t : terms->as_array()) {
    const bj::value* fields = t.is_object() ? t.as_object().if_contains("matchFields") : nullptr;
    if (!fields || !fields->is_array()) continue;
    for (const bj::value& f : fields->as_array()) {
      const bj::value* values = f.is_object() ? f.as_object().if_contains("values") : nullptr;
      if (values && values->is_array() && values->as_array().size() == 1 &&
          values->as_array()[0].is_string()) {
        return std::string(values->as_array()[0].as_string());
      }
    }
  }
  return "";
}

class DaemonSetController : public WatchLoop {
 public:
  DaemonSetController(ObjectStore& store, SharedExtensions extensions)
      : WatchLoop(store, {&daemonsets(), &nodes_resource(), &pods_resource()}),
        extensions_(std::move(extensions)),
        events_(store, "daemonset-controller") {}

 protected:
  void reconcile() override {
    std::map<std::string, std::vector<ObjectPtr>> owned;
    for (const auto& [key, pod] : cached(pods_resource())) {
      if (auto ref = controller_of(*pod); ref && ref->kind == "DaemonSet") {
        owned[ref->uid].push_back(pod);
      }
    }
    std::vector<ObjectPtr> sets;
    for (const auto& [key, s] : cached(daemonsets())) sets.push_back(s);
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
  // A pod of this set for `node` as it will be created (for the eligibility check too).
  bj::object daemon_pod(const bj::object& set, const std::string& node,
                        const std::string& revision) const {
    bj::object pod = pod_from_template(set, daemonsets(), meta_string(set, "name") + "-");
    bj::value& labels = pod["metadata"].as_object()["labels"];
    if (!labels.is_object()) labels = bj::object{};
    labels.as_object()[kRevisionLabel] = revision;
    bj::object& spec = pod["spec"].as_object();
    spec["affinity"] = pinned_affinity(node);
    bj::value& tolerations = spec["tolerations"];
    if (!tolerations.is_array()) tolerations = bj::array{};
    for (bj::value& t : daemon_tolerations()) tolerations.as_array().push_back(std::move(t));
    return pod;
  }

  bool eligible(const bj::object& set, const bj::object& node) const {
    bj::object pod = daemon_pod(set, meta_string(node, "name"), "");
    if (const bj::value* a = find_path(set, "spec.template.spec.affinity.nodeAffinity")) {
      // The template's own node affinity decides too (the pin replaces it on the pod).
      bj::object probe = pod;
      probe["spec"].as_object()["affinity"] = bj::object{{"nodeAffinity", *a}};
      if (!filter_failures(probe, {}, node, {}).empty()) return false;
    }
    return filter_failures(pod, {}, node, {}).empty();
  }

  void sync(const bj::object& set, const std::vector<ObjectPtr>& pods) {
    std::string revision = pod_template_hash(object_at(set, "spec.template"), 0);
    std::map<std::string, std::vector<ObjectPtr>> by_node;
    for (const ObjectPtr& p : pods) by_node[node_of(*p)].push_back(p);
    std::int64_t desired = 0, scheduled = 0, misscheduled = 0, ready = 0, available = 0;
    std::int64_t updated = 0, unavailable = 0;
    std::vector<ObjectPtr> outdated;
    kube::TimePoint now = system_now();
    std::int64_t min_ready = int_at(set, "spec.minReadySeconds", 0);
    for (const auto& [name, node] : cached(nodes_resource())) {
      std::string node_name = meta_string(*node, "name");
      std::vector<ObjectPtr> here = by_node[node_name];
      by_node.erase(node_name);
      std::erase_if(here, [](const ObjectPtr& p) { return !is_active_pod(*p); });
      if (!eligible(set, *node)) {
        for (const ObjectPtr& p : here) remove(pods_resource(), *p, pod_grace_seconds(*p));
        misscheduled += !here.empty();
        continue;
      }
      ++desired;
      if (here.empty()) {
        create_pod(set, node_name, revision);
        ++unavailable;
        continue;
      }
      for (std::size_t i = 1; i < here.size(); ++i) {
        remove(pods_resource(), *here[i], pod_grace_seconds(*here[i]));
      }
      const bj::object& pod = *here[0];
      ++scheduled;
      ready += is_pod_ready(pod);
      bool ok = is_pod_available(pod, min_ready, now);
      available += ok;
      unavailable += !ok;
      if (label(pod, kRevisionLabel) == revision) {
        ++updated;
      } else {
        outdated.push_back(here[0]);
      }
    }
    for (const auto& [node, rest] : by_node) {  // pods for nodes that are gone
      for (const ObjectPtr& p : rest) {
        if (is_active_pod(*p)) remove(pods_resource(), *p, pod_grace_seconds(*p));
      }
    }
    replace_outdated(set, outdated, desired, unavailable);
    write_status(set, {desired, scheduled, misscheduled, ready, available, updated});
  }

  void replace_outdated(const bj::object& set, const std::vector<ObjectPtr>& outdated,
                        std::int64_t desired, std::int64_t unavailable) {
    if (string_at(set, "spec.updateStrategy.type") == "OnDelete") return;
    const bj::value* max = find_path(set, "spec.updateStrategy.rollingUpdate.maxUnavailable");
    std::int64_t budget =
        (max ? resolve_int_or_percent(*max, desired, true, "maxUnavailable") : 1) - unavailable;
    for (std::size_t i = 0; i < outdated.size() && budget > 0; ++i, --budget) {
      remove(pods_resource(), *outdated[i], pod_grace_seconds(*outdated[i]));
    }
  }

  void create_pod(const bj::object& set, const std::string& node, const std::string& revision) {
    try {
      ObjectPtr pod = create(pods_resource(), admitted_for_create(*extensions_, pods_resource(),
                                                                  daemon_pod(set, node, revision)));
      events_.record(set, "Normal", "SuccessfulCreate",
                     "Created pod: " + meta_string(*pod, "name"));
    } catch (const StatusError& e) {
      events_.record(set, "Warning", "FailedCreate", "Error creating: " + e.message());
    }
  }

  struct Counts {
    std::int64_t desired, scheduled, misscheduled, ready, available, updated;
  };

  void write_status(const bj::object& set, const Counts& c) {
    modify(
        daemonsets(), set,
        [&](const bj::object& current) {
          bj::object next = current;
          bj::object s = object_at(current, "status");
          s["currentNumberScheduled"] = c.scheduled;
          s["numberMisscheduled"] = c.misscheduled;
          s["desiredNumberScheduled"] = c.desired;
          s["numberReady"] = c.ready;
          s["observedGeneration"] = int_at(current, "metadata.generation", 1);
          s["updatedNumberScheduled"] = c.updated;
          s["numberAvailable"] = c.available;
          s["numberUnavailable"] = std::max<std::int64_t>(0, c.desired - c.available);
          for (const char* zero :
               {"updatedNumberScheduled", "numberAvailable", "numberUnavailable"}) {
            if (int_at(s, zero, 0) == 0) s.erase(zero);
          }
          next["status"] = std::move(s);
          return next;
        },
        UpdateScope::Status);
  }

  SharedExtensions extensions_;
  EventRecorder events_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_daemonset_controller(ObjectStore& store, SharedExtensions ext) {
  return std::make_unique<DaemonSetController>(store, std::move(ext));
}

}  // namespace tailor::embedded
