#include "embedded/crd/rules.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <memory>

#include "embedded/cel/cel.h"
#include "embedded/crd/rule_types.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded::crd {
namespace {

namespace bj = boost::json;

std::string text_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

std::string trimmed(const std::string& s) {
  std::size_t b = s.find_first_not_of(" \t\n\r\f\v"), e = s.find_last_not_of(" \t\n\r\f\v");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

const std::vector<std::string> kReasons = {"FieldValueDuplicate", "FieldValueForbidden",
                                           "FieldValueInvalid", "FieldValueRequired"};

// Compiled programs by source, shared by every request of this thread.
cel::Compiled compiled(const std::string& source) {
  thread_local std::map<std::string, cel::Compiled> cache;
  auto it = cache.find(source);
  if (it != cache.end()) return it->second;
  if (cache.size() >= 1024) cache.clear();
  return cache.emplace(source, cel::compile(source)).first->second;
}

// The rule as Go's %#v prints apiextensions.ValidationRule in kube-apiserver's messages (a set
// reason, a pointer there, is shown by its value).
std::string go_rule(const bj::object& rule) {
  auto quoted = [&](std::string_view key) { return bj::serialize(bj::value(text_at(rule, key))); };
  std::string reason = text_at(rule, "reason");
  return "apiextensions.ValidationRule{Rule:" + quoted("rule") + ", Message:" + quoted("message") +
         ", MessageExpression:" + quoted("messageExpression") +
         ", Reason:(*apiextensions.FieldValueErrorReason)(" +
         (reason.empty() ? "nil" : bj::serialize(bj::value(reason))) +
         "), FieldPath:" + quoted("fieldPath") + ", OptionalOldSelf:(*bool)(nil)}";
}

bool has_newline(const std::string& s) { return s.find_first_of("\n\r") != std::string::npos; }

// Whether field_path names a node under schema: `.name` or `['name']` steps through properties
// and additionalProperties (kube-apiserver's ValidFieldPath; lists cannot be stepped into).
bool valid_field_path(const bj::object& schema, const std::string& field_path) {
  const bj::object* node = &schema;
  std::size_t i = 0;
  while (i < field_path.size()) {
    std::string name;
    if (field_path[i] == '.') {
      std::size_t end = field_path.find_first_of(".[]", i + 1);
      if (end == std::string::npos) end = field_path.size();
      name = field_path.substr(i + 1, end - i - 1);
      if (name.empty()) return false;
      i = end;
    } else if (field_path.compare(i, 2, "['") == 0) {
      std::size_t end = field_path.find("']", i + 2);
      if (end == std::string::npos) return false;
      name = field_path.substr(i + 2, end - i - 2);
      i = end + 2;
    } else {
      return false;
    }
    const bj::object* props = object_field(*node, "properties");
    const bj::object* additional = object_field(*node, "additionalProperties");
    const bj::object* next = props ? object_field(*props, name) : additional;
    if (!next) return false;
    node = next;
  }
  return true;
}

void check_texts(const bj::object& rule, const bj::object& node, const std::string& at,
                 std::vector<FieldCause>& out) {
  std::string message = text_at(rule, "message");
  std::string shown_message = bj::serialize(bj::value(message));
  if (!message.empty() && trimmed(message).empty()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + shown_message + ": message must be non-empty if specified",
                   at + ".message"});
  } else if (has_newline(trimmed(message))) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + shown_message + ": message must not contain line breaks",
                   at + ".message"});
  } else if (has_newline(trimmed(text_at(rule, "rule"))) && trimmed(message).empty()) {
    out.push_back({"FieldValueRequired",
                   "Required value: message must be specified if rule contains line breaks",
                   at + ".message"});
  }
  std::string expression = text_at(rule, "messageExpression");
  if (!expression.empty() && trimmed(expression).empty()) {
    out.push_back({"FieldValueRequired",
                   "Required value: messageExpression must be non-empty if specified",
                   at + ".messageExpression"});
  }
  std::string field_path = text_at(rule, "fieldPath");
  std::string shown_path = bj::serialize(bj::value(field_path));
  if (!field_path.empty() && trimmed(field_path).empty()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + shown_path + ": fieldPath must be non-empty if specified",
                   at + ".fieldPath"});
  }
  if (has_newline(field_path)) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + shown_path + ": fieldPath must not contain line breaks",
                   at + ".fieldPath"});
  }
  if (!field_path.empty() && !valid_field_path(node, field_path)) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + shown_path + ": fieldPath must be a valid path",
                   at + ".fieldPath"});
  }
}

void check_reason(const bj::object& rule, const std::string& at, std::vector<FieldCause>& out) {
  std::string reason = text_at(rule, "reason");
  if (reason.empty() || std::find(kReasons.begin(), kReasons.end(), reason) != kReasons.end())
    return;
  std::string supported;
  for (const std::string& r : kReasons) supported += (supported.empty() ? "\"" : ", \"") + r + "\"";
  out.push_back({"FieldValueNotSupported",
                 "Unsupported value: \"" + reason + "\": supported values: " + supported,
                 at + ".reason"});
}

// The rule and its messageExpression compiled and type-checked with self and oldSelf of the
// node's type (kube-apiserver's compileRule).
void check_expressions(const bj::object& rule, const cel::Variables& variables,
                       const std::string& at, const std::string& uncorrelatable,
                       std::vector<FieldCause>& out) {
  auto invalid = [&](const std::string& field, const std::string& detail) {
    out.push_back(
        {"FieldValueInvalid", "Invalid value: " + go_rule(rule) + ": " + detail, at + "." + field});
  };
  cel::Compiled r = cel::compile(text_at(rule, "rule"), variables);
  if (!r.error.empty()) {
    invalid("rule", "compilation failed: " + r.error);
  } else if (!r.type->is(cel::Type::Kind::Bool)) {
    invalid("rule", "cel expression must evaluate to a bool");
  } else if (r.program->uses_old_self() && !uncorrelatable.empty()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + bj::serialize(bj::value(text_at(rule, "rule"))) +
                       ": oldSelf cannot be used on the uncorrelatable portion of the schema "
                       "within " +
                       uncorrelatable,
                   at + ".rule"});
  }
  std::string expression = text_at(rule, "messageExpression");
  if (trimmed(expression).empty()) return;
  cel::Compiled m = cel::compile(expression, variables);
  if (!m.error.empty()) {
    invalid("messageExpression", "messageExpression compilation failed: " + m.error);
  } else if (!m.type->is(cel::Type::Kind::String)) {
    invalid("messageExpression", "messageExpression must evaluate to a string");
  }
}

// JSON into CEL as the schema types it: a "number" is a double even when written as 1.
cel::Value typed(const bj::value& v, const bj::object* schema) {
  auto child_schema = [&](std::string_view key, const char* group) -> const bj::object* {
    if (!schema) return nullptr;
    const bj::value* g = schema->if_contains(group);
    if (!g || !g->is_object()) return nullptr;
    if (key.empty()) return &g->as_object();
    const bj::value* c = g->as_object().if_contains(key);
    return c && c->is_object() ? &c->as_object() : nullptr;
  };
  if (v.is_object()) {
    // Declared properties go by their CEL names (crd/rule_types.h); a map's keys as they are.
    bool declared = schema && schema->contains("properties");
    cel::Map m;
    for (const auto& [k, e] : v.as_object()) {
      const bj::object* s = child_schema(k, "properties");
      if (!s) s = child_schema("", "additionalProperties");
      std::optional<std::string> name =
          declared ? escaped_property(k) : std::optional<std::string>(std::string(k));
      if (name) m.emplace_back(cel::Value::string(*name), typed(e, s));
    }
    return cel::Value::map(std::move(m));
  }
  if (v.is_array()) {
    cel::List l;
    for (const bj::value& e : v.as_array()) l.push_back(typed(e, child_schema("", "items")));
    return cel::Value::list(std::move(l));
  }
  if (schema && text_at(*schema, "type") == "number" && (v.is_int64() || v.is_uint64()))
    return cel::Value::real(v.to_number<double>());
  return cel::from_json(v);
}

// The object's root is the nil field path, which Go prints as "<nil>".
std::string shown_path(const std::string& path) { return path.empty() ? "<nil>" : path; }

std::string join_path(const std::string& path, const std::string& field_path) {
  std::string child =
      field_path.empty() || field_path[0] != '.' ? field_path : field_path.substr(1);
  if (child.empty()) return shown_path(path);
  return path.empty() ? child : path + "." + child;
}

// kube-apiserver's field error for a failed rule: objects and arrays are not quoted.
FieldCause failure(const bj::value& value, const bj::object& rule, const std::string& path,
                   const std::string& detail) {
  std::string reason = text_at(rule, "reason");
  std::string at = join_path(path, text_at(rule, "fieldPath"));
  bool omit = value.is_object() || value.is_array();
  std::string shown = omit ? "" : bj::serialize(value) + ": ";
  if (reason == "FieldValueForbidden") return {reason, "Forbidden: " + detail, at};
  if (reason == "FieldValueRequired") return {reason, "Required value: " + detail, at};
  if (reason == "FieldValueDuplicate")
    return {reason, omit ? "Duplicate value" : "Duplicate value: " + bj::serialize(value), at};
  return {"FieldValueInvalid", "Invalid value: " + shown + detail, at};
}

// The message of a failed rule: messageExpression's string when it yields a usable one, else
// message, else "failed rule: <rule>".
std::string detail_of(const bj::object& rule, const cel::Value& self, const cel::Value* old) {
  std::string expression = text_at(rule, "messageExpression");
  if (!expression.empty()) {
    cel::Compiled c = compiled(expression);
    cel::Value m = c.program ? c.program->evaluate(self, old) : cel::Value::error(c.error);
    if (m.is<std::string>()) {
      std::string s = trimmed(m.as<std::string>());
      if (!s.empty() && s.find('\n') == std::string::npos && s.size() <= 5000) return s;
    }
  }
  std::string message = trimmed(text_at(rule, "message"));
  return message.empty() ? "failed rule: " + trimmed(text_at(rule, "rule")) : message;
}

bool has_rules(const bj::value& schema) {
  if (schema.is_array()) {
    for (const bj::value& e : schema.as_array())
      if (has_rules(e)) return true;
    return false;
  }
  if (!schema.is_object()) return false;
  for (const auto& [k, e] : schema.as_object())
    if (k == "x-kubernetes-validations" || has_rules(e)) return true;
  return false;
}

// The old item an item of a list is compared with: in an `x-kubernetes-list-type: map` list the
// one with the same keys (x-kubernetes-list-map-keys); items of atomic and set lists have none,
// so their transition rules do not run (kube-apiserver correlates only by key).
const bj::value* correlated_item(const bj::value& item, const bj::value* old_list,
                                 const bj::object& list_schema) {
  const bj::value* keys = list_schema.if_contains("x-kubernetes-list-map-keys");
  if (!old_list || !old_list->is_array() ||
      text_at(list_schema, "x-kubernetes-list-type") != "map" || !keys || !keys->is_array() ||
      !item.is_object())
    return nullptr;
  for (const bj::value& candidate : old_list->as_array()) {
    if (!candidate.is_object()) continue;
    bool same = true;
    for (const bj::value& k : keys->as_array()) {
      if (!k.is_string()) continue;
      const bj::value* a = item.as_object().if_contains(k.as_string());
      const bj::value* b = candidate.as_object().if_contains(k.as_string());
      same = same && (a && b ? *a == *b : a == b);
    }
    if (same) return &candidate;
  }
  return nullptr;
}

// Rules at every node, parents before children (as kube-apiserver's CEL validator walks);
// returns false once the cost limit stopped evaluation.
bool walk(const bj::value& value, const bj::value* old, const bj::object& schema,
          const std::string& path, std::vector<FieldCause>& out, std::uint64_t& budget) {
  if (!evaluate_rules(value, old, schema, path, out, budget)) return false;
  std::string prefix = path.empty() ? "" : path + ".";
  if (value.is_object()) {
    const bj::object* props = object_field(schema, "properties");
    const bj::object* additional = object_field(schema, "additionalProperties");
    const bj::object* old_object = old && old->is_object() ? &old->as_object() : nullptr;
    for (const auto& [k, child] : value.as_object()) {
      const bj::object* s = props ? object_field(*props, k) : nullptr;
      if (!s) s = additional;
      if (!s) continue;
      const bj::value* old_child = old_object ? old_object->if_contains(k) : nullptr;
      if (!walk(child, old_child, *s, prefix + std::string(k), out, budget)) return false;
    }
  } else if (value.is_array()) {
    const bj::object* items = object_field(schema, "items");
    const bj::array& a = value.as_array();
    for (std::size_t i = 0; items && i < a.size(); ++i) {
      const bj::value* old_item = correlated_item(a[i], old, schema);
      if (!walk(a[i], old_item, *items, path + "[" + std::to_string(i) + "]", out, budget))
        return false;
    }
  }
  return true;
}

}  // namespace

void check_rule_fields(const bj::object& node, const std::string& path,
                       std::vector<FieldCause>& out) {
  const bj::value* rules = node.if_contains("x-kubernetes-validations");
  if (!rules || !rules->is_array()) return;
  const bj::array& list = rules->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string at = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
    if (!list[i].is_object()) continue;
    const bj::object& rule = list[i].as_object();
    if (trimmed(text_at(rule, "rule")).empty()) {
      out.push_back({"FieldValueRequired", "Required value: rule is not specified", at + ".rule"});
    }
    check_texts(rule, node, at, out);
    check_reason(rule, at, out);
  }
}

void check_rule_expressions(const bj::object& node, const std::string& path,
                            std::vector<FieldCause>& out, bool resource_root,
                            const std::string& uncorrelatable) {
  const bj::value* rules = node.if_contains("x-kubernetes-validations");
  if (!rules || !rules->is_array() || rules->as_array().empty()) return;
  cel::TypePtr self = rule_type(node, resource_root);
  if (!self) self = cel::Type::dyn();
  cel::Variables variables = {{"self", self}, {"oldSelf", self}};
  const bj::array& list = rules->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_object()) continue;
    check_expressions(list[i].as_object(), variables,
                      path + ".x-kubernetes-validations[" + std::to_string(i) + "]", uncorrelatable,
                      out);
  }
}

void check_rules(const bj::object& node, const std::string& path, std::vector<FieldCause>& out,
                 bool resource_root, const std::string& uncorrelatable) {
  std::size_t before = out.size();
  check_rule_fields(node, path, out);
  if (out.size() == before) check_rule_expressions(node, path, out, resource_root, uncorrelatable);
}

void append_rule_violations(std::vector<FieldCause>& existing, const bj::object& object,
                            const bj::object* old, const bj::object& schema, std::uint64_t budget) {
  if (!has_rules(schema)) return;
  for (const FieldCause& c : existing) {
    if (c.reason == "FieldValueNotSupported" || c.reason == "FieldValueTypeInvalid") {
      existing.push_back({"FieldValueInvalid",
                          "Invalid value: \"null\": some validation rules were not checked because "
                          "the object was invalid; correct the existing errors to complete "
                          "validation",
                          "<nil>"});
      return;
    }
  }
  bj::value old_value = old ? bj::value(*old) : bj::value();
  walk(bj::value(object), old ? &old_value : nullptr, schema, "", existing, budget);
}

bool evaluate_rules(const bj::value& value, const bj::value* old, const bj::object& node,
                    const std::string& path, std::vector<FieldCause>& out, std::uint64_t& budget) {
  const bj::value* rules = node.if_contains("x-kubernetes-validations");
  if (!rules || !rules->is_array() || rules->as_array().empty() || value.is_null()) return true;
  cel::Value self = typed(value, &node);
  std::unique_ptr<cel::Value> old_self;
  if (old && !old->is_null()) old_self = std::make_unique<cel::Value>(typed(*old, &node));
  std::string type = bj::serialize(bj::value(text_at(node, "type")));
  const bool unchanged = old && *old == value;
  for (const bj::value& r : rules->as_array()) {
    if (!r.is_object()) continue;
    const bj::object& rule = r.as_object();
    cel::Compiled c = compiled(text_at(rule, "rule"));
    if (!c.program) continue;                               // refused when the CRD was written
    if (c.program->uses_old_self() && !old_self) continue;  // a transition rule, on create
    // Validation ratcheting (GA in 1.33): a value the update leaves as it was is not judged again
    // by the rules that do not compare it with oldSelf.
    if (!c.program->uses_old_self() && unchanged) continue;
    std::uint64_t cost = 0;
    cel::Value result = c.program->evaluate(self, old_self.get(), &cost);
    if (cost > budget) {
      out.push_back({"FieldValueInvalid",
                     "Invalid value: " + type +
                         ": validation failed due to running out of cost budget, no further "
                         "validation rules will be run",
                     shown_path(path)});
      return false;
    }
    budget -= cost;
    std::string shown_rule = trimmed(text_at(rule, "message"));
    if (shown_rule.empty()) shown_rule = trimmed(text_at(rule, "rule"));
    if (result.is_error()) {
      const std::string& e = result.as<cel::Error>().message;
      if (e.rfind("operation cancelled: actual cost limit exceeded", 0) == 0) {
        out.push_back({"FieldValueInvalid",
                       "Invalid value: " + type + ": '" + e +
                           "': no further validation rules will be run due to call cost exceeds "
                           "limit for rule: " +
                           shown_rule,
                       shown_path(path)});
        return false;
      }
      std::string detail =
          e.rfind("no such overload", 0) == 0
              ? "'" + e +
                    "': call arguments did not match a supported operator, function or "
                    "macro signature for rule: " +
                    shown_rule
              : e + " evaluating rule: " + shown_rule;
      out.push_back(
          {"FieldValueInvalid", "Invalid value: " + type + ": " + detail, shown_path(path)});
      continue;
    }
    if (result.is<bool>() && result.as<bool>()) continue;
    if (!result.is<bool>()) {
      out.push_back({"FieldValueInvalid",
                     "Invalid value: " + type + ": rule did not evaluate to a bool (" +
                         cel::type_name(result) + ") for rule: " + shown_rule,
                     shown_path(path)});
      continue;
    }
    out.push_back(failure(value, rule, path, detail_of(rule, self, old_self.get())));
  }
  return true;
}

}  // namespace tailor::embedded::crd
