// The default scheduler: binds pending pods to nodes that fit them, one pass per batch of pod
// and node changes.
#include <boost/json.hpp>
#include <unordered_map>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/scheduling.h"
#include "embedded/controllers/watch_loop.h"

namespace tailor::embedded {

ObjectPtr bind_pod(ObjectStore& store, const std::string& ns, const std::string& name,
                   const std::string& node, const std::string& uid) {
  const ResourceInfo& pods = pods_resource();
  std::string now = kube::format_rfc3339(system_now());
  ObjectPtr bound = store.modify(
      pods, ns, name,
      [&](const bj::object& pod) {
        if (!uid.empty() && uid != meta_string(pod, "uid")) {
          throw conflict({"", "pods/binding"}, name,
                         "the UID in the binding does not match the pod");
        }
        std::string current = string_at(pod, "spec.nodeName");
        if (!current.empty()) {
          throw conflict({"", "pods/binding"}, name,
                         "pod " + name + " is already assigned to node \"" + current + "\"");
        }
        if (is_terminating(pod)) {
          throw conflict({"", "pods/binding"}, name,
                         "pod " + name + " is being deleted, cannot be assigned to a host");
        }
        bj::object next = pod;
        next["spec"].as_object()["nodeName"] = node;
        return next;
      },
      UpdateScope::Binding);
  return store.modify(
      pods, ns, name,
      [&](const bj::object& pod) {
        bj::object next = pod;
        set_condition(next, {"PodScheduled", "True", "", ""}, ConditionStyle::Pod, now);
        return next;
      },
      UpdateScope::Status);
}

namespace {

class Scheduler : public WatchLoop {
 public:
  explicit Scheduler(ObjectStore& store)
      : WatchLoop(store, {&pods_resource(), &nodes_resource()}),
        events_(store, "default-scheduler") {}

 protected:
  void reconcile() override {
    std::vector<ObjectPtr> pending;
    for (const auto& [key, pod] : cached(pods_resource())) {
      if (string_at(*pod, "spec.nodeName").empty() && is_active_pod(*pod) &&
          string_at(*pod, "spec.schedulerName") == "default-scheduler") {
        pending.push_back(pod);
      }
    }
    if (pending.empty()) return;
    std::map<std::string, NodeUsage> usage = node_usage();
    for (const ObjectPtr& pod : pending) {
      try {
        schedule(*pod, usage);
      } catch (const StatusError&) {
        // Deleted or bound by someone else meanwhile: seen again with the next change.
      }
    }
  }

 private:
  // What bound pods take from each node; terminating pods still hold their resources.
  std::map<std::string, NodeUsage> node_usage() {
    std::map<std::string, NodeUsage> usage;
    std::unordered_map<std::string, std::pair<std::string, kube::ResourceList>> fresh;
    for (const auto& [key, pod] : cached(pods_resource())) {
      std::string node = string_at(*pod, "spec.nodeName");
      std::string phase = string_at(*pod, "status.phase");
      if (node.empty() || phase == "Succeeded" || phase == "Failed") continue;
      NodeUsage& u = usage[node];
      ++u.pods;
      add_resources(u.requested, requests_of(*pod, fresh));
    }
    requests_.swap(fresh);
    return usage;
  }

  // Decoding a pod is the costly part: remembered per resourceVersion.
  const kube::ResourceList& requests_of(
      const bj::object& pod,
      std::unordered_map<std::string, std::pair<std::string, kube::ResourceList>>& fresh) {
    std::string key = key_of(pod), rv = meta_string(pod, "resourceVersion");
    auto it = requests_.find(key);
    if (it != requests_.end() && it->second.first == rv) {
      return fresh.emplace(key, std::move(it->second)).first->second.second;
    }
    kube::ResourceList r;
    try {
      r = scheduling_requests(pod);
    } catch (const std::exception&) {
      // An unreadable pod takes nothing; the API server rejects such specs on create.
    }
    return fresh.insert_or_assign(key, std::make_pair(rv, std::move(r))).first->second.second;
  }

  void schedule(const bj::object& pod, std::map<std::string, NodeUsage>& usage) {
    kube::ResourceList requests;
    try {
      requests = scheduling_requests(pod);
    } catch (const std::exception& e) {
      mark_unschedulable(pod, std::string("invalid pod: ") + e.what());
      return;
    }
    std::vector<const bj::object*> fitting;
    std::vector<const NodeUsage*> fitting_usage;
    std::vector<std::vector<std::string>> failures;
    for (const auto& [name, node] : cached(nodes_resource())) {
      const NodeUsage& u = usage[meta_string(*node, "name")];
      std::vector<std::string> why = filter_failures(pod, requests, *node, u);
      if (why.empty()) {
        fitting.push_back(node.get());
        fitting_usage.push_back(&u);
      } else {
        failures.push_back(std::move(why));
      }
    }
    if (fitting.empty()) {
      mark_unschedulable(pod, unschedulable_message(failures));
      return;
    }
    const bj::object& node = *fitting[pick_least_allocated(fitting, fitting_usage, requests)];
    std::string node_name = meta_string(node, "name");
    ObjectPtr bound = bind_pod(store_, meta_string(pod, "namespace"), meta_string(pod, "name"),
                               node_name, meta_string(pod, "uid"));
    remember(pods_resource(), bound);
    NodeUsage& u = usage[node_name];
    ++u.pods;
    add_resources(u.requested, requests);
    events_.record(*bound, "Normal", "Scheduled",
                   "Successfully assigned " + meta_string(pod, "namespace") + "/" +
                       meta_string(pod, "name") + " to " + node_name);
  }

  void mark_unschedulable(const bj::object& pod, const std::string& message) {
    std::string now = kube::format_rfc3339(system_now());
    bool changed = false;
    ObjectPtr updated = modify(
        pods_resource(), pod,
        [&](const bj::object& current) {
          bj::object next = current;
          changed = set_condition(next, {"PodScheduled", "False", "Unschedulable", message},
                                  ConditionStyle::Pod, now);
          return next;
        },
        UpdateScope::Status);
    if (changed) events_.record(*updated, "Warning", "FailedScheduling", message);
  }

  EventRecorder events_;
  std::unordered_map<std::string, std::pair<std::string, kube::ResourceList>> requests_;
};

}  // namespace

std::unique_ptr<ControlLoop> make_scheduler(ObjectStore& store) {
  return std::make_unique<Scheduler>(store);
}

}  // namespace tailor::embedded
