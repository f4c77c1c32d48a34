#include "cli/cluster_reader.h"

#include <boost/json.hpp>
#include <chrono>
#include <map>
#include <stdexcept>
#include <tuple>

#include "kube/client/list_watch.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "policy/decode.h"
#include "policy/effective.h"
#include "policy/resources.h"
#include "policy/target_ref.h"

namespace tailor::cli {
namespace {

namespace bj = boost::json;
using Items = std::vector<std::string>;  // each item's JSON, as the list page holds it

std::string resource_name(const kube::ResourceType& t) {
  return t.group.empty() ? t.resource : t.resource + "." + t.group;
}

std::string scope(const std::string& ns) {
  return ns.empty() ? "at the cluster scope (all namespaces)" : "in namespace " + ns;
}

std::string text_at(const bj::object& o, std::initializer_list<std::string_view> path) {
  const bj::object* at = &o;
  for (auto it = path.begin(); it != path.end(); ++it) {
    const bj::value* v = at->if_contains(*it);
    if (!v) return "";
    if (std::next(it) == path.end()) return v->is_string() ? std::string(v->as_string()) : "";
    if (!v->is_object()) return "";
    at = &v->as_object();
  }
  return "";
}

std::string qualified(const kube::ObjectMeta& meta) {
  return (meta.namespace_.empty() ? "" : meta.namespace_ + "/") + meta.name;
}

// namespace/name of an item that did not decode, as far as it can be read.
std::string object_name(std::string_view item) {
  bj::error_code ec;
  const bj::value v = bj::parse(item, ec);
  if (ec || !v.is_object()) return "";
  const std::string ns = text_at(v.as_object(), {"metadata", "namespace"});
  return (ns.empty() ? "" : ns + "/") + text_at(v.as_object(), {"metadata", "name"});
}

// An API answer turned into what the user must do about it.
[[noreturn]] void rethrow_list_error(const kube::ApiError& e, const kube::RestClient& client,
                                     const kube::ResourceType& type, const std::string& ns) {
  const std::string what = resource_name(type);
  if (e.code() == 401) {
    throw std::runtime_error("the API server at " + client.config().server +
                             " rejected the credentials (401 Unauthorized) listing " + what + ": " +
                             e.status_message());
  }
  if (e.code() == 403) {
    throw std::runtime_error("forbidden: the report needs verb \"list\" on resource \"" +
                             type.resource + "\" in API group \"" + type.group + "\" " + scope(ns) +
                             "; the server said: " + e.status_message());
  }
  throw std::runtime_error("listing " + what + " " + scope(ns) + ": " + std::to_string(e.code()) +
                           " " + e.reason() + ": " + e.status_message());
}

// Every item of a list, page by page. `optional`: a 404 (the CRD is not installed) is no items.
Items list_all(kube::RestClient& client, const kube::ResourceType& type, const std::string& ns,
               bool optional) {
  Items items;
  kube::ListOptions options{.limit = 500};
  do {
    std::string page;
    try {
      page = client.list({.type = type, .namespace_ = ns}, options);
    } catch (const kube::ApiError& e) {
      if (optional && e.is_not_found()) return {};
      rethrow_list_error(e, client, type, ns);
    } catch (const kube::TransportError& e) {
      throw std::runtime_error("cannot reach the API server at " + client.config().server + ": " +
                               e.what());
    }
    kube::cache::ListPage list;
    try {
      list = kube::cache::parse_list_page(page);
    } catch (const std::exception& e) {
      throw std::runtime_error("the list of " + resource_name(type) +
                               " is not a List: " + e.what());
    }
    items.insert(items.end(), std::make_move_iterator(list.items.begin()),
                 std::make_move_iterator(list.items.end()));
    options.continue_token = std::move(list.continue_token);
  } while (!options.continue_token.empty());
  return items;
}

// Owners by namespace, kind and name, from the lists of their kinds.
class ListedOwners : public policy::OwnerLookup {
 public:
  void add(const std::string& kind, kube::ObjectMeta meta) {
    auto key = std::tuple(meta.namespace_, kind, meta.name);
    owners_.insert_or_assign(std::move(key), std::move(meta));
  }
  const kube::ObjectMeta* find(std::string_view ns,
                               const kube::OwnerReference& owner) const override {
    const auto it = owners_.find(std::tuple(std::string(ns), owner.kind, owner.name));
    return it != owners_.end() && it->second.uid == owner.uid ? &it->second : nullptr;
  }
  std::optional<const kube::ObjectMeta*> named(std::string_view ns, std::string_view kind,
                                               std::string_view name) const override {
    for (const auto& [known, type] : policy::owner_kinds()) {
      if (known != kind) continue;
      const auto it =
          owners_.find(std::tuple(std::string(ns), std::string(kind), std::string(name)));
      return it != owners_.end() ? &it->second : nullptr;
    }
    return std::nullopt;
  }

 private:
  std::map<std::tuple<std::string, std::string, std::string>, kube::ObjectMeta> owners_;
};

template <class T>
T decoded(const std::string& item, const char* kind, T (*decode)(std::string_view)) {
  try {
    return decode(item);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string(kind) + " " + object_name(item) +
                             " is malformed: " + e.what());
  }
}

kube::Pod decode_pod(std::string_view json) { return kube::decode<kube::Pod>(json); }
kube::PartialObjectMetadata decode_meta(std::string_view json) {
  return kube::decode<kube::PartialObjectMetadata>(json);
}

template <class T>
void add_policies(const Items& items, policy::PolicyApi api, T (*decode)(std::string_view),
                  const ListedOwners& owners, std::vector<ReportPolicy>& out,
                  ClusterReport& report) {
  const std::string kind(policy::kind_of(api));
  for (const std::string& item : items) {
    T object = decoded(item, kind.c_str(), decode);
    policy::Validated v = policy::validate(object);
    if (!v.policy) {
      report.warnings.push_back(kind + " " + qualified(object.metadata) +
                                " is not valid, left out: " + policy::problems_message(v.problems));
      continue;
    }
    ReportPolicy p{.effective = std::move(*v.policy), .status = object.status};
    p.note = policy::unsupported_target(p.effective, owners);
    if (!p.note.empty()) {
      report.warnings.push_back(kind + " " + qualified(object.metadata) + ": " + p.note);
      report.targets_gone = true;
    }
    out.push_back(std::move(p));
  }
}

std::optional<double> seconds_at(const bj::object& item, std::string_view field) {
  const auto t = kube::try_parse_rfc3339(text_at(item, {"status", field}));
  if (!t) return std::nullopt;
  return std::chrono::duration<double>(t->time_since_epoch()).count();
}

// Tailor's checkpoints (cli's view of controller/app/checkpoints.h's objects): the sample span
// of each policy's container. One without the fields is left out ("unknown" in the report).
HistoryIndex histories(const Items& checkpoints) {
  HistoryIndex index;
  for (const std::string& json : checkpoints) {
    // An item of a list page is an object (kube::cache::parse_list_page checks).
    const bj::value parsed = bj::parse(json);
    const bj::object& item = parsed.as_object();
    const auto first = seconds_at(item, "firstSampleStart");
    const auto last = seconds_at(item, "lastSampleStart");
    const bj::value* status = item.if_contains("status");
    const bj::value* count = status && status->is_object()
                                 ? status->as_object().if_contains("totalSamplesCount")
                                 : nullptr;
    if (!first || !last || !count || !count->is_int64()) continue;
    const policy::PolicyApi api = text_at(item, {"spec", "policyKind"}) == "VerticalPodAutoscaler"
                                      ? policy::PolicyApi::VerticalPodAutoscaler
                                      : policy::PolicyApi::VerticalScalingPolicy;
    index[history_key(api, text_at(item, {"metadata", "namespace"}),
                      text_at(item, {"spec", "policyName"}),
                      text_at(item, {"spec", "containerName"}))] = {(*last - *first) / 86400.0,
                                                                    count->as_int64()};
  }
  return index;
}

kube::RestConfig report_config(const std::string& kubeconfig, const std::string& context) {
  kube::RestConfig config;
  try {
    config = kube::load_config(kubeconfig, context);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("kubeconfig: ") + e.what());
  }
  // A person waits for the answer: one retry, not the controllers' five with backoff.
  config.max_retries = 1;
  config.timeout = std::chrono::seconds(15);
  config.user_agent = "tailor-report";
  return config;
}

}  // namespace

ClusterReport read_cluster_report(const std::string& kubeconfig, const std::string& context,
                                  const std::string& ns) {
  kube::RestClient client(report_config(kubeconfig, context));
  ClusterReport report;
  ListedOwners owners;
  for (const auto& [kind, type] : policy::owner_kinds()) {
    for (const std::string& item : list_all(client, type, ns, false)) {
      owners.add(kind, decoded(item, kind.c_str(), decode_meta).metadata);
    }
  }
  std::vector<ReportPolicy> policies;
  add_policies(list_all(client, policy::resources::kVerticalScalingPolicies, ns, true),
               policy::PolicyApi::VerticalScalingPolicy,
               &policy::decode_vertical_scaling_policy_or_throw, owners, policies, report);
  add_policies(list_all(client, policy::resources::kVerticalPodAutoscalers, ns, true),
               policy::PolicyApi::VerticalPodAutoscaler,
               &policy::decode_vertical_pod_autoscaler_or_throw, owners, policies, report);
  std::vector<kube::Pod> pods;
  for (const std::string& item : list_all(client, kube::resources::kPods, ns, false)) {
    pods.push_back(decoded(item, "Pod", decode_pod));
  }
  const HistoryIndex history =
      histories(list_all(client, policy::resources::kVerticalScalingCheckpoints, ns, true));
  const auto now =
      std::chrono::time_point_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now());
  ReportRows rows = report_rows(pods, policies, owners, history, now);
  report.rows = std::move(rows.rows);
  report.unpoliced = std::move(rows.unpoliced);
  return report;
}

}  // namespace tailor::cli
