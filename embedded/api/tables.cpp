#include "embedded/api/tables.h"

#include <functional>
#include <map>

#include "embedded/api/pod_printer.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace {

std::string or_none(std::string s) { return s.empty() ? "<none>" : s; }

bj::value age(const bj::object& o, kube::TimePoint now) { return age_cell(o, now); }

const Column kName = name_column();
const Column kAge = age_column();

bj::array pod_cells(const bj::object& pod, kube::TimePoint now) {
  PodRow row = pod_row(pod, now);
  bj::value restarts =
      row.restarts_text.empty() ? bj::value(row.restarts) : bj::value(row.restarts_text);
  std::string gates;
  if (const bj::value* g = find_path(pod, "spec.readinessGates");
      g && g->is_array() && !g->as_array().empty()) {
    gates = "0/" + std::to_string(g->as_array().size());
  }
  return {meta_string(pod, "name"),
          row.ready,
          row.status,
          restarts,
          age(pod, now),
          or_none(string_at(pod, "status.podIP")),
          or_none(string_at(pod, "spec.nodeName")),
          or_none(string_at(pod, "status.nominatedNodeName")),
          or_none(gates)};
}

std::string node_status(const bj::object& node) {
  std::string status = "Unknown";
  if (const bj::value* c = find_path(node, "status.conditions"); c && c->is_array()) {
    for (const bj::value& cond : c->as_array()) {
      if (!cond.is_object() || string_at(cond.as_object(), "type") != "Ready") continue;
      status = string_at(cond.as_object(), "status") == "True" ? "Ready" : "NotReady";
    }
  }
  const bj::value* u = find_path(node, "spec.unschedulable");
  if (u && u->is_bool() && u->as_bool()) status += ",SchedulingDisabled";
  return status;
}

std::string node_roles(const bj::object& node) {
  std::string roles;
  if (const bj::value* labels = find_path(node, "metadata.labels"); labels && labels->is_object()) {
    for (const auto& [k, v] : labels->as_object()) {
      std::string_view key = k;
      constexpr std::string_view kPrefix = "node-role.kubernetes.io/";
      if (key.starts_with(kPrefix)) {
        if (!roles.empty()) roles += ",";
        roles += std::string(key.substr(kPrefix.size()));
      }
    }
  }
  return or_none(roles);
}

const Printer* core_printer(const std::string& resource) {
  static const std::map<std::string, Printer> kPrinters = {
      {"pods",
       {{kName,
         {"Ready", "string", "", "The aggregate readiness state of this pod for accepting traffic.",
          0},
         {"Status", "string", "", "The aggregate status of the containers in this pod.", 0},
         {"Restarts", "string", "",
          "The number of times the containers in this pod have been restarted and when the last "
          "container in this pod has restarted.",
          0},
         kAge,
         {"IP", "string", "",
          "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet "
          "allocated.",
          1},
         {"Node", "string", "", "NodeName is a request to schedule this pod onto a specific node.",
          1},
         {"Nominated Node", "string", "",
          "nominatedNodeName is set only when this pod preempts other pods on the node.", 1},
         {"Readiness Gates", "string", "",
          "If specified, all readiness gates will be evaluated for pod readiness.", 1}},
        pod_cells}},
      {"nodes",
       {{kName,
         {"Status", "string", "", "The status of the node", 0},
         {"Roles", "string", "", "The roles of the node", 0},
         kAge,
         {"Version", "string", "", "Kubelet Version reported by the node.", 0},
         {"Internal-IP", "string", "", "List of addresses reachable to the node.", 1},
         {"External-IP", "string", "", "List of addresses reachable to the node.", 1},
         {"OS-Image", "string", "", "OS Image reported by the node from /etc/os-release.", 1},
         {"Kernel-Version", "string", "", "Kernel Version reported by the node.", 1},
         {"Container-Runtime", "string", "", "Container Runtime Version reported by the node.", 1}},
        [](const bj::object& n, kube::TimePoint now) {
          return bj::array{meta_string(n, "name"),
                           node_status(n),
                           node_roles(n),
                           age(n, now),
                           string_at(n, "status.nodeInfo.kubeletVersion"),
                           node_address(n, "InternalIP").value_or("<none>"),
                           node_address(n, "ExternalIP").value_or("<none>"),
                           or_none(string_at(n, "status.nodeInfo.osImage")),
                           or_none(string_at(n, "status.nodeInfo.kernelVersion")),
                           or_none(string_at(n, "status.nodeInfo.containerRuntimeVersion"))};
        }}},
      {"namespaces",
       {{kName, {"Status", "string", "", "The status of the namespace", 0}, kAge},
        [](const bj::object& ns, kube::TimePoint now) {
          return bj::array{meta_string(ns, "name"), string_at(ns, "status.phase"), age(ns, now)};
        }}},
      {"configmaps",
       {{kName, {"Data", "string", "", "Data contains the configuration data.", 0}, kAge},
        [](const bj::object& cm, kube::TimePoint now) {
          std::size_t n = 0;
          for (std::string_view f : {"data", "binaryData"}) {
            if (const bj::value* d = cm.if_contains(f); d && d->is_object())
              n += d->as_object().size();
          }
          return bj::array{meta_string(cm, "name"), n, age(cm, now)};
        }}},
      {"leases.coordination.k8s.io",
       {{kName, {"Holder", "string", "", "The holder of the lease", 0}, kAge},
        [](const bj::object& l, kube::TimePoint now) {
          return bj::array{meta_string(l, "name"), string_at(l, "spec.holderIdentity"),
                           age(l, now)};
        }}},
  };
  auto it = kPrinters.find(resource);
  return it == kPrinters.end() ? nullptr : &it->second;
}

const Printer& default_printer() {
  static const Printer kDefault{{kName, kAge}, [](const bj::object& o, kube::TimePoint now) {
                                  return bj::array{meta_string(o, "name"), age(o, now)};
                                }};
  return kDefault;
}

bj::value row_object(const bj::object& o, IncludeObject include) {
  if (include == IncludeObject::None) return nullptr;
  if (include == IncludeObject::Object) return o;
  const bj::value* meta = o.if_contains("metadata");
  return bj::object{{"kind", "PartialObjectMetadata"},
                    {"apiVersion", "meta.k8s.io/v1"},
                    {"metadata", meta ? *meta : bj::object{}}};
}

// The Table without rows: its columns (unless a later watch event) and an empty "rows".
bj::object table_shell(const Printer& printer, const TableRequest& request) {
  bj::object table{{"kind", "Table"}, {"apiVersion", "meta.k8s.io/v1"}, {"metadata", bj::object{}}};
  bj::array columns;
  if (request.column_definitions) {
    for (const Column& c : printer.columns) {
      columns.push_back(bj::object{{"name", c.name},
                                   {"type", c.type},
                                   {"format", c.format},
                                   {"description", c.description},
                                   {"priority", c.priority}});
    }
  }
  table["columnDefinitions"] = std::move(columns);
  table["rows"] = bj::array{};
  return table;
}

bj::object table_row(const Printer& printer, const bj::object& o, const TableRequest& request) {
  return {{"cells", printer.cells(o, request.now)}, {"object", row_object(o, request.include)}};
}

}  // namespace

Column name_column() {
  return {"Name", "string", "name",
          "Name must be unique within a namespace. Is required when creating resources, "
          "although some resources may allow a client to request the generation of an "
          "appropriate name automatically.",
          0};
}

Column age_column() {
  return {"Age", "string", "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created.",
          0};
}

bj::value age_cell(const bj::object& o, kube::TimePoint now) {
  auto created = kube::try_parse_rfc3339(meta_string(o, "creationTimestamp"));
  return created ? bj::value(human_duration(now - *created)) : bj::value("<unknown>");
}

bj::object make_table(const ResourceInfo& resource, const std::vector<StoredPtr>& objects,
                      const TableRequest& request) {
  const Printer* p = core_printer(
      resource.group.empty() ? resource.resource : resource.resource + "." + resource.group);
  if (!p) p = builtin_printer(resource);
  if (!p) p = workload_printer(resource);
  if (!p) p = policy_printer(resource);
  if (!p) p = autoscaler_printer(resource);
  if (!p) p = network_policy_printer(resource);
  if (!p) p = custom_resource_printer(resource);
  const Printer& printer = p ? *p : default_printer();
  bj::object table = table_shell(printer, request);
  bj::array& rows = table["rows"].as_array();
  for (const StoredPtr& stored : objects)
    rows.push_back(table_row(printer, stored->object(), request));
  return table;
}

bj::object make_table(const Printer& printer, const std::vector<bj::object>& objects,
                      const TableRequest& request) {
  bj::object table = table_shell(printer, request);
  bj::array& rows = table["rows"].as_array();
  for (const bj::object& o : objects) rows.push_back(table_row(printer, o, request));
  return table;
}

}  // namespace tailor::embedded
