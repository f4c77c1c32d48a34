// charts/api-calls.yaml, the calls Tailor's processes make, as the chart and e2e tests read it:
// which RBAC permissions a set of values must grant, and where (the ClusterRole, or the Role of
// a namespace). Pure functions over parsed YAML (tests/charts/api_calls_test.cpp).
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace tailor::charts {

struct ApiCall {
  std::string binary;  // "controller" or "node-agent"
  std::string group, resource;
  std::vector<std::string> verbs, names;
  std::string scope;                        // "cluster", "release" or a namespace
  std::map<std::string, std::string> when;  // values path -> value; "flag" -> a flag
  std::string unexercised;                  // why the e2e scenario cannot reach it ("" : it must)
};

inline std::vector<std::string> yaml_strings(const YAML::Node& sequence) {
  std::vector<std::string> out;
  for (const auto& item : sequence) out.push_back(item.as<std::string>());
  return out;
}

inline std::vector<ApiCall> parse_api_calls(const YAML::Node& root) {
  std::vector<ApiCall> out;
  for (const auto& binary : root) {
    for (const auto& c : binary.second) {
      // A misspelt key (or a comma inside an unquoted flow value, which YAML splits into one)
      // would otherwise drop what it says.
      static const std::set<std::string> kKeys = {"group", "resource", "verbs",       "names",
                                                  "scope", "when",     "unexercised", "code"};
      for (const auto& field : c) {
        if (!kKeys.count(field.first.as<std::string>())) {
          throw std::runtime_error("api-calls.yaml: unknown key \"" +
                                   field.first.as<std::string>() + "\"");
        }
      }
      ApiCall call{.binary = binary.first.as<std::string>(),
                   .group = c["group"].as<std::string>(),
                   .resource = c["resource"].as<std::string>(),
                   .verbs = yaml_strings(c["verbs"]),
                   .names = yaml_strings(c["names"]),
                   .scope = c["scope"].as<std::string>(),
                   .when = {},
                   .unexercised = c["unexercised"] ? c["unexercised"].as<std::string>() : ""};
      for (const auto& w : c["when"]) {
        call.when[w.first.as<std::string>()] = w.second.as<std::string>();
      }
      out.push_back(std::move(call));
    }
  }
  return out;
}

inline std::vector<ApiCall> load_api_calls(const std::filesystem::path& file) {
  return parse_api_calls(YAML::LoadFile(file.string()));
}

// The scalar at a dotted path of `values`, "" when absent. (Nodes are bound by construction
// only: assigning a yaml-cpp Node would rewrite the tree.)
inline std::string scalar_at(const YAML::Node& values, const std::string& path) {
  const auto dot = path.find('.');
  const std::string key = path.substr(0, dot);
  if (!values.IsMap() || !values[key]) return "";
  const YAML::Node child = values[key];
  if (dot == std::string::npos) return child.IsScalar() ? child.as<std::string>() : "";
  return scalar_at(child, path.substr(dot + 1));
}

// Whether the chart, rendered with `overrides` merged over `defaults`, must grant the call: each
// `when` value holds, and it needs no flag the chart never sets.
inline bool chart_grants(const ApiCall& call, const YAML::Node& defaults,
                         const YAML::Node& overrides) {
  for (const auto& [path, want] : call.when) {
    if (path == "flag") return false;
    std::string have = scalar_at(overrides, path);
    if (have.empty()) have = scalar_at(defaults, path);
    if (have != want) return false;
  }
  return true;
}

// Where a permission lives: "ClusterRole", or "Role/<namespace>".
inline std::string role_of_scope(const std::string& scope, const std::string& release_namespace) {
  if (scope == "cluster") return "ClusterRole";
  return "Role/" + (scope == "release" ? release_namespace : scope);
}

// "group/resource[#name...]:verb", one per verb.
inline std::vector<std::string> permission_keys(const std::string& group,
                                                const std::string& resource,
                                                const std::vector<std::string>& names,
                                                const std::vector<std::string>& verbs) {
  std::string named;
  for (const std::string& n : names) named += "#" + n;
  std::vector<std::string> out;
  for (const std::string& verb : verbs) out.push_back(group + "/" + resource + named + ":" + verb);
  return out;
}

using Grants = std::map<std::string, std::set<std::string>>;  // role -> permission keys

// What the chart must grant `binary` under these values.
inline Grants expected_grants(const std::vector<ApiCall>& calls, const std::string& binary,
                              const YAML::Node& defaults, const YAML::Node& overrides,
                              const std::string& release_namespace) {
  Grants out;
  for (const ApiCall& c : calls) {
    if (c.binary != binary || !chart_grants(c, defaults, overrides)) continue;
    for (const std::string& key : permission_keys(c.group, c.resource, c.names, c.verbs)) {
      out[role_of_scope(c.scope, release_namespace)].insert(key);
    }
  }
  return out;
}

// What a rendered ClusterRole or Role grants (every group x resource x verb of every rule).
inline std::set<std::string> role_grants(const YAML::Node& role) {
  std::set<std::string> out;
  for (const auto& rule : role["rules"]) {
    for (const auto& group : rule["apiGroups"]) {
      for (const auto& resource : rule["resources"]) {
        for (const std::string& key :
             permission_keys(group.as<std::string>(), resource.as<std::string>(),
                             yaml_strings(rule["resourceNames"]), yaml_strings(rule["verbs"]))) {
          out.insert(key);
        }
      }
    }
  }
  return out;
}

// One request a process made, as an audit log records it.
struct MadeCall {
  std::string verb, group, resource;  // resource[/subresource]
  std::string ns, name;               // "" : cluster-scoped or every namespace; no name
};

inline bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// Whether the listed call covers the request: same group, resource and verb, in a namespace
// its scope reaches, of a name it is limited to.
inline bool covers(const ApiCall& call, const MadeCall& made, const std::string& release_ns) {
  if (call.group != made.group || call.resource != made.resource) return false;
  if (!contains(call.verbs, made.verb)) return false;
  if (call.scope != "cluster") {
    const std::string ns = call.scope == "release" ? release_ns : call.scope;
    if (made.ns != ns) return false;
  }
  return call.names.empty() || contains(call.names, made.name);
}

}  // namespace tailor::charts
