// The kubelet of simulated nodes (they have no agent): runs their pods at once — Running, Ready
// (once every readiness gate's condition, set by whoever owns it, is True), container statuses with
// the allocated and actual resources of the spec (a resize takes effect immediately) — and
// completes graceful deletions. Pods on other nodes belong to their agents.
#include <boost/json.hpp>
#include <random>
#include <set>

#include "embedded/controllers/api_writes.h"
#include "embedded/controllers/conditions.h"
#include "embedded/controllers/loops.h"
#include "embedded/controllers/objects.h"
#include "embedded/controllers/watch_loop.h"
#include "embedded/server/simulated_nodes.h"

namespace tailor::embedded {
namespace {

bool is_simulated(const bj::object& node) {
  return annotation(node, kSimulatedNodeAnnotation) == "true";
}

// Only cpu and memory are reported by the kubelet as a container's actual resources.
bj::object cpu_and_memory(const bj::object& list) {
  bj::object out;
  for (std::string_view name : {"cpu", "memory"}) {
    if (const bj::value* q = list.if_contains(name)) out[name] = *q;
  }
  return out;
}

std::string container_id() {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  std::string id = "containerd://";
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 64; ++i) id += kHex[rng() % 16];
  return id;
}

const bj::object* find_named(const bj::value* list, const std::string& name) {
  if (!list || !list->is_array()) return nullptr;
  for (const bj::value& v : list->as_array()) {
    if (v.is_object() && string_at(v.as_object(), "name") == name) return &v.as_object();
  }
  return nullptr;
}

bj::object container_status(const bj::object& container, const bj::value* previous,
                            const std::string& started_at, bool completed) {
  std::string name = string_at(container, "name");
  const bj::object* before = find_named(previous, name);
  const bj::object& resources = object_at(container, "resources");
  bj::object actual;
  bj::object requests = cpu_and_memory(object_at(resources, "requests"));
  bj::object limits = cpu_and_memory(object_at(resources, "limits"));
  if (!requests.empty()) actual["requests"] = requests;
  if (!limits.empty()) actual["limits"] = limits;
  bj::object state;
  if (completed) {
    state["terminated"] = bj::object{{"exitCode", 0},
                                     {"reason", "Completed"},
                                     {"startedAt", started_at},
                                     {"finishedAt", started_at}};
  } else {
    state["running"] = bj::object{{"startedAt", started_at}};
  }
  bj::object status{{"name", name},
                    {"image", string_at(container, "image")},
                    {"imageID", string_at(container, "image")},
                    {"containerID", before ? string_at(*before, "containerID") : container_id()},
                    {"ready", !completed},
                    {"started", !completed},
                    {"restartCount", 0},
                    {"state", before && before->contains("state") ? before->at("state") : state},
                    {"lastState", bj::object{}}};
  if (!completed) {
    status["allocatedResources"] = object_at(resources, "requests");
    status["resources"] = std::move(actual);
  }
  return status;
}

// The Ready condition as the kubelet reports it: containers run at once, so only readiness gates
// hold a pod back — their conditions are written by others (a test, a load-balancer controller).
Condition ready_condition_of(const bj::object& pod) {
  std::string unready;
  const bj::value* gates = find_path(pod, "spec.readinessGates");
  if (gates && gates->is_array()) {
    for (const bj::value& g : gates->as_array()) {
      if (!g.is_object()) continue;
      std::string type = string_at(g.as_object(), "conditionType");
      std::string current = condition_status(pod, type);
      if (current == "True") continue;
      if (!unready.empty()) unready += ", ";
      unready +=
          current.empty()
              ? "corresponding condition of pod readiness gate \"" + type + "\" does not exist."
              : "the status of pod readiness gate \"" + type + "\" is not \"True\", but " + current;
    }
  }
  if (unready.empty()) return {"Ready", "True", "", ""};
  return {"Ready", "False", "ReadinessGatesNotReady", unready};
}

class SimulatedKubelet : public WatchLoop {
 public:
  explicit SimulatedKubelet(ObjectStore& store)
      : WatchLoop(store, {&pods_resource(), &nodes_resource()}) {}

 protected:
  void reconcile() override {
    std::map<std::string, const bj::object*> nodes;
    for (const auto& [key, node] : cached(nodes_resource())) {
      if (is_simulated(*node)) nodes[meta_string(*node, "name")] = node.get();
    }
    if (nodes.empty()) return;
    std::vector<ObjectPtr> pods;
    for (const auto& [key, pod] : cached(pods_resource())) {
      if (nodes.contains(string_at(*pod, "spec.nodeName"))) pods.push_back(pod);
    }
    for (const ObjectPtr& pod : pods) {
      if (is_terminating(*pod)) {
        remove(pods_resource(), *pod, 0);
        continue;
      }
      std::string phase = string_at(*pod, "status.phase");
      if (phase == "Succeeded" || phase == "Failed") continue;
      bj::object wanted = running_status(*pod, *nodes[string_at(*pod, "spec.nodeName")]);
      if (find_path(*pod, "status") && *find_path(*pod, "status") == wanted) continue;
      modify(
          pods_resource(), *pod,
          [&](const bj::object& current) {
            bj::object next = current;
            next["status"] = running_status(current, *nodes[string_at(current, "spec.nodeName")]);
            return next;
          },
          UpdateScope::Status);
    }
  }

 private:
  bj::object running_status(const bj::object& pod, const bj::object& node) {
    const bj::object& old = object_at(pod, "status");
    bj::object status = old;
    std::string now = kube::format_rfc3339(system_now());
    std::string started = string_at(old, "startTime").empty() ? now : string_at(old, "startTime");
    status["phase"] = "Running";
    status["hostIP"] = host_ip(node);
    status["hostIPs"] = bj::array{bj::object{{"ip", host_ip(node)}}};
    std::string ip = string_at(old, "podIP").empty() ? next_pod_ip() : string_at(old, "podIP");
    status["podIP"] = ip;
    status["podIPs"] = bj::array{bj::object{{"ip", ip}}};
    status["startTime"] = started;
    status["observedGeneration"] = int_at(pod, "metadata.generation", 1);
    bj::object with_conditions{{"status", std::move(status)}};
    for (const std::string type :
         {"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"}) {
      Condition c = type == "Ready" ? ready_condition_of(pod) : Condition{type, "True", "", ""};
      set_condition(with_conditions, c, ConditionStyle::Pod, now);
    }
    bj::object& s = with_conditions["status"].as_object();
    remove_resize_conditions(s);
    s["containerStatuses"] =
        statuses(pod, "containers", old.if_contains("containerStatuses"), started, false);
    if (find_path(pod, "spec.initContainers")) {
      s["initContainerStatuses"] =
          statuses(pod, "initContainers", old.if_contains("initContainerStatuses"), started, true);
    }
    return s;
  }

  static void remove_resize_conditions(bj::object& status) {
    bj::value* conditions = status.if_contains("conditions");
    if (!conditions || !conditions->is_array()) return;
    bj::array kept;
    for (const bj::value& c : conditions->as_array()) {
      std::string type = c.is_object() ? string_at(c.as_object(), "type") : "";
      if (type != "PodResizePending" && type != "PodResizeInProgress") kept.push_back(c);
    }
    *conditions = std::move(kept);
  }

  static bj::array statuses(const bj::object& pod, std::string_view list, const bj::value* previous,
                            const std::string& started, bool init) {
    bj::array out;
    const bj::value* containers = find_path(pod, std::string("spec.") + std::string(list));
    if (!containers || !containers->is_array()) return out;
    for (const bj::value& c : containers->as_array()) {
      if (!c.is_object()) continue;
      bool sidecar = string_at(c.as_object(), "restartPolicy") == "Always";
      out.push_back(container_status(c.as_object(), previous, started, init && !sidecar));
    }
    return out;
  }

  static std::string host_ip(const bj::object& node) {
    return node_address(node, "InternalIP").value_or("10.0.0.1");
  }

  std::string next_pod_ip() {
    ++pod_ips_;
    return "10.244." + std::to_string((pod_ips_ / 250) % 250) + "." +
           std::to_string(pod_ips_ % 250 + 2);
  }

  std::uint64_t pod_ips_ = 0;
};

}  // namespace

std::unique_ptr<ControlLoop> make_simulated_kubelet(ObjectStore& store) {
  return std::make_unique<SimulatedKubelet>(store);
}

}  // namespace tailor::embedded
