#include "embedded/controllers/scheduling.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>

#include "embedded/controllers/objects.h"
#include "kube/model/decode.h"
#include "kube/model/pod_resources.h"

namespace tailor::embedded {
namespace {

constexpr std::string_view kUnschedulable = "node(s) were unschedulable";
constexpr std::string_view kAffinity = "node(s) didn't match Pod's node affinity/selector";
constexpr std::string_view kTooManyPods = "Too many pods";

struct Taint {
  std::string key, value, effect;
};

bool tolerates(const bj::object& pod, const Taint& taint) {
  const bj::value* tolerations = find_path(pod, "spec.tolerations");
  if (!tolerations || !tolerations->is_array()) return false;
  for (const bj::value& t : tolerations->as_array()) {
    if (!t.is_object()) continue;
    const bj::object& o = t.as_object();
    std::string effect = string_at(o, "effect"), key = string_at(o, "key");
    std::string op = string_at(o, "operator");
    if (!effect.empty() && effect != taint.effect) continue;
    if (key.empty() ? op != "Exists" : key != taint.key) continue;
    if (op == "Exists" || string_at(o, "value") == taint.value) return true;
  }
  return false;
}

// Taints that keep pods off the node: NoSchedule / NoExecute ones, and the not-ready taint the
// node lifecycle controller puts on a node that is not Ready.
std::vector<Taint> blocking_taints(const bj::object& node) {
  std::vector<Taint> out;
  if (const bj::value* taints = find_path(node, "spec.taints"); taints && taints->is_array()) {
    for (const bj::value& t : taints->as_array()) {
      if (!t.is_object()) continue;
      Taint taint{string_at(t.as_object(), "key"), string_at(t.as_object(), "value"),
                  string_at(t.as_object(), "effect")};
      if (taint.effect == "NoSchedule" || taint.effect == "NoExecute") out.push_back(taint);
    }
  }
  bool ready = false;
  if (const bj::value* c = find_path(node, "status.conditions"); c && c->is_array()) {
    for (const bj::value& cond : c->as_array()) {
      if (cond.is_object() && string_at(cond.as_object(), "type") == "Ready") {
        ready = string_at(cond.as_object(), "status") == "True";
      }
    }
  }
  if (!ready) out.push_back({"node.kubernetes.io/not-ready", "", "NoSchedule"});
  return out;
}

bool label_requirement(const bj::object& expression, const std::string* actual) {
  std::string op = string_at(expression, "operator");
  std::vector<std::string> values;
  if (const bj::value* v = expression.if_contains("values"); v && v->is_array()) {
    for (const bj::value& s : v->as_array()) {
      if (s.is_string()) values.emplace_back(s.as_string());
    }
  }
  bool in = actual && std::find(values.begin(), values.end(), *actual) != values.end();
  if (op == "In") return in;
  if (op == "NotIn") return !in;
  if (op == "Exists") return actual != nullptr;
  if (op == "DoesNotExist") return actual == nullptr;
  if ((op == "Gt" || op == "Lt") && actual && values.size() == 1) {
    try {
      long long a = std::stoll(*actual), b = std::stoll(values[0]);
      return op == "Gt" ? a > b : a < b;
    } catch (const std::exception&) {
      return false;
    }
  }
  return false;
}

bool term_matches(const bj::object& term, const bj::object& node) {
  const bj::object& labels = object_at(node, "metadata.labels");
  bool any = false;
  for (std::string_view list : {"matchExpressions", "matchFields"}) {
    const bj::value* exprs = term.if_contains(list);
    if (!exprs || !exprs->is_array()) continue;
    for (const bj::value& e : exprs->as_array()) {
      if (!e.is_object()) return false;
      any = true;
      std::string key = string_at(e.as_object(), "key");
      std::optional<std::string> actual;
      if (list == "matchFields") {
        if (key == "metadata.name") actual = meta_string(node, "name");
      } else if (const bj::value* v = labels.if_contains(key); v && v->is_string()) {
        actual = std::string(v->as_string());
      }
      if (!label_requirement(e.as_object(), actual ? &*actual : nullptr)) return false;
    }
  }
  return any;  // an empty term selects no node
}

bool matches_node_affinity(const bj::object& pod, const bj::object& node) {
  const bj::object& labels = object_at(node, "metadata.labels");
  for (const auto& [k, v] : object_at(pod, "spec.nodeSelector")) {
    const bj::value* have = labels.if_contains(k);
    if (!have || *have != v) return false;
  }
  const bj::value* terms =
      find_path(pod,
                "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
                "nodeSelectorTerms");
  if (!terms || !terms->is_array()) return true;
  return std::any_of(terms->as_array().begin(), terms->as_array().end(), [&](const bj::value& t) {
    return t.is_object() && term_matches(t.as_object(), node);
  });
}

std::vector<std::string> resource_failures(const kube::ResourceList& requests,
                                           const bj::object& node, const NodeUsage& usage) {
  std::vector<std::string> out;
  const bj::object& allocatable = object_at(node, "status.allocatable");
  auto quantity = [&](std::string_view name) {
    const bj::value* v = allocatable.if_contains(name);
    auto q = v && v->is_string() ? kube::Quantity::try_parse(v->as_string()) : std::nullopt;
    return q.value_or(kube::Quantity());
  };
  if (allocatable.contains("pods") && usage.pods + 1 > quantity("pods").value()) {
    out.emplace_back(kTooManyPods);
  }
  for (const auto& [name, request] : requests) {
    if (name == "pods" || request.sign() <= 0) continue;
    const kube::Quantity* used = find_resource(usage.requested, name);
    kube::Quantity free = quantity(name) - (used ? *used : kube::Quantity());
    if (request > free) out.push_back("Insufficient " + name);
  }
  return out;
}

bool is_resource_failure(const std::string& reason) {
  return reason == kTooManyPods || reason.starts_with("Insufficient ");
}

std::string histogram(const std::vector<std::string>& reasons) {
  std::map<std::string, int> counts;
  for (const std::string& r : reasons) ++counts[r];
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) parts.push_back(std::to_string(n) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

double free_fraction(const bj::object& node, const NodeUsage& usage,
                     const kube::ResourceList& requests, std::string_view name) {
  const bj::value* v = object_at(node, "status.allocatable").if_contains(name);
  auto alloc = v && v->is_string() ? kube::Quantity::try_parse(v->as_string()) : std::nullopt;
  if (!alloc || alloc->sign() <= 0) return 0;
  kube::Quantity used;
  if (const kube::Quantity* u = find_resource(usage.requested, name)) used += *u;
  if (const kube::Quantity* r = find_resource(requests, name)) used += *r;
  return (alloc->as_double() - used.as_double()) / alloc->as_double();
}

}  // namespace

kube::ResourceList scheduling_requests(const bj::object& pod) {
  kube::PodResourcesOptions options;
  options.use_status_resources = true;
  return pod_requests(kube::decode<kube::Pod>(bj::serialize(pod)), options);
}

std::vector<std::string> filter_failures(const bj::object& pod, const kube::ResourceList& requests,
                                         const bj::object& node, const NodeUsage& usage) {
  const bj::value* unschedulable = find_path(node, "spec.unschedulable");
  if (unschedulable && unschedulable->is_bool() && unschedulable->as_bool() &&
      !tolerates(pod, {"node.kubernetes.io/unschedulable", "", "NoSchedule"})) {
    return {std::string(kUnschedulable)};
  }
  for (const Taint& taint : blocking_taints(node)) {
    if (!tolerates(pod, taint)) {
      return {"node(s) had untolerated taint {" + taint.key + ": " + taint.value + "}"};
    }
  }
  if (!matches_node_affinity(pod, node)) return {std::string(kAffinity)};
  return resource_failures(requests, node, usage);
}

std::size_t pick_least_allocated(const std::vector<const bj::object*>& fitting,
                                 const std::vector<const NodeUsage*>& usage,
                                 const kube::ResourceList& requests) {
  std::size_t best = 0;
  double best_score = -1;
  for (std::size_t i = 0; i < fitting.size(); ++i) {
    double score = (free_fraction(*fitting[i], *usage[i], requests, "cpu") +
                    free_fraction(*fitting[i], *usage[i], requests, "memory")) /
                   2;
    if (score > best_score) {
      best = i;
      best_score = score;
    }
  }
  return best;
}

std::string unschedulable_message(const std::vector<std::vector<std::string>>& failures) {
  std::string total = std::to_string(failures.size());
  std::vector<std::string> reasons, preemption;
  for (const auto& node : failures) {
    reasons.insert(reasons.end(), node.begin(), node.end());
    bool helps = !node.empty() && std::all_of(node.begin(), node.end(), is_resource_failure);
    preemption.emplace_back(helps ? "No preemption victims found for incoming pod"
                                  : "Preemption is not helpful for scheduling");
  }
  if (failures.empty()) return "no nodes available to schedule pods";
  return "0/" + total + " nodes are available: " + histogram(reasons) + ". preemption: 0/" + total +
         " nodes are available: " + histogram(preemption) + "..";
}

}  // namespace tailor::embedded
