#include "embedded/metrics/metrics_api.h"

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <functional>
#include <tuple>

#include "embedded/api/resources.h"
#include "embedded/api/rest.h"
#include "embedded/api/selectors.h"
#include "embedded/api/tables.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/object_store.h"
#include "embedded/storage/status_error.h"
#include "kube/model/quantity.h"
#include "kube/observe/duration.h"

namespace tailor::embedded {
namespace {

constexpr const char* kApiVersion = "metrics.k8s.io/v1beta1";

bj::object usage_json(const ResourceUsage& usage) {
  return {
      {"cpu", kube::Quantity::from_scaled(usage.nanocores, -9).to_string()},
      {"memory",
       kube::Quantity::from_int(usage.memory_bytes, kube::QuantityFormat::BinarySI).to_string()}};
}

bj::object metadata_of(const bj::object& object, kube::TimePoint now) {
  bj::object out{{"name", meta_string(object, "name")}};
  if (const std::string ns = meta_string(object, "namespace"); !ns.empty()) out["namespace"] = ns;
  out["creationTimestamp"] = kube::format_rfc3339(now);
  if (const bj::value* labels = find_path(object, "metadata.labels")) out["labels"] = *labels;
  return out;
}

void add_time(bj::object& out, std::int64_t at_ms, std::int64_t window_ms) {
  out["timestamp"] = kube::format_rfc3339(kube::TimePoint(std::chrono::milliseconds(at_ms)));
  out["window"] = kube::format_duration(std::chrono::milliseconds(window_ms));
}

bool running(const bj::object& pod) { return string_at(pod, "status.phase") == "Running"; }

// The stored objects a list asks for (its label and field selectors, and `also`), parsed only
// once they match.
std::vector<ObjectPtr> matching(const RestContext& c, const ResourceInfo& stored,
                                const std::function<bool(const StoredObject&)>& also) {
  const LabelSelector labels =
      LabelSelector::parse(c.request.query_param("labelSelector").value_or(""));
  const FieldSelector fields =
      FieldSelector::parse(c.request.query_param("fieldSelector").value_or(""), stored);
  std::vector<StoredPtr> items =
      c.store
          .list(stored, c.target.ns,
                [&](const StoredObject& o) {
                  return also(o) && labels.matches(o) && fields.matches(o);
                })
          .items;
  // By namespace, then name: across namespaces the store's "namespace/name" keys order "a-b/x"
  // before "a/y".
  std::stable_sort(items.begin(), items.end(), [](const StoredPtr& a, const StoredPtr& b) {
    return std::tie(a->ns(), a->name()) < std::tie(b->ns(), b->name());
  });
  std::vector<ObjectPtr> out;
  out.reserve(items.size());
  for (const StoredPtr& o : items) out.push_back(std::make_shared<const bj::object>(o->object()));
  return out;
}

// The object with its kind and apiVersion first, as a single object is served.
bj::object typed(const bj::object& object, const std::string& kind) {
  bj::object out{{"kind", kind}, {"apiVersion", kApiVersion}};
  for (const auto& field : object) out[field.key()] = field.value();
  return out;
}

kube::http::ServerResponse list_response(bj::array items, const std::string& kind) {
  return json_response(200, bj::serialize(bj::object{{"kind", kind},
                                                     {"apiVersion", kApiVersion},
                                                     {"metadata", bj::object{}},
                                                     {"items", std::move(items)}}));
}

// metrics-server's Table (ConvertToTable): the name, the usage of each resource (a pod's summed
// over its containers) and the window.
kube::Quantity usage_of(const bj::object& metrics, const char* resource) {
  kube::Quantity sum = kube::Quantity::parse("0");
  const auto add = [&](const bj::value& usage) {
    if (const auto* q = usage.as_object().if_contains(resource)) {
      sum += kube::Quantity::parse(std::string(q->as_string()));
    }
  };
  if (const bj::value* containers = metrics.if_contains("containers")) {
    for (const auto& c : containers->as_array()) add(c.at("usage"));
  } else {
    add(metrics.at("usage"));
  }
  return sum;
}

const Printer& metrics_printer() {
  static const Printer kPrinter{{name_column(),
                                 {"cpu", "string", "quantity", "", 0},
                                 {"memory", "string", "quantity", "", 0},
                                 {"Window", "string", "duration", "", 0}},
                                [](const bj::object& m, kube::TimePoint) {
                                  return bj::array{
                                      meta_string(m, "name"), usage_of(m, "cpu").to_string(),
                                      usage_of(m, "memory").to_string(), m.at("window")};
                                }};
  return kPrinter;
}

kube::http::ServerResponse one(const RestContext& c, const bj::object& object,
                               const std::string& kind) {
  if (wants_table(c.request)) {
    return json_response(
        200, bj::serialize(make_table(metrics_printer(), {typed(object, kind)}, table_request(c))));
  }
  return json_response(200, bj::serialize(typed(object, kind)));
}

// A list's items carry no kind of their own (as metrics-server's); a Table's rows do.
kube::http::ServerResponse many(const RestContext& c, std::vector<bj::object> items,
                                const std::string& kind) {
  if (wants_table(c.request)) {
    for (bj::object& item : items) item = typed(item, kind);
    return json_response(200,
                         bj::serialize(make_table(metrics_printer(), items, table_request(c))));
  }
  return list_response(bj::array(items.begin(), items.end()), kind + "List");
}

void only_get(const RestContext& c) {
  if (c.request.method != "GET") {
    throw method_not_supported(c.target.resource->group_resource(),
                               c.target.name.empty() ? "create" : "update");
  }
}

const ResourceInfo& core(const std::string& resource) { return *find_resource("", "v1", resource); }

kube::http::ServerResponse serve_pods(const RestContext& c, const MetricsStorage& storage) {
  only_get(c);
  const ResourceInfo& pods = core("pods");
  if (!c.target.name.empty()) {
    const ObjectPtr pod = c.store.get(pods, c.target.ns, c.target.name);  // 404 when none
    const auto usage =
        running(*pod) ? storage.pod_usage(c.target.ns, c.target.name) : std::optional<PodUsage>();
    if (!usage) {
      throw not_found({"metrics.k8s.io", "podmetrics"}, c.target.ns + "/" + c.target.name);
    }
    return one(c, pod_metrics_json(*pod, *usage, c.now()), "PodMetrics");
  }
  std::vector<bj::object> items;
  const auto is_running = [](const StoredObject& o) {
    return o.field("status.phase") == "Running";
  };
  for (const auto& pod : matching(c, pods, is_running)) {
    const auto usage = storage.pod_usage(meta_string(*pod, "namespace"), meta_string(*pod, "name"));
    if (usage) items.push_back(pod_metrics_json(*pod, *usage, c.now()));
  }
  return many(c, std::move(items), "PodMetrics");
}

kube::http::ServerResponse serve_nodes(const RestContext& c, const MetricsStorage& storage) {
  only_get(c);
  const ResourceInfo& nodes = core("nodes");
  if (!c.target.name.empty()) {
    const ObjectPtr node = c.store.get(nodes, "", c.target.name);  // 404 when none
    const auto usage = storage.node_usage(c.target.name);
    if (!usage) throw not_found({"metrics.k8s.io", "nodemetrics"}, c.target.name);
    return one(c, node_metrics_json(*node, *usage, c.now()), "NodeMetrics");
  }
  std::vector<bj::object> items;
  for (const auto& node : matching(c, nodes, [](const StoredObject&) { return true; })) {
    if (const auto usage = storage.node_usage(meta_string(*node, "name"))) {
      items.push_back(node_metrics_json(*node, *usage, c.now()));
    }
  }
  return many(c, std::move(items), "NodeMetrics");
}

}  // namespace

bj::object pod_metrics_json(const bj::object& pod, const PodUsage& usage, kube::TimePoint now) {
  bj::object out{{"metadata", metadata_of(pod, now)}};
  add_time(out, usage.at_ms, usage.window_ms);
  bj::array containers;
  for (const auto& c : usage.containers) {
    containers.push_back(bj::object{{"name", c.name}, {"usage", usage_json(c.usage)}});
  }
  out["containers"] = std::move(containers);
  return out;
}

bj::object node_metrics_json(const bj::object& node, const ResourceUsage& usage,
                             kube::TimePoint now) {
  bj::object out{{"metadata", metadata_of(node, now)}};
  add_time(out, usage.at_ms, usage.window_ms);
  out["usage"] = usage_json(usage);
  return out;
}

void add_metrics_api_handlers(ApiExtensions& extensions,
                              std::shared_ptr<const MetricsStorage> storage) {
  // Virtual resources: their handlers are keyed with an empty subresource.
  extensions.handlers[subresource_key(*find_resource("metrics.k8s.io", "v1beta1", "pods"), "")] =
      [storage](const RestContext& c) { return serve_pods(c, *storage); };
  extensions.handlers[subresource_key(*find_resource("metrics.k8s.io", "v1beta1", "nodes"), "")] =
      [storage](const RestContext& c) { return serve_nodes(c, *storage); };
}

}  // namespace tailor::embedded
