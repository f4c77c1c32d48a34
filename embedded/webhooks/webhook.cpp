#include "embedded/webhooks/webhook.h"

#include <algorithm>
#include <set>

#include "embedded/storage/field_errors.h"
#include "embedded/storage/object_meta.h"
#include "kube/http/base64.h"

namespace tailor::embedded::webhooks {
namespace {

std::vector<std::string> strings_in(const bj::value* v) {
  std::vector<std::string> out;
  if (!v || !v->is_array()) return out;
  for (const bj::value& s : v->as_array()) {
    if (s.is_string()) out.emplace_back(s.as_string());
  }
  return out;
}

bj::array* webhook_list(bj::object& configuration) {
  bj::value* v = configuration.if_contains("webhooks");
  return v && v->is_array() ? &v->as_array() : nullptr;
}

void default_field(bj::object& o, std::string_view key, bj::value value) {
  if (!o.contains(key)) o[key] = std::move(value);
}

bool listed(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), "*") != values.end() ||
         std::find(values.begin(), values.end(), value) != values.end();
}

// "pods" matches the object, "pods/status" a subresource, "*" every object, "*/*" everything,
// "pods/*" every subresource of pods, "*/status" that subresource of everything.
bool resource_listed(const std::vector<std::string>& patterns, const Write& w) {
  for (const std::string& p : patterns) {
    std::size_t slash = p.find('/');
    std::string res = p.substr(0, slash);
    std::string sub = slash == std::string::npos ? "" : p.substr(slash + 1);
    bool res_ok = res == "*" || res == w.resource;
    bool sub_ok = slash == std::string::npos
                      ? w.subresource.empty()
                      : (sub == "*" ? !w.subresource.empty() || res == "*" : sub == w.subresource);
    if (res_ok && sub_ok) return true;
  }
  return false;
}

bool scope_matches(const std::string& scope, const Write& w) {
  if (scope == "Cluster") return !w.namespaced;
  if (scope == "Namespaced") return w.namespaced;
  return true;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

void check_client_config(const bj::object& w, const std::string& at, std::vector<FieldCause>& out) {
  const bj::value* cc = w.if_contains("clientConfig");
  const bj::value* url = cc && cc->is_object() ? cc->as_object().if_contains("url") : nullptr;
  const bj::value* svc = cc && cc->is_object() ? cc->as_object().if_contains("service") : nullptr;
  if ((url == nullptr) == (svc == nullptr)) {
    out.push_back({"FieldValueRequired",
                   "Required value: exactly one of url or service is required",
                   at + ".clientConfig"});
    return;
  }
  if (url) {
    std::string u = url->is_string() ? std::string(url->as_string()) : "";
    if (!u.starts_with("https://")) {
      out.push_back({"FieldValueInvalid",
                     "Invalid value: \"" + u + "\": 'https' is the only allowed URL scheme",
                     at + ".clientConfig.url"});
    }
  } else if (string_at(*svc, "name").empty() || string_at(*svc, "namespace").empty()) {
    out.push_back({"FieldValueRequired", "Required value: service name and namespace are required",
                   at + ".clientConfig.service"});
  }
}

void check_webhook(const bj::object& w, const std::string& at, std::vector<FieldCause>& out) {
  std::string name = string_at(w, "name");
  if (name.empty()) {
    out.push_back({"FieldValueRequired", "Required value", at + ".name"});
  } else if (std::count(name.begin(), name.end(), '.') < 2) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: \"" + name +
                       "\": should be a domain with at least three segments separated by dots",
                   at + ".name"});
  }
  check_client_config(w, at, out);
  std::string effects = string_at(w, "sideEffects");
  if (effects.empty()) {
    out.push_back({"FieldValueRequired", "Required value: must specify one of None, NoneOnDryRun",
                   at + ".sideEffects"});
  } else if (effects != "None" && effects != "NoneOnDryRun") {
    out.push_back(not_supported(at + ".sideEffects", effects, {"None", "NoneOnDryRun"}));
  }
  std::vector<std::string> versions = strings_in(w.if_contains("admissionReviewVersions"));
  if (versions.empty()) {
    out.push_back({"FieldValueRequired", "Required value: must specify one of v1, v1beta1",
                   at + ".admissionReviewVersions"});
  } else if (!listed(versions, "v1") && !listed(versions, "v1beta1")) {
    out.push_back({"FieldValueInvalid",
                   "Invalid value: []string{\"" + joined(versions) +
                       "\"}: must include at least one of v1, v1beta1",
                   at + ".admissionReviewVersions"});
  }
  std::string policy = string_at(w, "failurePolicy");
  if (policy != "Fail" && policy != "Ignore")
    out.push_back(not_supported(at + ".failurePolicy", policy, {"Fail", "Ignore"}));
  const bj::value* timeout = w.if_contains("timeoutSeconds");
  if (timeout && timeout->is_number()) {
    auto t = timeout->to_number<std::int64_t>();
    if (t < 1 || t > 30) {
      out.push_back({"FieldValueInvalid",
                     "Invalid value: " + std::to_string(t) +
                         ": the timeout value must be between 1 and 30 seconds",
                     at + ".timeoutSeconds"});
    }
  }
}

Rule parse_rule(const bj::object& r) {
  return {strings_in(r.if_contains("operations")), strings_in(r.if_contains("apiGroups")),
          strings_in(r.if_contains("apiVersions")), strings_in(r.if_contains("resources")),
          string_at(r, "scope").empty() ? "*" : string_at(r, "scope")};
}

void resolve_client(const bj::object& w, Webhook& out) {
  const bj::value* cc = w.if_contains("clientConfig");
  if (!cc || !cc->is_object()) return;
  std::string bundle = string_at(*cc, "caBundle");
  if (!bundle.empty()) out.ca_bundle = kube::base64_decode(bundle);
  std::string url = string_at(*cc, "url");
  if (!url.empty()) {
    out.url = url;
    return;
  }
  const bj::value* svc = cc->as_object().if_contains("service");
  if (!svc || !svc->is_object()) return;
  const bj::value* port = svc->as_object().if_contains("port");
  ServiceReference reference{string_at(*svc, "namespace"), string_at(*svc, "name"),
                             port && port->is_number() ? port->to_number<int>() : 443,
                             string_at(*svc, "path")};
  if (reference.path.empty() || reference.path.front() != '/')
    reference.path = "/" + reference.path;
  out.server_name = reference.name + "." + reference.ns + ".svc";
  out.url = "https://" + out.server_name + ":" + std::to_string(reference.port) + reference.path;
  out.service = std::move(reference);
}

}  // namespace

void default_configuration(bj::object& configuration) {
  bj::array* list = webhook_list(configuration);
  if (!list) return;
  for (bj::value& entry : *list) {
    if (!entry.is_object()) continue;
    bj::object& w = entry.as_object();
    default_field(w, "failurePolicy", "Fail");
    default_field(w, "matchPolicy", "Equivalent");
    default_field(w, "namespaceSelector", bj::object{});
    default_field(w, "objectSelector", bj::object{});
    default_field(w, "timeoutSeconds", 10);
    default_field(w, "reinvocationPolicy", "Never");
    if (bj::value* rules = w.if_contains("rules"); rules && rules->is_array()) {
      for (bj::value& r : rules->as_array()) {
        if (r.is_object()) default_field(r.as_object(), "scope", "*");
      }
    }
    bj::value* cc = w.if_contains("clientConfig");
    if (cc && cc->is_object()) {
      if (bj::value* svc = cc->as_object().if_contains("service"); svc && svc->is_object())
        default_field(svc->as_object(), "port", 443);
    }
  }
}

std::vector<FieldCause> validation_errors(const bj::object& configuration) {
  std::vector<FieldCause> out;
  const bj::value* list = configuration.if_contains("webhooks");
  if (!list || !list->is_array()) return out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < list->as_array().size(); ++i) {
    const bj::value& w = list->as_array()[i];
    std::string at = "webhooks[" + std::to_string(i) + "]";
    if (!w.is_object()) continue;
    check_webhook(w.as_object(), at, out);
    std::string name = string_at(w, "name");
    if (!name.empty() && !names.insert(name).second)
      out.push_back({"FieldValueDuplicate", "Duplicate value: \"" + name + "\"", at + ".name"});
  }
  return out;
}

std::vector<Webhook> parse_configuration(const bj::object& configuration) {
  std::vector<Webhook> out;
  const bj::value* list = configuration.if_contains("webhooks");
  if (!list || !list->is_array()) return out;
  for (const bj::value& entry : list->as_array()) {
    if (!entry.is_object()) continue;
    const bj::object& w = entry.as_object();
    Webhook hook;
    hook.name = string_at(w, "name");
    resolve_client(w, hook);
    if (const bj::value* rules = w.if_contains("rules"); rules && rules->is_array()) {
      for (const bj::value& r : rules->as_array()) {
        if (r.is_object()) hook.rules.push_back(parse_rule(r.as_object()));
      }
    }
    hook.fail_closed = string_at(w, "failurePolicy") != "Ignore";
    if (const bj::value* s = w.if_contains("namespaceSelector"))
      hook.namespace_selector = selector_text(*s);
    if (const bj::value* s = w.if_contains("objectSelector"))
      hook.object_selector = selector_text(*s);
    if (const bj::value* t = w.if_contains("timeoutSeconds"); t && t->is_number())
      hook.timeout =
          std::chrono::seconds(std::clamp<std::int64_t>(t->to_number<std::int64_t>(), 1, 30));
    out.push_back(std::move(hook));
  }
  return out;
}

bool rules_match(const std::vector<Rule>& rules, const Write& write) {
  return std::any_of(rules.begin(), rules.end(), [&](const Rule& r) {
    return listed(r.operations, write.operation) && listed(r.api_groups, write.group) &&
           listed(r.api_versions, write.version) && resource_listed(r.resources, write) &&
           scope_matches(r.scope, write);
  });
}

std::string selector_text(const bj::value& label_selector) {
  if (!label_selector.is_object()) return "";
  std::vector<std::string> parts;
  if (const bj::value* labels = label_selector.as_object().if_contains("matchLabels");
      labels && labels->is_object()) {
    for (const auto& [k, v] : labels->as_object()) {
      parts.push_back(std::string(k) + "=" + (v.is_string() ? std::string(v.as_string()) : ""));
    }
  }
  if (const bj::value* exprs = label_selector.as_object().if_contains("matchExpressions");
      exprs && exprs->is_array()) {
    for (const bj::value& e : exprs->as_array()) {
      std::string key = string_at(e, "key");
      std::string op = string_at(e, "operator");
      std::string values =
          joined(strings_in(e.is_object() ? e.as_object().if_contains("values") : nullptr));
      if (op == "In") parts.push_back(key + " in (" + values + ")");
      if (op == "NotIn") parts.push_back(key + " notin (" + values + ")");
      if (op == "Exists") parts.push_back(key);
      if (op == "DoesNotExist") parts.push_back("!" + key);
    }
  }
  return joined(parts);
}

}  // namespace tailor::embedded::webhooks
