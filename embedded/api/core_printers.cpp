// Printers for Events, Secrets, Services, ServiceAccounts and MutatingWebhookConfigurations,
// following kube-apiserver's printers (pkg/printers/internalversion/printers.go). tailor-cluster
// neither defaults these kinds nor allocates cluster IPs, so cells show what is stored, reading the
// API's documented defaults (type ClusterIP, protocol TCP, Secret type Opaque) where a field is
// absent.
#include <cctype>
#include <map>
#include <set>
#include <string>

#include "embedded/api/tables.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace {

std::size_t array_size(const bj::object& o, std::string_view path) {
  const bj::value* v = find_path(o, path);
  return v && v->is_array() ? v->as_array().size() : 0;
}

std::string string_or(const bj::object& o, std::string_view path, std::string fallback) {
  std::string s = string_at(o, path);
  return s.empty() ? fallback : s;
}

std::string joined_strings(const bj::object& o, std::string_view path) {
  std::string out;
  if (const bj::value* v = find_path(o, path); v && v->is_array()) {
    for (const bj::value& s : v->as_array()) {
      if (!s.is_string()) continue;
      if (!out.empty()) out += ",";
      out += std::string(s.as_string());
    }
  }
  return out;
}

// The Secret's DATA: stringData is merged into data on write by kube-apiserver; tailor-cluster
// stores both, so count the keys of either once.
std::size_t secret_data_count(const bj::object& secret) {
  std::set<std::string> keys;
  for (std::string_view field : {"data", "stringData"}) {
    if (const bj::value* d = secret.if_contains(field); d && d->is_object()) {
      for (const auto& kv : d->as_object()) keys.insert(std::string(kv.key()));
    }
  }
  return keys.size();
}

// At most three items, then " + N more..." (the printers' formatEndpoints and
// formatDiscoveryEndpoints); `none` when there are none.
std::string first_three(const std::vector<std::string>& items, const char* none) {
  if (items.empty()) return none;
  std::string out;
  for (std::size_t i = 0; i < items.size() && i < 3; ++i) out += (i ? "," : "") + items[i];
  if (items.size() > 3) out += " + " + std::to_string(items.size() - 3) + " more...";
  return out;
}

// ENDPOINTS of an Endpoints: ip:port of each ready address of each subset and port.
std::string endpoints_list(const bj::object& ep) {
  std::vector<std::string> items;
  const bj::value* subsets = ep.if_contains("subsets");
  if (subsets && subsets->is_array()) {
    for (const bj::value& subset : subsets->as_array()) {
      const bj::value* ports =
          subset.is_object() ? subset.as_object().if_contains("ports") : nullptr;
      const bj::value* addresses =
          subset.is_object() ? subset.as_object().if_contains("addresses") : nullptr;
      if (!addresses || !addresses->is_array()) continue;
      for (const bj::value& address : addresses->as_array()) {
        const std::string ip = string_at(address, "ip");
        if (!ports || !ports->is_array() || ports->as_array().empty()) {
          items.push_back(ip);
          continue;
        }
        for (const bj::value& port : ports->as_array()) {
          const bj::value* n = port.is_object() ? port.as_object().if_contains("port") : nullptr;
          items.push_back(ip + ":" +
                          std::to_string(n && n->is_number() ? n->to_number<std::int64_t>() : 0));
        }
      }
    }
  }
  return first_three(items, "<none>");
}

// PORTS and ENDPOINTS of an EndpointSlice.
std::string slice_ports(const bj::object& slice) {
  std::vector<std::string> items;
  if (const bj::value* ports = slice.if_contains("ports"); ports && ports->is_array()) {
    for (const bj::value& port : ports->as_array()) {
      const bj::value* number = port.is_object() ? port.as_object().if_contains("port") : nullptr;
      items.push_back(number && number->is_number()
                          ? std::to_string(number->to_number<std::int64_t>())
                          : "<unset>");
    }
  }
  return first_three(items, "<unset>");
}

std::string slice_endpoints(const bj::object& slice) {
  std::vector<std::string> items;
  if (const bj::value* endpoints = slice.if_contains("endpoints");
      endpoints && endpoints->is_array()) {
    for (const bj::value& endpoint : endpoints->as_array()) {
      const bj::value* addresses =
          endpoint.is_object() ? endpoint.as_object().if_contains("addresses") : nullptr;
      if (!addresses || !addresses->is_array()) continue;
      for (const bj::value& a : addresses->as_array()) {
        if (a.is_string()) items.emplace_back(a.as_string());
      }
    }
  }
  return first_three(items, "<unset>");
}

// CLUSTER-IP: clusterIPs[0] as upstream; clusterIP when only it is stored (upstream defaulting
// keeps the two in step); "<none>" when neither is.
std::string service_cluster_ip(const bj::object& svc) {
  if (const bj::value* ips = find_path(svc, "spec.clusterIPs");
      ips && ips->is_array() && !ips->as_array().empty() && ips->as_array()[0].is_string()) {
    return std::string(ips->as_array()[0].as_string());
  }
  return string_or(svc, "spec.clusterIP", "<none>");
}

// The load-balancer ingress IPs (or hostnames), sorted and deduplicated. kube-apiserver's
// TableConvertor prints with Wide set, so the 16-byte clip of client-side printing never applies.
std::string load_balancer_ingress(const bj::object& svc) {
  std::set<std::string> ingress;
  if (const bj::value* v = find_path(svc, "status.loadBalancer.ingress"); v && v->is_array()) {
    for (const bj::value& i : v->as_array()) {
      std::string ip = string_at(i, "ip");
      std::string host = string_at(i, "hostname");
      if (!ip.empty()) {
        ingress.insert(ip);
      } else if (!host.empty()) {
        ingress.insert(host);
      }
    }
  }
  std::string out;
  for (const std::string& s : ingress) out += (out.empty() ? "" : ",") + s;
  return out;
}

std::string service_external_ip(const bj::object& svc) {
  std::string type = string_or(svc, "spec.type", "ClusterIP");
  std::string external = joined_strings(svc, "spec.externalIPs");
  if (type == "ClusterIP" || type == "NodePort") return external.empty() ? "<none>" : external;
  if (type == "LoadBalancer") {
    std::string lb = load_balancer_ingress(svc);
    if (!external.empty()) return lb.empty() ? external : lb + "," + external;
    return lb.empty() ? "<pending>" : lb;
  }
  if (type == "ExternalName") return string_at(svc, "spec.externalName");
  return "<unknown>";
}

std::string int_text(const bj::value& port, std::string_view key) {
  const bj::value* v = port.is_object() ? port.as_object().if_contains(key) : nullptr;
  return v && v->is_int64() ? std::to_string(v->as_int64()) : "0";
}

// PORT(S): "80/TCP", "80:30080/TCP" with a nodePort, comma-joined; "<none>" without ports.
std::string service_ports(const bj::object& svc) {
  std::string out;
  if (const bj::value* v = find_path(svc, "spec.ports"); v && v->is_array()) {
    for (const bj::value& p : v->as_array()) {
      std::string piece = int_text(p, "port");
      if (std::string node = int_text(p, "nodePort"); node != "0") piece += ":" + node;
      std::string protocol = string_at(p, "protocol");
      piece += "/" + (protocol.empty() ? std::string("TCP") : protocol);
      out += (out.empty() ? "" : ",") + piece;
    }
  }
  return out.empty() ? "<none>" : out;
}

// SELECTOR (wide): labels.FormatLabels — sorted key=value pairs, "<none>" when empty.
std::string service_selector(const bj::object& svc) {
  std::map<std::string, std::string> sorted;
  if (const bj::value* s = find_path(svc, "spec.selector"); s && s->is_object()) {
    for (const auto& kv : s->as_object()) {
      sorted[std::string(kv.key())] = kv.value().is_string() ? kv.value().as_string().c_str() : "";
    }
  }
  std::string out;
  for (const auto& [k, v] : sorted) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out.empty() ? "<none>" : out;
}

Column string_column(const char* name, const char* description, int priority = 0) {
  return {name, "string", "", description, priority};
}

// ---- Events: kube-apiserver renders every column (Wide); kubectl hides the priority-1 ones.

std::string since(const bj::object& o, std::string_view path, kube::TimePoint now) {
  auto t = kube::try_parse_rfc3339(string_at(o, path));
  return t ? human_duration(now - *t) : "";
}

// FIRST SEEN: firstTimestamp, else eventTime (events.k8s.io writers set only that).
std::string event_first_seen(const bj::object& e, kube::TimePoint now) {
  std::string first = since(e, "firstTimestamp", now);
  if (first.empty()) first = since(e, "eventTime", now);
  return first.empty() ? "<unknown>" : first;
}

// LAST SEEN: series.lastObservedTime for a series, else lastTimestamp, else the first sighting.
std::string event_last_seen(const bj::object& e, kube::TimePoint now) {
  if (find_path(e, "series")) {
    std::string observed = since(e, "series.lastObservedTime", now);
    return observed.empty() ? "<unknown>" : observed;
  }
  std::string last = since(e, "lastTimestamp", now);
  return last.empty() ? event_first_seen(e, now) : last;
}

std::int64_t int_or_zero(const bj::object& o, std::string_view path) {
  const bj::value* v = find_path(o, path);
  return v && v->is_int64() ? v->as_int64() : 0;
}

// COUNT: the series' count, else count; a singleton of the new API has none and counts 1.
std::int64_t event_count(const bj::object& e) {
  if (find_path(e, "series")) return int_or_zero(e, "series.count");
  std::int64_t count = int_or_zero(e, "count");
  return count == 0 ? 1 : count;
}

std::string event_object(const bj::object& e) {
  std::string kind = string_at(e, "involvedObject.kind");
  for (char& c : kind) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string name = string_at(e, "involvedObject.name");
  return name.empty() ? kind : kind + "/" + name;
}

// SOURCE: "component, host", from reportingController/reportingInstance when source is empty.
std::string event_source(const bj::object& e) {
  std::string component = string_or(e, "source.component", string_at(e, "reportingComponent"));
  std::string instance = string_or(e, "source.host", string_at(e, "reportingInstance"));
  return instance.empty() ? component : component + ", " + instance;
}

std::string trimmed(std::string s) {
  auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  while (!s.empty() && space(s.back())) s.pop_back();
  std::size_t i = 0;
  while (i < s.size() && space(s[i])) ++i;
  return s.substr(i);
}

Printer event_printer() {
  return {
      {string_column("Last Seen", "Time when this Event was last seen"),
       string_column("Type",
                     "Type of this event (Normal, Warning), new types could be added in the "
                     "future."),
       string_column("Reason",
                     "A short, machine understandable string that gives the reason for this "
                     "event being generated."),
       string_column("Object", "The object this Event is about."),
       string_column("Subobject",
                     "If referring to a piece of an object instead of an entire object, this "
                     "string should contain a valid JSON/Go field access statement.",
                     1),
       string_column("Source",
                     "The component reporting this event. Should be a short machine "
                     "understandable string.",
                     1),
       string_column("Message", "A human-readable description of the status of this operation."),
       string_column("First Seen", "The time at which the event was first recorded.", 1),
       string_column("Count", "The number of times this event has occurred.", 1),
       {"Name", "string", "name", name_column().description, 1}},
      [](const bj::object& e, kube::TimePoint now) {
        return bj::array{event_last_seen(e, now),
                         string_at(e, "type"),
                         string_at(e, "reason"),
                         event_object(e),
                         string_at(e, "involvedObject.fieldPath"),
                         event_source(e),
                         trimmed(string_at(e, "message")),
                         event_first_seen(e, now),
                         event_count(e),
                         meta_string(e, "name")};
      }};
}

const std::map<std::string, Printer>& printers() {
  static const std::map<std::string, Printer> kPrinters = {
      {"events", event_printer()},
      {"secrets",
       {{name_column(),
         string_column("Type", "Used to facilitate programmatic handling of secret data."),
         string_column("Data", "Data contains the secret data."), age_column()},
        [](const bj::object& s, kube::TimePoint now) {
          return bj::array{meta_string(s, "name"), string_or(s, "type", "Opaque"),
                           secret_data_count(s), age_cell(s, now)};
        }}},
      {"serviceaccounts",
       {{name_column(),
         string_column("Secrets",
                       "Secrets is a list of the secrets in the same namespace that pods running "
                       "using this ServiceAccount are allowed to use."),
         age_column()},
        [](const bj::object& sa, kube::TimePoint now) {
          return bj::array{meta_string(sa, "name"), array_size(sa, "secrets"), age_cell(sa, now)};
        }}},
      {"services",
       {{name_column(), string_column("Type", "type determines how the Service is exposed."),
         string_column("Cluster-IP",
                       "clusterIP is the IP address of the service and is usually assigned "
                       "randomly."),
         string_column("External-IP",
                       "externalIPs is a list of IP addresses for which nodes in the cluster will "
                       "also accept traffic for this service."),
         string_column("Port(s)", "The list of ports that are exposed by this service."),
         age_column(),
         string_column("Selector",
                       "Route service traffic to pods with label keys and values matching this "
                       "selector.",
                       1)},
        [](const bj::object& svc, kube::TimePoint now) {
          return bj::array{meta_string(svc, "name"), string_or(svc, "spec.type", "ClusterIP"),
                           service_cluster_ip(svc),  service_external_ip(svc),
                           service_ports(svc),       age_cell(svc, now),
                           service_selector(svc)};
        }}},
      {"endpoints",
       {{name_column(), string_column("Endpoints", "Endpoints is the list of endpoints."),
         age_column()},
        [](const bj::object& ep, kube::TimePoint now) {
          return bj::array{meta_string(ep, "name"), endpoints_list(ep), age_cell(ep, now)};
        }}},
      {"endpointslices.discovery.k8s.io",
       {{name_column(),
         string_column("AddressType", "The IP protocol for this slice (IPv4, IPv6, FQDN)."),
         string_column("Ports", "The list of ports exposed by this slice."),
         string_column("Endpoints", "The list of endpoints of this slice."), age_column()},
        [](const bj::object& slice, kube::TimePoint now) {
          return bj::array{meta_string(slice, "name"), string_at(slice, "addressType"),
                           slice_ports(slice), slice_endpoints(slice), age_cell(slice, now)};
        }}},
      {"mutatingwebhookconfigurations.admissionregistration.k8s.io",
       {{name_column(),
         {"Webhooks", "integer", "",
          "Webhooks indicates the number of webhooks registered in this configuration", 0},
         age_column()},
        [](const bj::object& c, kube::TimePoint now) {
          return bj::array{meta_string(c, "name"), array_size(c, "webhooks"), age_cell(c, now)};
        }}},
  };
  return kPrinters;
}

}  // namespace

const Printer* builtin_printer(const ResourceInfo& resource) {
  const auto& all = printers();
  auto it = all.find(resource.group.empty() ? resource.resource
                                            : resource.resource + "." + resource.group);
  return it == all.end() ? nullptr : &it->second;
}

}  // namespace tailor::embedded
