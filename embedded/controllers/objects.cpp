#include "embedded/controllers/objects.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <vector>

#include "embedded/api/selectors.h"

namespace tailor::embedded {

std::int64_t int_at(const bj::object& object, std::string_view dotted_path, std::int64_t fallback) {
  const bj::value* v = find_path(object, dotted_path);
  if (!v || !v->is_number()) return fallback;
  boost::system::error_code ec;
  std::int64_t n = v->to_number<std::int64_t>(ec);
  return ec ? fallback : n;
}

const bj::object& object_at(const bj::object& object, std::string_view dotted_path) {
  static const bj::object kEmpty;
  const bj::value* v = find_path(object, dotted_path);
  return v && v->is_object() ? v->as_object() : kEmpty;
}

const bj::array& array_at(const bj::object& object, std::string_view dotted_path) {
  static const bj::array kEmpty;
  const bj::value* v = find_path(object, dotted_path);
  return v && v->is_array() ? v->as_array() : kEmpty;
}

bj::object& object_field(bj::object& o, std::string_view key) {
  bj::value& v = o[key];
  if (!v.is_object()) v = bj::object{};
  return v.as_object();
}

void fill(bj::object& o, std::string_view key, bj::value value) {
  if (!o.contains(key) || o.at(key).is_null()) o[key] = std::move(value);
}

namespace {

std::string meta_map_entry(const bj::object& object, std::string_view map, std::string_view key) {
  const bj::value* v = object_at(object_at(object, "metadata"), map).if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : "";
}

}  // namespace

std::string annotation(const bj::object& object, std::string_view key) {
  return meta_map_entry(object, "annotations", key);
}

std::string label(const bj::object& object, std::string_view key) {
  return meta_map_entry(object, "labels", key);
}

std::string key_of(const bj::object& object) {
  return object_key(meta_string(object, "namespace"), meta_string(object, "name"));
}

std::optional<OwnerRef> controller_of(const bj::object& object) {
  const bj::value* refs = find_path(object, "metadata.ownerReferences");
  if (!refs || !refs->is_array()) return std::nullopt;
  for (const bj::value& ref : refs->as_array()) {
    if (!ref.is_object()) continue;
    const bj::value* c = ref.as_object().if_contains("controller");
    if (!c || !c->is_bool() || !c->as_bool()) continue;
    const bj::object& o = ref.as_object();
    return OwnerRef{string_at(o, "apiVersion"), string_at(o, "kind"), string_at(o, "name"),
                    string_at(o, "uid")};
  }
  return std::nullopt;
}

bool controlled_by(const bj::object& object, const bj::object& owner) {
  std::optional<OwnerRef> ref = controller_of(object);
  return ref && ref->uid == meta_string(owner, "uid");
}

bj::object controller_reference(const ResourceInfo& owner_resource, const bj::object& owner) {
  return {{"apiVersion", owner_resource.api_version()},
          {"kind", owner_resource.kind},
          {"name", meta_string(owner, "name")},
          {"uid", meta_string(owner, "uid")},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

bool is_terminating(const bj::object& object) {
  return !meta_string(object, "deletionTimestamp").empty();
}

bool is_active_pod(const bj::object& pod) {
  std::string phase = string_at(pod, "status.phase");
  return !is_terminating(pod) && phase != "Succeeded" && phase != "Failed";
}

namespace {

const bj::object* ready_condition(const bj::object& pod) {
  const bj::value* conditions = find_path(pod, "status.conditions");
  if (!conditions || !conditions->is_array()) return nullptr;
  for (const bj::value& c : conditions->as_array()) {
    if (c.is_object() && string_at(c.as_object(), "type") == "Ready") return &c.as_object();
  }
  return nullptr;
}

}  // namespace

bool is_pod_ready(const bj::object& pod) {
  const bj::object* c = ready_condition(pod);
  return c && string_at(*c, "status") == "True";
}

bool is_pod_available(const bj::object& pod, std::int64_t min_ready_seconds, kube::TimePoint now) {
  if (!is_pod_ready(pod)) return false;
  if (min_ready_seconds <= 0) return true;
  auto since = kube::try_parse_rfc3339(string_at(*ready_condition(pod), "lastTransitionTime"));
  return since && *since + std::chrono::seconds(min_ready_seconds) <= now;
}

namespace {

std::vector<std::string> string_values(const bj::object& expression) {
  std::vector<std::string> out;
  if (const bj::value* v = expression.if_contains("values"); v && v->is_array()) {
    for (const bj::value& s : v->as_array()) {
      if (s.is_string()) out.emplace_back(s.as_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string joined(const std::vector<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

std::string expression_string(const bj::object& e) {
  std::string key = string_at(e, "key");
  std::string op = string_at(e, "operator");
  if (op == "In") return key + " in (" + joined(string_values(e)) + ")";
  if (op == "NotIn") return key + " notin (" + joined(string_values(e)) + ")";
  if (op == "Exists") return key;
  if (op == "DoesNotExist") return "!" + key;
  throw std::invalid_argument("\"" + op + "\" is not a valid label selector operator");
}

}  // namespace

std::string label_selector_string(const bj::value& selector) {
  if (!selector.is_object()) return "";
  // Sorted by key, as labels.Selector prints its requirements.
  std::multimap<std::string, std::string> requirements;
  if (const bj::value* m = selector.as_object().if_contains("matchLabels"); m && m->is_object()) {
    for (const auto& [k, v] : m->as_object()) {
      requirements.emplace(k, std::string(k) + "=" + (v.is_string() ? v.as_string().c_str() : ""));
    }
  }
  if (const bj::value* x = selector.as_object().if_contains("matchExpressions");
      x && x->is_array()) {
    for (const bj::value& e : x->as_array()) {
      if (!e.is_object()) continue;
      requirements.emplace(string_at(e.as_object(), "key"), expression_string(e.as_object()));
    }
  }
  std::string out;
  for (const auto& [key, text] : requirements) out += (out.empty() ? "" : ",") + text;
  return out;
}

std::optional<LabelSelector> parse_selector(const bj::value* selector) {
  if (!selector || !selector->is_object()) return std::nullopt;
  try {
    return LabelSelector::parse(label_selector_string(*selector));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

bool selector_matches(const bj::value* selector, const bj::object& object) {
  const std::optional<LabelSelector> wanted = parse_selector(selector);
  return wanted && wanted->matches(object);
}

std::string format_labels(const bj::value* labels) {
  if (!labels || !labels->is_object() || labels->as_object().empty()) return "<none>";
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] : labels->as_object()) {
    sorted[k] = v.is_string() ? std::string(v.as_string()) : "";
  }
  std::string out;
  for (const auto& [k, v] : sorted) out += (out.empty() ? "" : ",") + k + "=" + v;
  return out;
}

kube::TimePoint system_now() { return kube::TimePoint(std::chrono::system_clock::now()); }

}  // namespace tailor::embedded
