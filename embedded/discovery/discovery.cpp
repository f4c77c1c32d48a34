#include "embedded/discovery/discovery.h"

#include <algorithm>
#include <boost/json.hpp>

#include "embedded/api/resources.h"

namespace tailor::embedded {
namespace {
namespace bj = boost::json;

bj::array strings(const std::vector<std::string>& v) {
  bj::array a;
  for (const std::string& s : v) a.push_back(bj::string(s));
  return a;
}

bj::array verbs(const ResourceInfo& r) {
  if (!r.verbs.empty()) return strings(r.verbs);
  return {"create", "delete", "get", "list", "patch", "update", "watch"};
}

// Eviction, binding and token are POSTed; the others are read and written like the object.
bj::array subresource_verbs(const std::string& subresource) {
  if (subresource == "eviction" || subresource == "binding" || subresource == "token")
    return {"create"};
  return {"get", "patch", "update"};
}

std::string group_version(const std::string& group, const std::string& version) {
  return group.empty() ? version : group + "/" + version;
}

bj::object subresource_kind(const ResourceInfo& r, const std::string& subresource) {
  if (subresource == "eviction")
    return {{"group", "policy"}, {"version", "v1"}, {"kind", "Eviction"}};
  if (subresource == "binding") return {{"group", ""}, {"version", "v1"}, {"kind", "Binding"}};
  if (subresource == "token")
    return {{"group", "authentication.k8s.io"}, {"version", "v1"}, {"kind", "TokenRequest"}};
  if (subresource == "scale")
    return {{"group", "autoscaling"}, {"version", "v1"}, {"kind", "Scale"}};
  return {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
}

bj::object aggregated_resource(const ResourceInfo& r) {
  bj::object o{
      {"resource", r.resource},
      {"responseKind", bj::object{{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
      {"scope", r.namespaced ? "Namespaced" : "Cluster"},
      {"singularResource", r.singular},
      {"verbs", verbs(r)}};
  if (!r.short_names.empty()) o["shortNames"] = strings(r.short_names);
  if (!r.categories.empty()) o["categories"] = strings(r.categories);
  bj::array subs;
  for (const std::string& s : r.subresources) {
    subs.push_back(bj::object{{"subresource", s},
                              {"responseKind", subresource_kind(r, s)},
                              {"verbs", subresource_verbs(s)}});
  }
  if (!subs.empty()) o["subresources"] = std::move(subs);
  return o;
}

}  // namespace

std::string version_document() {
  return bj::serialize(bj::object{{"major", "1"},
                                  {"minor", "35"},
                                  {"emulationMajor", "1"},
                                  {"emulationMinor", "35"},
                                  {"minCompatibilityMajor", "1"},
                                  {"minCompatibilityMinor", "34"},
                                  {"gitVersion", "v1.35.0"},
                                  {"gitCommit", "tailor-cluster"},
                                  {"gitTreeState", "clean"},
                                  {"buildDate", "2026-01-01T00:00:00Z"},
                                  {"goVersion", "go1.25.0"},
                                  {"compiler", "gc"},
                                  {"platform", "linux/amd64"}});
}

std::string aggregated_discovery(bool core) {
  bj::array items;
  // One item per group, its versions in preference order (autoscaling: v2, then v1).
  std::vector<std::string> groups;
  for (const auto& [group, version] : served_group_versions()) {
    if (group.empty() != core) continue;
    bj::array resources;
    for (const ResourceInfo* r : served_resources()) {
      if (r->group == group && r->version == version) resources.push_back(aggregated_resource(*r));
    }
    bj::object v{
        {"version", version}, {"resources", std::move(resources)}, {"freshness", "Current"}};
    auto seen = std::find(groups.begin(), groups.end(), group);
    if (seen != groups.end()) {
      items[seen - groups.begin()].as_object()["versions"].as_array().push_back(std::move(v));
      continue;
    }
    groups.push_back(group);
    items.push_back(
        bj::object{{"metadata", bj::object{{"name", group}, {"creationTimestamp", nullptr}}},
                   {"versions", bj::array{std::move(v)}}});
  }
  return bj::serialize(bj::object{{"kind", "APIGroupDiscoveryList"},
                                  {"apiVersion", "apidiscovery.k8s.io/v2"},
                                  {"metadata", bj::object{}},
                                  {"items", std::move(items)}});
}

std::string legacy_api_versions(const std::string& server_address) {
  return bj::serialize(bj::object{
      {"kind", "APIVersions"},
      {"versions", bj::array{"v1"}},
      {"serverAddressByClientCIDRs",
       bj::array{bj::object{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", server_address}}}}});
}

namespace {

bj::object api_group(const std::string& group) {
  bj::array versions;
  std::string preferred;
  for (const auto& [g, v] : served_group_versions()) {
    if (g != group) continue;
    versions.push_back(bj::object{{"groupVersion", group_version(g, v)}, {"version", v}});
    if (preferred.empty()) preferred = v;
  }
  return bj::object{
      {"name", group},
      {"versions", versions},
      {"preferredVersion",
       bj::object{{"groupVersion", group_version(group, preferred)}, {"version", preferred}}}};
}

}  // namespace

std::string legacy_api_groups() {
  bj::array groups;
  std::vector<std::string> seen;
  for (const auto& [g, v] : served_group_versions()) {
    if (g.empty() || std::find(seen.begin(), seen.end(), g) != seen.end()) continue;
    seen.push_back(g);
    groups.push_back(api_group(g));
  }
  return bj::serialize(
      bj::object{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}});
}

std::optional<std::string> legacy_api_group(const std::string& group) {
  for (const auto& [g, v] : served_group_versions()) {
    if (g == group && !g.empty()) {
      bj::object o{{"kind", "APIGroup"}, {"apiVersion", "v1"}};
      for (auto& [k, val] : api_group(group)) o[k] = val;
      return bj::serialize(o);
    }
  }
  return std::nullopt;
}

std::optional<std::string> legacy_resource_list(const std::string& group,
                                                const std::string& version) {
  bj::array resources;
  for (const ResourceInfo* info : served_resources()) {
    const ResourceInfo& r = *info;
    if (r.group != group || r.version != version) continue;
    bj::object o{{"name", r.resource},
                 {"singularName", r.singular},
                 {"namespaced", r.namespaced},
                 {"kind", r.kind},
                 {"verbs", verbs(r)}};
    if (!r.short_names.empty()) o["shortNames"] = strings(r.short_names);
    if (!r.categories.empty()) o["categories"] = strings(r.categories);
    resources.push_back(std::move(o));
    for (const std::string& s : r.subresources) {
      bj::object kind = subresource_kind(r, s);
      bj::object sub{
          {"name", r.resource + "/" + s}, {"singularName", ""}, {"namespaced", r.namespaced}};
      // A kind from another group version is named with it (kubectl drain looks for
      // pods/eviction in policy/v1 this way).
      if (kind.at("group").as_string() != r.group || kind.at("version").as_string() != r.version) {
        sub["group"] = kind.at("group");
        sub["version"] = kind.at("version");
      }
      sub["kind"] = kind.at("kind");
      sub["verbs"] = subresource_verbs(s);
      resources.push_back(std::move(sub));
    }
  }
  if (resources.empty()) return std::nullopt;
  return bj::serialize(bj::object{{"kind", "APIResourceList"},
                                  {"apiVersion", "v1"},
                                  {"groupVersion", group_version(group, version)},
                                  {"resources", std::move(resources)}});
}

namespace {

std::string openapi_path(const std::string& group, const std::string& version) {
  return group.empty() ? "api/" + version : "apis/" + group + "/" + version;
}

}  // namespace

std::string openapi_v3_root() {
  bj::object paths;
  for (const auto& [g, v] : served_group_versions()) {
    std::string p = openapi_path(g, v);
    paths[p] = bj::object{{"serverRelativeURL", "/openapi/v3/" + p}};
  }
  return bj::serialize(bj::object{{"paths", std::move(paths)}});
}

// Per kind a PATCH operation with its group-version-kind and the fieldValidation parameter: what
// kubectl's validation looks for before relying on server-side field validation.
std::optional<std::string> openapi_v3_group_version(const std::string& path) {
  bj::object paths;
  for (const ResourceInfo* info : served_resources()) {
    const ResourceInfo& r = *info;
    if (openapi_path(r.group, r.version) != path) continue;
    std::string url =
        "/" + path + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.resource + "/{name}";
    bj::object patch{
        {"x-kubernetes-group-version-kind",
         bj::object{{"group", r.group}, {"version", r.version}, {"kind", r.kind}}},
        {"x-kubernetes-action", "patch"},
        {"parameters", bj::array{bj::object{{"name", "fieldValidation"},
                                            {"in", "query"},
                                            {"schema", bj::object{{"type", "string"}}}}}},
        {"responses", bj::object{{"200", bj::object{{"description", "OK"}}}}}};
    paths[url] = bj::object{{"patch", std::move(patch)}};
  }
  if (paths.empty()) return std::nullopt;
  return bj::serialize(
      bj::object{{"openapi", "3.0.0"},
                 {"info", bj::object{{"title", "Kubernetes"}, {"version", "v1.35.0"}}},
                 {"paths", std::move(paths)}});
}

}  // namespace tailor::embedded
