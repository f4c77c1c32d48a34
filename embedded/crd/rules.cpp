#include "embedded/crd/rules.h"

#include <algorithm>
#include <boost/json.hpp>
#include <map>
#include <memory>

#include "embedded/cel/cel.h"

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

void check_rule(const bj::object& rule, const std::string& at, std::vector<FieldCause>& out) {
  std::string source = text_at(rule, "rule");
  if (trimmed(source).empty()) {
    out.push_back({"FieldValueRequired", "Required value", at + ".rule"});
    return;
  }
  if (std::string e = compiled(source).error; !e.empty()) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: " + go_rule(rule) + ": compilation failed: " + e, at + ".rule"});
  }
  std::string message_expression = text_at(rule, "messageExpression");
  if (!message_expression.empty()) {
    if (std::string e = compiled(message_expression).error; !e.empty()) {
      out.push_back(
          {"FieldValueInvalid",
           "Invalid value: " + go_rule(rule) + ": messageExpression compilation failed: " + e,
           at + ".messageExpression"});
    }
  }
  std::string reason = text_at(rule, "reason");
  if (!reason.empty() && std::find(kReasons.begin(), kReasons.end(), reason) == kReasons.end()) {
    std::string supported;
    for (const std::string& r : kReasons)
      supported += (supported.empty() ? "\"" : ", \"") + r + "\"";
    out.push_back({"FieldValueNotSupported",
                   "Unsupported value: \"" + reason + "\": supported values: " + supported,
                   at + ".reason"});
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
    cel::Map m;
    for (const auto& [k, e] : v.as_object()) {
      const bj::object* s = child_schema(k, "properties");
      if (!s) s = child_schema("", "additionalProperties");
      m.emplace_back(cel::Value::string(std::string(k)), typed(e, s));
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

const bj::object* member(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

// Rules at every node, parents before children (as kube-apiserver's CEL validator walks);
// returns false once the cost limit stopped evaluation.
bool walk(const bj::value& value, const bj::value* old, const bj::object& schema,
          const std::string& path, std::vector<FieldCause>& out, std::uint64_t& budget) {
  if (!evaluate_rules(value, old, schema, path, out, budget)) return false;
  std::string prefix = path.empty() ? "" : path + ".";
  if (value.is_object()) {
    const bj::object* props = member(schema, "properties");
    const bj::object* additional = member(schema, "additionalProperties");
    const bj::object* old_object = old && old->is_object() ? &old->as_object() : nullptr;
    for (const auto& [k, child] : value.as_object()) {
      const bj::object* s = props ? member(*props, k) : nullptr;
      if (!s) s = additional;
      if (!s) continue;
      const bj::value* old_child = old_object ? old_object->if_contains(k) : nullptr;
      if (!walk(child, old_child, *s, prefix + std::string(k), out, budget)) return false;
    }
  } else if (value.is_array()) {
    const bj::object* items = member(schema, "items");
    const bj::array& a = value.as_array();
    for (std::size_t i = 0; items && i < a.size(); ++i) {
      // Items of atomic lists have no old counterpart: their transition rules do not run.
      if (!walk(a[i], nullptr, *items, path + "[" + std::to_string(i) + "]", out, budget))
        return false;
    }
  }
  return true;
}

}  // namespace

void check_rules(const bj::object& node, const std::string& path, std::vector<FieldCause>& out) {
  const bj::value* rules = node.if_contains("x-kubernetes-validations");
  if (!rules || !rules->is_array()) return;
  const bj::array& list = rules->as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string at = path + ".x-kubernetes-validations[" + std::to_string(i) + "]";
    if (list[i].is_object()) check_rule(list[i].as_object(), at, out);
  }
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
  for (const bj::value& r : rules->as_array()) {
    if (!r.is_object()) continue;
    const bj::object& rule = r.as_object();
    cel::Compiled c = compiled(text_at(rule, "rule"));
    if (!c.program) continue;                               // refused when the CRD was written
    if (c.program->uses_old_self() && !old_self) continue;  // a transition rule, on create
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
