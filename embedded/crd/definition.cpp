#include "embedded/crd/definition.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "embedded/api/validation.h"
#include "embedded/crd/schema.h"
#include "embedded/storage/field_errors.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded::crd {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::vector<std::string> strings_at(const bj::object& o, std::string_view path) {
  std::vector<std::string> out;
  if (const bj::value* v = find_path(o, path); v && v->is_array()) {
    for (const bj::value& s : v->as_array()) {
      if (s.is_string()) out.emplace_back(s.as_string());
    }
  }
  return out;
}

bool bool_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

const bj::array& versions_of(const bj::object& crd) {
  static const bj::array kNone;
  const bj::value* v = find_path(crd, "spec.versions");
  return v && v->is_array() ? v->as_array() : kNone;
}

// k8s.io/apimachinery IsDNS1035Label.
std::string dns1035_label_error(const std::string& s) {
  if (s.size() > 63) return "must be no more than 63 characters";
  bool ok = !s.empty() && s.front() >= 'a' && s.front() <= 'z' &&
            (std::isdigit(static_cast<unsigned char>(s.back())) ||
             (s.back() >= 'a' && s.back() <= 'z')) &&
            s.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos;
  if (ok) return "";
  return "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with "
         "an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or "
         "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
}

void check_label(std::vector<FieldCause>& out, const std::string& field, const std::string& value,
                 const std::string& checked, const std::string& prefix = "") {
  if (value.empty()) return;
  if (std::string why = dns1035_label_error(checked); !why.empty())
    out.push_back(invalid_value(field, value, prefix + why));
}

void check_names(const bj::object& crd, std::vector<FieldCause>& out) {
  const std::string p = "spec.names.";
  std::string plural = string_at(crd, "spec.names.plural");
  std::string singular = string_at(crd, "spec.names.singular");
  std::string kind = string_at(crd, "spec.names.kind");
  std::string list_kind = string_at(crd, "spec.names.listKind");
  for (const auto& [value, name] : {std::pair{plural, "plural"},
                                    {singular, "singular"},
                                    {kind, "kind"},
                                    {list_kind, "listKind"}}) {
    if (value.empty()) out.push_back(required(p + name));
  }
  const std::string mixed = "may have mixed case, but should otherwise match: ";
  check_label(out, p + "plural", plural, plural);
  check_label(out, p + "singular", singular, singular);
  check_label(out, p + "kind", kind, lower(kind), mixed);
  check_label(out, p + "listKind", list_kind, lower(list_kind), mixed);
  std::vector<std::string> shorts = strings_at(crd, "spec.names.shortNames");
  for (std::size_t i = 0; i < shorts.size(); ++i)
    check_label(out, p + "shortNames[" + std::to_string(i) + "]", shorts[i], shorts[i]);
  if (!kind.empty() && kind == list_kind)
    out.push_back(
        invalid_value(p + "listKind", list_kind, "kind and listKind may not be the same"));
  std::vector<std::string> categories = strings_at(crd, "spec.names.categories");
  for (std::size_t i = 0; i < categories.size(); ++i)
    check_label(out, p + "categories[" + std::to_string(i) + "]", categories[i], categories[i]);
}

void check_group(const bj::object& crd, std::vector<FieldCause>& out) {
  std::string group = string_at(crd, "spec.group");
  if (group.empty()) {
    out.push_back(required("spec.group"));
  } else if (std::string why = dns1123_subdomain_error(group); !why.empty()) {
    out.push_back(invalid_value("spec.group", group, why));
  } else if (group.find('.') == std::string::npos) {
    out.push_back(invalid_value("spec.group", group, "should be a domain with at least one dot"));
  }
  std::string plural = string_at(crd, "spec.names.plural");
  std::string name = meta_string(crd, "name");
  if (name != plural + "." + group) {
    out.push_back(
        invalid_value("metadata.name", name, "must be spec.names.plural+\".\"+spec.group"));
  }
}

void check_scope(const bj::object& crd, std::vector<FieldCause>& out) {
  std::string scope = string_at(crd, "spec.scope");
  if (scope.empty()) {
    out.push_back(required("spec.scope"));
  } else if (scope != "Cluster" && scope != "Namespaced") {
    out.push_back(not_supported("spec.scope", scope, {"Cluster", "Namespaced"}));
  }
}

const std::vector<std::string> kColumnTypes = {"boolean", "date", "integer", "number", "string"};
const std::vector<std::string> kColumnFormats = {"byte",  "date",  "date-time", "double",
                                                 "float", "int32", "int64",     "password"};

std::string one_of(const std::vector<std::string>& values) {
  std::string s;
  for (const std::string& v : values) s += (s.empty() ? "" : ",") + v;
  return "must be one of " + s;
}

void check_columns(const bj::object& version, const std::string& path,
                   std::vector<FieldCause>& out) {
  const bj::value* cols = version.if_contains("additionalPrinterColumns");
  if (!cols || !cols->is_array()) return;
  for (std::size_t i = 0; i < cols->as_array().size(); ++i) {
    const bj::value& c = cols->as_array()[i];
    std::string at = path + ".additionalPrinterColumns[" + std::to_string(i) + "]";
    if (!c.is_object()) continue;
    std::string type = string_at(c, "type");
    std::string format = string_at(c, "format");
    if (string_at(c, "name").empty()) out.push_back(required(at + ".name"));
    if (type.empty()) {
      out.push_back(required(at + ".type", one_of(kColumnTypes)));
    } else if (std::find(kColumnTypes.begin(), kColumnTypes.end(), type) == kColumnTypes.end()) {
      out.push_back(invalid_value(at + ".type", type, one_of(kColumnTypes)));
    }
    if (!format.empty() &&
        std::find(kColumnFormats.begin(), kColumnFormats.end(), format) == kColumnFormats.end()) {
      out.push_back(invalid_value(at + ".format", format, one_of(kColumnFormats)));
    }
    std::string path_text = string_at(c, "jsonPath");
    if (path_text.empty()) {
      out.push_back(required(at + ".jsonPath"));
    } else if (path_text.front() != '.') {
      out.push_back(invalid_value(at + ".jsonPath", path_text, "must be a simple json path"));
    }
  }
}

void check_versions(const bj::object& crd, std::vector<FieldCause>& out) {
  const bj::array& versions = versions_of(crd);
  if (versions.empty()) out.push_back(required("spec.versions", "must have at least one version"));
  int storage = 0;
  std::set<std::string> seen;
  bool unique = true;
  for (std::size_t i = 0; i < versions.size(); ++i) {
    std::string at = "spec.versions[" + std::to_string(i) + "]";
    if (!versions[i].is_object()) {
      out.push_back(invalid_value(at, bj::serialize(versions[i]), "must be an object"));
      continue;
    }
    const bj::object& v = versions[i].as_object();
    std::string name = string_at(v, "name");
    if (bool_at(v, "storage")) ++storage;
    unique = seen.insert(name).second && unique;
    if (name.empty()) {
      out.push_back(required(at + ".name"));
    } else {
      check_label(out, at + ".name", name, name);
    }
    const bj::value* schema = find_path(v, "schema.openAPIV3Schema");
    for (FieldCause& c :
         structural_errors(schema ? *schema : bj::value(), at + ".schema.openAPIV3Schema")) {
      out.push_back(std::move(c));
    }
    check_columns(v, at, out);
  }
  const std::string all = "[]apiextensions.CustomResourceDefinitionVersion{...}";
  if (!unique) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + all + ": must contain unique version names",
                   "spec.versions"});
  }
  if (storage != 1) {
    out.push_back(
        {"FieldValueInvalid",
         "Invalid value: " + all + ": must have exactly one version marked as storage version",
         "spec.versions"});
  }
}

PrinterColumn age_printer_column() {
  return {"Age",
          "date",
          "",
          "CreationTimestamp is a timestamp representing the server time when this object was "
          "created. It is not guaranteed to be set in happens-before order across separate "
          "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
          "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
          "https://git.k8s.io/community/contributors/devel/sig-architecture/"
          "api-conventions.md#metadata",
          0,
          ".metadata.creationTimestamp"};
}

std::vector<PrinterColumn> columns_of(const bj::object& version) {
  std::vector<PrinterColumn> out;
  if (const bj::value* cols = version.if_contains("additionalPrinterColumns");
      cols && cols->is_array()) {
    for (const bj::value& c : cols->as_array()) {
      if (!c.is_object()) continue;
      const bj::value* prio = c.as_object().if_contains("priority");
      out.push_back({string_at(c, "name"), string_at(c, "type"), string_at(c, "format"),
                     string_at(c, "description"),
                     prio && prio->is_number() ? prio->to_number<int>() : 0,
                     string_at(c, "jsonPath")});
    }
  }
  if (out.empty()) out.push_back(age_printer_column());
  return out;
}

}  // namespace

const Version* Definition::version(const std::string& name) const {
  for (const Version& v : versions) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

std::vector<ResourceInfo> Definition::resource_infos() const {
  std::vector<ResourceInfo> out;
  for (const Version& v : versions) {
    if (!v.served) continue;
    ResourceInfo r{.group = group,
                   .version = v.name,
                   .resource = plural,
                   .singular = singular,
                   .kind = kind,
                   .namespaced = namespaced,
                   .short_names = short_names,
                   .categories = categories,
                   .tracks_generation = true};
    if (v.status_subresource) r.subresources = {"status"};
    out.push_back(std::move(r));
  }
  return out;
}

void default_definition(bj::object& crd) {
  bj::value& spec = crd["spec"];
  if (!spec.is_object()) return;
  bj::value& names = spec.as_object()["names"];
  if (!names.is_object()) names = bj::object{};
  bj::object& n = names.as_object();
  std::string kind = string_at(n, "kind");
  if (!kind.empty() && string_at(n, "singular").empty()) n["singular"] = lower(kind);
  if (!kind.empty() && string_at(n, "listKind").empty()) n["listKind"] = kind + "List";
  bj::value& conversion = spec.as_object()["conversion"];
  if (!conversion.is_object()) conversion = bj::object{};
  if (!conversion.as_object().contains("strategy")) conversion.as_object()["strategy"] = "None";
}

std::vector<FieldCause> validation_errors(const bj::object& crd) {
  std::vector<FieldCause> out;
  check_group(crd, out);
  check_scope(crd, out);
  check_versions(crd, out);
  check_names(crd, out);
  return out;
}

Definition parse_definition(const bj::object& crd) {
  Definition d;
  d.name = meta_string(crd, "name");
  d.group = string_at(crd, "spec.group");
  d.plural = string_at(crd, "spec.names.plural");
  d.singular = string_at(crd, "spec.names.singular");
  d.kind = string_at(crd, "spec.names.kind");
  d.list_kind = string_at(crd, "spec.names.listKind");
  d.short_names = strings_at(crd, "spec.names.shortNames");
  d.categories = strings_at(crd, "spec.names.categories");
  d.namespaced = string_at(crd, "spec.scope") != "Cluster";
  for (const bj::value& entry : versions_of(crd)) {
    if (!entry.is_object()) continue;
    const bj::object& v = entry.as_object();
    const bj::value* schema = find_path(v, "schema.openAPIV3Schema");
    d.versions.push_back({string_at(v, "name"), bool_at(v, "served"), bool_at(v, "storage"),
                          std::make_shared<const bj::object>(
                              schema && schema->is_object() ? schema->as_object() : bj::object{}),
                          find_path(v, "subresources.status") != nullptr, columns_of(v)});
  }
  return d;
}

}  // namespace tailor::embedded::crd
