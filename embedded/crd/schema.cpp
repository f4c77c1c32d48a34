#include "embedded/crd/schema.h"

#include <algorithm>
#include <map>

#include "embedded/cel/regexp.h"
#include "embedded/crd/rules.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/json_value.h"

namespace tailor::embedded::crd {
namespace {

bool flag(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

std::string type_of(const bj::object& schema) {
  const bj::value* t = schema.if_contains("type");
  return t && t->is_string() ? std::string(t->as_string()) : "";
}

// ---- structural checks of the CRD's schema ----

const std::vector<std::string> kTypes = {"array",  "boolean", "integer",
                                         "number", "object",  "string"};

// What the checks of a schema find, as kube-apiserver orders it: the schema's errors, then the
// rules' compilation errors; a node's rules are compiled only when it and everything under it
// have no schema error (an unsound schema gives no type to check against).
struct Report {
  std::vector<FieldCause> schema;
  std::vector<FieldCause> rules;
};

// uncorrelatable: the path of the nearest list above whose items have no old counterpart (not an
// `x-kubernetes-list-type: map`), where transition rules cannot be; "" when there is none.
void check_node(const bj::value& node, const std::string& path, const std::string& empty_type_why,
                Report& report, const std::string& uncorrelatable);

// The node's rules, then its children, then, when no schema error was found since the node's
// checks began (report.schema had `sound` causes), the compiled rules.
void check_rules_and_children(const bj::object& s, const std::string& path, Report& report,
                              std::size_t sound, bool resource_root,
                              const std::string& uncorrelatable);

void check_children(const bj::object& s, const std::string& path, Report& report,
                    const std::string& uncorrelatable) {
  std::vector<FieldCause>& out = report.schema;
  if (const bj::object* props = object_field(s, "properties")) {
    for (const auto& [name, child] : *props) {
      check_node(child, path + ".properties[" + std::string(name) + "]",
                 "must not be empty for specified object fields", report, uncorrelatable);
    }
    if (s.contains("additionalProperties") && s.at("additionalProperties").is_object()) {
      out.push_back({"FieldValueForbidden",
                     "Forbidden: additionalProperties and properties are mutual exclusive",
                     path + ".additionalProperties"});
    }
  }
  if (const bj::value* ap = s.if_contains("additionalProperties"); ap && ap->is_object()) {
    check_node(*ap, path + ".additionalProperties", "must not be empty for specified object fields",
               report, uncorrelatable);
  }
  if (type_of(s) == "array") {
    const bj::value* items = s.if_contains("items");
    if (!items) {
      out.push_back({"FieldValueRequired", "Required value: must be specified", path + ".items"});
    } else {
      const bj::value* list_type = s.if_contains("x-kubernetes-list-type");
      bool by_key = list_type && list_type->is_string() && list_type->as_string() == "map";
      check_node(*items, path + ".items", "must not be empty for specified array items", report,
                 uncorrelatable.empty() && !by_key ? path : uncorrelatable);
    }
  }
}

void check_pattern(const bj::object& s, const std::string& path, std::vector<FieldCause>& out) {
  const bj::value* p = s.if_contains("pattern");
  if (!p || !p->is_string()) return;
  if (std::string why = cel::regexp_error(std::string(p->as_string())); !why.empty()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + bj::serialize(*p) +
                       ": must be a valid regular expression, but isn't: " + why,
                   path + ".pattern"});
  }
}

void check_rules_and_children(const bj::object& s, const std::string& path, Report& report,
                              std::size_t sound, bool resource_root,
                              const std::string& uncorrelatable) {
  check_rule_fields(s, path, report.schema);
  check_children(s, path, report, uncorrelatable);
  if (report.schema.size() == sound)
    check_rule_expressions(s, path, report.rules, resource_root, uncorrelatable);
}

void check_node(const bj::value& node, const std::string& path, const std::string& empty_type_why,
                Report& report, const std::string& uncorrelatable) {
  std::vector<FieldCause>& out = report.schema;
  const std::size_t sound = out.size();
  if (!node.is_object()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + bj::serialize(node) + ": must be a schema object", path});
    return;
  }
  const bj::object& s = node.as_object();
  std::string type = type_of(s);
  bool untyped_ok =
      flag(s, "x-kubernetes-int-or-string") || flag(s, "x-kubernetes-preserve-unknown-fields");
  if (type.empty() && !untyped_ok) {
    out.push_back({"FieldValueRequired", "Required value: " + empty_type_why, path + ".type"});
  } else if (!type.empty() && std::find(kTypes.begin(), kTypes.end(), type) == kTypes.end()) {
    std::string supported;
    for (const std::string& t : kTypes) supported += (supported.empty() ? "\"" : ", \"") + t + "\"";
    out.push_back({"FieldValueNotSupported",
                   "Unsupported value: \"" + type + "\": supported values: " + supported,
                   path + ".type"});
  }
  check_pattern(s, path, out);
  check_rules_and_children(s, path, report, sound, false, uncorrelatable);
}

// ---- pruning and defaulting ----

// path: where value is ("" at the root); dropped: the paths pruned.
void prune_value(bj::value& value, const bj::object& schema, const std::string& path,
                 std::vector<std::string>& dropped);

std::string child_path(const std::string& path, std::string_view key) {
  return path.empty() ? std::string(key) : path + "." + std::string(key);
}

void prune_object(bj::object& o, const bj::object& schema, bool root, const std::string& path,
                  std::vector<std::string>& dropped) {
  const bj::object* props = object_field(schema, "properties");
  const bj::value* additional = schema.if_contains("additionalProperties");
  bool preserve = flag(schema, "x-kubernetes-preserve-unknown-fields");
  std::vector<std::string> unknown;
  for (auto& [key, child] : o) {
    if (root && (key == "apiVersion" || key == "kind" || key == "metadata")) continue;
    if (props && props->contains(key) && props->at(key).is_object()) {
      prune_value(child, props->at(key).as_object(), child_path(path, key), dropped);
    } else if (additional && additional->is_object()) {
      prune_value(child, additional->as_object(), child_path(path, key), dropped);
    } else if (!preserve && !(additional && additional->is_bool() && additional->as_bool())) {
      unknown.emplace_back(key);
    }
  }
  for (const std::string& key : unknown) {
    o.erase(key);
    dropped.push_back(child_path(path, key));
  }
}

void prune_value(bj::value& value, const bj::object& schema, const std::string& path,
                 std::vector<std::string>& dropped) {
  if (value.is_object()) {
    prune_object(value.as_object(), schema, false, path, dropped);
  } else if (value.is_array()) {
    const bj::object* items = object_field(schema, "items");
    if (!items) return;
    bj::array& a = value.as_array();
    for (std::size_t i = 0; i < a.size(); ++i) {
      prune_value(a[i], *items, path + "[" + std::to_string(i) + "]", dropped);
    }
  }
}

void default_value(bj::value& value, const bj::object& schema);

void default_object(bj::object& o, const bj::object& schema) {
  if (const bj::object* props = object_field(schema, "properties")) {
    for (const auto& [key, child] : *props) {
      if (!child.is_object()) continue;
      const bj::object& cs = child.as_object();
      const bj::value* def = cs.if_contains("default");
      bj::value* present = o.if_contains(key);
      bool null_to_default = present && present->is_null() && !flag(cs, "nullable");
      if (def && (!present || null_to_default)) o[key] = *def;
      if (bj::value* v = o.if_contains(key)) default_value(*v, cs);
    }
  }
  if (const bj::object* additional = object_field(schema, "additionalProperties")) {
    for (auto& [key, child] : o) default_value(child, *additional);
  }
}

void default_value(bj::value& value, const bj::object& schema) {
  if (value.is_object()) {
    default_object(value.as_object(), schema);
  } else if (value.is_array()) {
    if (const bj::object* items = object_field(schema, "items")) {
      for (bj::value& v : value.as_array()) default_value(v, *items);
    }
  }
}

// ---- validation ----

std::string json_type(const bj::value& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return "string";
  if (v.is_bool()) return "boolean";
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_int64()) return "integer";
  return "number";  // a uint64 past int64 is a float64 to Go's decoding
}

bool has_type(const bj::value& v, const std::string& type) {
  if (type == "integer") return kube::json::integer_of(v).has_value();
  if (type == "number") return v.is_number();
  return json_type(v) == type;
}

// A value in "Invalid value: ..." (strings quoted, as Go's %q).
std::string shown(const bj::value& v) { return bj::serialize(v); }

class Validator {
 public:
  std::vector<FieldCause> causes;

  void value(const bj::value& v, const bj::object& s, const std::string& path) {
    if (v.is_null()) {
      if (!flag(s, "nullable") && !untyped(s)) type_error(v, type_of(s), path);
      return;
    }
    if (!type_ok(v, s, path)) return;
    enumeration(v, s, path);
    if (v.is_number()) bounds(v, s, path);
    if (v.is_string()) pattern(v, s, path);
    if (v.is_object()) object(v.as_object(), s, path);
    if (v.is_array()) {
      if (const bj::object* items = object_field(s, "items")) {
        const bj::array& a = v.as_array();
        for (std::size_t i = 0; i < a.size(); ++i)
          value(a[i], *items, path + "[" + std::to_string(i) + "]");
      }
    }
  }

  void object(const bj::object& o, const bj::object& s, const std::string& path) {
    std::string prefix = path.empty() ? "" : path + ".";
    if (const bj::value* req = s.if_contains("required"); req && req->is_array()) {
      for (const bj::value& name : req->as_array()) {
        if (name.is_string() && !o.contains(name.as_string())) {
          causes.push_back(
              {"FieldValueRequired", "Required value", prefix + std::string(name.as_string())});
        }
      }
    }
    const bj::object* props = object_field(s, "properties");
    const bj::object* additional = object_field(s, "additionalProperties");
    for (const auto& [key, child] : o) {
      if (path.empty() && (key == "apiVersion" || key == "kind" || key == "metadata")) continue;
      if (props && props->contains(key) && props->at(key).is_object()) {
        value(child, props->at(key).as_object(), prefix + std::string(key));
      } else if (additional) {
        value(child, *additional, prefix + std::string(key));
      }
    }
  }

 private:
  static bool untyped(const bj::object& s) {
    return type_of(s).empty() && !flag(s, "x-kubernetes-int-or-string");
  }

  bool type_ok(const bj::value& v, const bj::object& s, const std::string& path) {
    if (flag(s, "x-kubernetes-int-or-string")) {
      if (has_type(v, "integer") || v.is_string()) return true;
      type_error(v, "integer,string", path);
      return false;
    }
    std::string type = type_of(s);
    if (type.empty() || has_type(v, type)) return true;
    type_error(v, type, path);
    return false;
  }

  void type_error(const bj::value& v, const std::string& type, const std::string& path) {
    std::string actual = json_type(v);
    causes.push_back({"FieldValueTypeInvalid",
                      "Invalid value: \"" + actual + "\": " + path + " in body must be of type " +
                          type + ": \"" + actual + "\"",
                      path});
  }

  void enumeration(const bj::value& v, const bj::object& s, const std::string& path) {
    const bj::value* e = s.if_contains("enum");
    if (!e || !e->is_array()) return;
    const bj::array& allowed = e->as_array();
    if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return;
    std::string supported;
    for (const bj::value& a : allowed) supported += (supported.empty() ? "" : ", ") + shown(a);
    causes.push_back({"FieldValueNotSupported",
                      "Unsupported value: " + shown(v) + ": supported values: " + supported, path});
  }

  void bounds(const bj::value& v, const bj::object& s, const std::string& path) {
    double x = v.to_number<double>();
    auto limit = [&](std::string_view key, std::string_view exclusive, bool lower) {
      const bj::value* l = s.if_contains(key);
      if (!l || !l->is_number()) return;
      double b = l->to_number<double>();
      bool strict = flag(s, exclusive);
      bool ok = lower ? (strict ? x > b : x >= b) : (strict ? x < b : x <= b);
      if (ok) return;
      std::string relation =
          std::string(lower ? "greater than" : "less than") + (strict ? "" : " or equal to");
      causes.push_back({"FieldValueInvalid",
                        "Invalid value: " + shown(v) + ": " + path + " in body should be " +
                            relation + " " + bj::serialize(*l),
                        path});
    };
    limit("minimum", "exclusiveMinimum", true);
    limit("maximum", "exclusiveMaximum", false);
  }

  void pattern(const bj::value& v, const bj::object& s, const std::string& path) {
    const bj::value* p = s.if_contains("pattern");
    if (!p || !p->is_string()) return;
    const std::string pattern(p->as_string());
    // An invalid pattern was refused when the CRD was written (check_pattern).
    if (cel::regexp_matches(pattern, v.as_string()).value_or(true)) return;
    causes.push_back({"FieldValueInvalid",
                      "Invalid value: " + shown(v) + ": " + path + " in body should match '" +
                          std::string(p->as_string()) + "'",
                      path});
  }
};

}  // namespace

std::vector<FieldCause> structural_errors(const bj::value& schema, const std::string& path) {
  std::vector<FieldCause> out;
  if (!schema.is_object()) {
    out.push_back({"FieldValueRequired", "Required value: schemas are required", path});
    return out;
  }
  const bj::object& s = schema.as_object();
  std::string type = type_of(s);
  if (type.empty()) {
    out.push_back(
        {"FieldValueRequired", "Required value: must not be empty at the root", path + ".type"});
  } else if (type != "object") {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: \"" + type + "\": must be object at the root", path + ".type"});
  }
  check_pattern(s, path, out);
  Report report{std::move(out), {}};
  check_rules_and_children(s, path, report, 0, true, "");
  out = std::move(report.schema);
  out.insert(out.end(), report.rules.begin(), report.rules.end());
  return out;
}

std::vector<std::string> prune(bj::object& object, const bj::object& schema) {
  std::vector<std::string> dropped;
  prune_object(object, schema, true, "", dropped);
  std::sort(dropped.begin(), dropped.end());
  return dropped;
}

void apply_defaults(bj::object& object, const bj::object& schema) {
  default_object(object, schema);
}

std::vector<FieldCause> violations(const bj::object& object, const bj::object& schema) {
  Validator v;
  v.object(object, schema, "");
  return v.causes;
}

}  // namespace tailor::embedded::crd
