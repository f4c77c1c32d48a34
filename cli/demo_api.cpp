#include "cli/demo_api.h"

#include <boost/json.hpp>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cli/demo_yaml.h"
#include "kube/client/config.h"
#include "kube/client/rest_client.h"
#include "kube/model/quantity.h"
#include "policy/resources.h"

namespace tailor::cli::demo {
namespace {
namespace bj = boost::json;
using kube::ResourceType;

const ResourceType kCrds{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};

const bj::value* at(const bj::value& v, std::initializer_list<std::string_view> path) {
  const bj::value* cur = &v;
  for (std::string_view key : path) {
    if (!cur->is_object()) return nullptr;
    cur = cur->as_object().if_contains(key);
    if (!cur) return nullptr;
  }
  return cur;
}

std::string str(const bj::value& v, std::initializer_list<std::string_view> path) {
  const bj::value* s = at(v, path);
  return s && s->is_string() ? std::string(s->as_string()) : std::string();
}

long long integer(const bj::value& v, std::initializer_list<std::string_view> path) {
  const bj::value* n = at(v, path);
  return n && n->is_int64() ? n->as_int64() : 0;
}

ResourceMap resources(const bj::value* v) {
  ResourceMap out;
  if (!v || !v->is_object()) return out;
  for (const auto& [name, q] : v->as_object()) {
    if (q.is_string()) out[std::string(name)] = std::string(q.as_string());
  }
  return out;
}

const bj::array& items_of(const bj::value& list, const char* kind) {
  const bj::value* items = at(list, {"items"});
  if (items && items->is_array()) return items->as_array();
  if (items && items->is_null()) {
    static const bj::array kEmpty;
    return kEmpty;
  }
  throw std::runtime_error(std::string("not a list of ") + kind + " (no items array)");
}

bj::value parse(const std::string& json, const char* kind) {
  std::error_code error;
  bj::value v = bj::parse(json, error);
  if (error) throw std::runtime_error(std::string(kind) + " list: " + error.message());
  return v;
}

std::vector<ConditionView> conditions(const bj::value& object) {
  std::vector<ConditionView> out;
  const bj::value* list = at(object, {"status", "conditions"});
  if (!list || !list->is_array()) return out;
  for (const auto& c : list->as_array()) {
    out.push_back({str(c, {"type"}), str(c, {"status"}), str(c, {"reason"}), str(c, {"message"})});
  }
  return out;
}

PodView decode_pod(const bj::value& p) {
  PodView pod{.name = str(p, {"metadata", "name"}),
              .uid = str(p, {"metadata", "uid"}),
              .node = str(p, {"spec", "nodeName"}),
              .phase = str(p, {"status", "phase"}),
              .app = str(p, {"metadata", "labels", "app"})};
  pod.terminating = at(p, {"metadata", "deletionTimestamp"}) != nullptr;
  pod.generation = integer(p, {"metadata", "generation"});
  if (const bj::value* owners = at(p, {"metadata", "ownerReferences"});
      owners && owners->is_array() && !owners->as_array().empty()) {
    pod.owner_kind = str(owners->as_array()[0], {"kind"});
    pod.owner_name = str(owners->as_array()[0], {"name"});
  }
  if (const bj::value* list = at(p, {"spec", "containers"}); list && list->is_array()) {
    for (const auto& c : list->as_array()) {
      pod.containers.push_back({.name = str(c, {"name"}),
                                .requests = resources(at(c, {"resources", "requests"})),
                                .limits = resources(at(c, {"resources", "limits"}))});
    }
  }
  if (const bj::value* list = at(p, {"status", "containerStatuses"}); list && list->is_array()) {
    for (const auto& s : list->as_array()) {
      for (auto& c : pod.containers) {
        if (c.name != str(s, {"name"})) continue;
        c.actual_requests = resources(at(s, {"resources", "requests"}));
        c.actual_limits = resources(at(s, {"resources", "limits"}));
        c.restart_count = static_cast<int>(integer(s, {"restartCount"}));
        c.running = at(s, {"state", "running"}) != nullptr;
      }
    }
  }
  pod.conditions = conditions(p);
  return pod;
}

ResourceType resource_of(const bj::value& object) {
  const std::string api_version = str(object, {"apiVersion"}), kind = str(object, {"kind"});
  const auto slash = api_version.find('/');
  const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
  const std::string version = api_version.substr(slash == std::string::npos ? 0 : slash + 1);
  static const std::map<std::string, std::string> kPlural{
      {"Pod", "pods"},
      {"Deployment", "deployments"},
      {"ReplicaSet", "replicasets"},
      {"VerticalScalingPolicy", policy::resources::kVerticalScalingPolicies.resource},
      {"PodDisruptionBudget", "poddisruptionbudgets"}};
  auto plural = kPlural.find(kind);
  if (plural == kPlural.end()) throw std::invalid_argument("demo: no resource for kind " + kind);
  return {group, version, plural->second, true};
}

bool established(const bj::value& crd) {
  for (const auto& c : conditions(crd)) {
    if (c.type == "Established" && c.status == "True") return true;
  }
  return false;
}

}  // namespace

const ConditionView* PodView::condition(const std::string& type) const {
  for (const auto& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const ContainerView* PodView::container(const std::string& n) const {
  for (const auto& c : containers) {
    if (c.name == n) return &c;
  }
  return nullptr;
}

const PodView* Snapshot::pod_by_uid(const std::string& uid) const {
  for (const auto& p : pods) {
    if (p.uid == uid) return &p;
  }
  return nullptr;
}

std::vector<PodView> decode_pods(const std::string& list_json) {
  std::vector<PodView> out;
  const bj::value list = parse(list_json, "Pod");
  for (const auto& p : items_of(list, "Pod")) out.push_back(decode_pod(p));
  return out;
}

std::vector<PolicyView> decode_policies(const std::string& list_json) {
  std::vector<PolicyView> out;
  const bj::value list = parse(list_json, "VerticalScalingPolicy");
  for (const auto& p : items_of(list, "VerticalScalingPolicy")) {
    PolicyView policy{.name = str(p, {"metadata", "name"})};
    const bj::value* recs = at(p, {"status", "recommendation", "containerRecommendations"});
    if (recs && recs->is_array()) {
      for (const auto& r : recs->as_array()) {
        policy.targets[str(r, {"containerName"})] = resources(at(r, {"target"}));
      }
    }
    policy.conditions = conditions(p);
    out.push_back(std::move(policy));
  }
  return out;
}

std::vector<EventView> decode_events(const std::string& list_json) {
  std::vector<EventView> out;
  const bj::value list = parse(list_json, "Event");
  for (const auto& e : items_of(list, "Event")) {
    std::string source = str(e, {"reportingComponent"});
    if (source.empty()) source = str(e, {"source", "component"});
    out.push_back({.uid = str(e, {"metadata", "uid"}),
                   .reason = str(e, {"reason"}),
                   .message = str(e, {"message"}),
                   .type = str(e, {"type"}),
                   .object_kind = str(e, {"involvedObject", "kind"}),
                   .object_name = str(e, {"involvedObject", "name"}),
                   .object_uid = str(e, {"involvedObject", "uid"}),
                   .source = source});
  }
  return out;
}

std::vector<NodeView> decode_nodes(const std::string& list_json) {
  std::vector<NodeView> out;
  const bj::value list = parse(list_json, "Node");
  for (const auto& n : items_of(list, "Node")) {
    NodeView node{.name = str(n, {"metadata", "name"}),
                  .allocatable = resources(at(n, {"status", "allocatable"}))};
    for (const auto& c : conditions(n)) {
      if (c.type == "Ready") node.ready = c.status == "True";
    }
    out.push_back(std::move(node));
  }
  return out;
}

struct Api::Impl {
  kube::RestClient client;
  explicit Impl(const std::string& kubeconfig) : client(kube::load_kubeconfig(kubeconfig)) {}
};

Api::Api(const std::string& kubeconfig) : impl_(std::make_unique<Impl>(kubeconfig)) {}
Api::~Api() = default;

void Api::apply_crds(const std::vector<std::string>& yaml_files) {
  std::vector<std::string> names;
  for (const auto& file : yaml_files) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file);
    std::stringstream text;
    text << in.rdbuf();
    for (const auto& doc : yaml_documents_to_json(text.str())) {
      names.push_back(str(bj::parse(doc), {"metadata", "name"}));
      try {
        impl_->client.create({kCrds}, doc);
      } catch (const kube::ApiError& e) {
        if (e.code() != 409) throw std::runtime_error(file + ": " + e.what());
      }
    }
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  for (const auto& name : names) {
    while (!established(bj::parse(impl_->client.get({kCrds, "", name})))) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("CRD " + name + " not Established within 30 s");
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

void Api::create_namespace(const std::string& ns) {
  bj::object object{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", bj::object{{"name", ns}}}};
  impl_->client.create({kube::resources::kNamespaces}, bj::serialize(object));
}

void Api::delete_namespace(const std::string& ns) {
  try {
    impl_->client.remove({kube::resources::kNamespaces, "", ns},
                         {.propagation_policy = "Background"});
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
  }
}

void Api::create(const std::string& ns, const std::string& object_json) {
  impl_->client.create({resource_of(bj::parse(object_json)), ns}, object_json);
}

void Api::merge_patch_replica_set(const std::string& ns, const std::string& name,
                                  const std::string& patch) {
  impl_->client.patch({kube::resources::kReplicaSets, ns, name}, kube::PatchType::Merge, patch);
}

bool Api::delete_pod(const std::string& ns, const std::string& name) {
  try {
    impl_->client.remove({kube::resources::kPods, ns, name}, {.grace_period_seconds = 0});
    return true;
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return false;
    throw;
  }
}

std::vector<NodeView> Api::nodes() {
  std::vector<NodeView> nodes = decode_nodes(impl_->client.list({kube::resources::kNodes}));
  for (const PodView& pod : decode_pods(impl_->client.list({kube::resources::kPods}))) {
    if (pod.phase == "Succeeded" || pod.phase == "Failed") continue;
    for (NodeView& node : nodes) {
      if (node.name != pod.node) continue;
      for (const ContainerView& c : pod.containers) {
        const auto memory = c.requests.find("memory");
        if (memory == c.requests.end()) continue;
        if (auto q = kube::Quantity::try_parse(memory->second)) {
          node.requested_memory_mi += q->value() / (1024 * 1024);
        }
      }
    }
  }
  return nodes;
}

Snapshot Api::snapshot(const std::string& ns) {
  Snapshot s;
  s.pods = decode_pods(impl_->client.list({kube::resources::kPods, ns}));
  s.policies =
      decode_policies(impl_->client.list({policy::resources::kVerticalScalingPolicies, ns}));
  s.events = decode_events(impl_->client.list({kube::resources::kEvents, ns}));
  return s;
}

}  // namespace tailor::cli::demo
