#include "embedded/quota/limit_range.h"

#include <algorithm>
#include <cstdio>

#include "embedded/resize/resource_json.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/pod_resources.h"

namespace tailor::embedded {
namespace {

constexpr std::string_view kAnnotation = "kubernetes.io/limit-ranger";

const bj::array& items(const bj::object& limit_range) {
  static const bj::array kEmpty;
  const bj::value* limits = find_path(limit_range, "spec.limits");
  return limits && limits->is_array() ? limits->as_array() : kEmpty;
}

std::string item_type(const bj::value& item) { return string_at(item, "type"); }

kube::ResourceList item_list(const bj::value& item, std::string_view key) {
  return resource_list(member(&item, key), "spec.limits." + std::string(key));
}

// Adds to `target` (a JSON resource list, created when needed) what `defaults` has and it lacks.
std::vector<std::string> fill_missing(bj::value& target, const bj::value* defaults) {
  std::vector<std::string> set;
  if (!defaults || !defaults->is_object() || defaults->as_object().empty()) return set;
  if (!target.is_object()) target = bj::object{};
  for (const auto& [name, quantity] : defaults->as_object()) {
    if (target.as_object().contains(name)) continue;
    target.as_object()[name] = quantity;
    set.emplace_back(name);
  }
  std::sort(set.begin(), set.end());
  return set;
}

std::string joined(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

std::string container_name(const bj::value& c) { return string_at(c, "name"); }

// mergeContainerResources: one annotation phrase per container and kind of default.
void default_container(bj::value& container, const bj::value& item, std::string_view kind,
                       std::vector<std::string>& phrases) {
  if (!container.is_object()) return;
  bj::value& resources = container.as_object()["resources"];
  if (!resources.is_object()) resources = bj::object{};
  std::vector<std::string> limits =
      fill_missing(resources.as_object()["limits"], member(&item, "default"));
  std::vector<std::string> requests =
      fill_missing(resources.as_object()["requests"], member(&item, "defaultRequest"));
  for (std::string_view key : {"limits", "requests"}) {
    const bj::value* v = resources.as_object().if_contains(key);
    if (v && (v->is_null() || (v->is_object() && v->as_object().empty())))
      resources.as_object().erase(key);
  }
  std::string suffix = " for " + std::string(kind) + " " + container_name(container);
  if (!requests.empty()) phrases.push_back(joined(requests, ", ") + " request" + suffix);
  if (!limits.empty()) phrases.push_back(joined(limits, ", ") + " limit" + suffix);
}

std::string quantity_text(const kube::Quantity& q) { return q.to_string(); }

// requestLimitEnforcedValues: milli-units unless they would overflow.
bool use_milli(const kube::Quantity& a, const kube::Quantity& b, const kube::Quantity& c) {
  constexpr std::int64_t kMaxMilli = INT64_MAX / 1000;
  return a.value() <= kMaxMilli && b.value() <= kMaxMilli && c.value() <= kMaxMilli;
}

std::int64_t scaled(const kube::Quantity& q, bool milli) {
  return milli ? q.milli_value() : q.value();
}

struct Observed {
  const kube::ResourceList& requests;
  const kube::ResourceList& limits;
};

void check_min(const std::string& type, const std::string& r, const kube::Quantity& enforced,
               const Observed& o, std::vector<std::string>& out) {
  const kube::Quantity* req = find_resource(o.requests, r);
  const kube::Quantity* lim = find_resource(o.limits, r);
  std::string head = "minimum " + r + " usage per " + type + " is " + quantity_text(enforced);
  if (!req) {
    out.push_back(head + ".  No request is specified");
    return;
  }
  bool milli = use_milli(*req, lim ? *lim : kube::Quantity(), enforced);
  if (scaled(*req, milli) < scaled(enforced, milli)) {
    out.push_back(head + ", but request is " + quantity_text(*req));
  } else if (lim && scaled(*lim, milli) < scaled(enforced, milli)) {
    out.push_back(head + ", but limit is " + quantity_text(*lim));
  }
}

void check_max(const std::string& type, const std::string& r, const kube::Quantity& enforced,
               const Observed& o, std::vector<std::string>& out) {
  const kube::Quantity* req = find_resource(o.requests, r);
  const kube::Quantity* lim = find_resource(o.limits, r);
  std::string head = "maximum " + r + " usage per " + type + " is " + quantity_text(enforced);
  if (!lim) {
    out.push_back(head + ".  No limit is specified");
    return;
  }
  bool milli = use_milli(req ? *req : kube::Quantity(), *lim, enforced);
  if (scaled(*lim, milli) > scaled(enforced, milli)) {
    out.push_back(head + ", but limit is " + quantity_text(*lim));
  } else if (req && scaled(*req, milli) > scaled(enforced, milli)) {
    out.push_back(head + ", but request is " + quantity_text(*req));
  }
}

void check_ratio(const std::string& type, const std::string& r, const kube::Quantity& enforced,
                 const Observed& o, std::vector<std::string>& out) {
  const kube::Quantity* req = find_resource(o.requests, r);
  const kube::Quantity* lim = find_resource(o.limits, r);
  bool milli = use_milli(req ? *req : kube::Quantity(), lim ? *lim : kube::Quantity(), enforced);
  std::string head =
      r + " max limit to request ratio per " + type + " is " + quantity_text(enforced);
  if (!req || scaled(*req, milli) == 0) {
    out.push_back(head + ", but no request is specified or request is 0");
    return;
  }
  if (!lim || scaled(*lim, milli) == 0) {
    out.push_back(head + ", but no limit is specified or limit is 0");
    return;
  }
  double ratio =
      static_cast<double>(scaled(*lim, milli)) / static_cast<double>(scaled(*req, milli));
  bool enforced_milli = enforced.value() <= INT64_MAX / 1000;
  double observed = enforced_milli ? ratio * 1000 : ratio;
  double maximum = static_cast<double>(enforced_milli ? enforced.milli_value() : enforced.value());
  if (observed > maximum) {
    char shown[64];
    std::snprintf(shown, sizeof shown, "%f", ratio);
    out.push_back(head + ", but provided ratio is " + shown);
  }
}

void check_item(const bj::value& item, const std::string& type, const Observed& o,
                std::vector<std::string>& out) {
  for (const auto& [r, q] : item_list(item, "min")) check_min(type, r, q, o, out);
  for (const auto& [r, q] : item_list(item, "max")) check_max(type, r, q, o, out);
  for (const auto& [r, q] : item_list(item, "maxLimitRequestRatio"))
    check_ratio(type, r, q, o, out);
}

}  // namespace

void default_limit_range(bj::object& limit_range) {
  bj::value* limits = nullptr;
  if (bj::value* spec = limit_range.if_contains("spec"); spec && spec->is_object()) {
    limits = spec->as_object().if_contains("limits");
  }
  if (!limits || !limits->is_array()) return;
  for (bj::value& item : limits->as_array()) {
    if (!item.is_object() || item_type(item) != "Container") continue;
    bj::object& it = item.as_object();
    bj::value defaults = it.contains("default") ? it["default"] : bj::value(bj::object{});
    bj::value requests =
        it.contains("defaultRequest") ? it["defaultRequest"] : bj::value(bj::object{});
    fill_missing(defaults, member(&item, "max"));
    fill_missing(requests, &defaults);
    fill_missing(requests, member(&item, "min"));
    if (defaults.is_object() && !defaults.as_object().empty()) it["default"] = defaults;
    if (requests.is_object() && !requests.as_object().empty()) it["defaultRequest"] = requests;
  }
}

bool apply_limit_range_defaults(bj::object& pod, const bj::object& limit_range) {
  std::vector<std::string> phrases;
  bj::value* spec = pod.if_contains("spec");
  if (!spec || !spec->is_object()) return false;
  for (const bj::value& item : items(limit_range)) {
    if (item_type(item) != "Container") continue;
    for (auto [list, kind] :
         {std::pair{"containers", "container"}, std::pair{"initContainers", "init container"}}) {
      bj::value* containers = spec->as_object().if_contains(list);
      if (!containers || !containers->is_array()) continue;
      for (bj::value& c : containers->as_array()) default_container(c, item, kind, phrases);
    }
  }
  if (phrases.empty()) return false;
  bj::value& annotations = metadata(pod)["annotations"];
  if (!annotations.is_object()) annotations = bj::object{};
  annotations.as_object()[kAnnotation] = "LimitRanger plugin set: " + joined(phrases, "; ");
  return true;
}

std::vector<std::string> limit_range_violations(const bj::object& pod,
                                                const bj::object& limit_range) {
  std::vector<std::string> out;
  for (const bj::value& item : items(limit_range)) {
    std::string type = item_type(item);
    if (type == "Container") {
      for (std::string_view list : {"containers", "initContainers"}) {
        for (const bj::value& c : container_list(pod, list)) {
          const bj::value* resources = member(&c, "resources");
          kube::ResourceList requests = resource_list(member(resources, "requests"), "requests");
          kube::ResourceList limits = resource_list(member(resources, "limits"), "limits");
          check_item(item, type, {requests, limits}, out);
        }
      }
    } else if (type == "Pod") {
      kube::Pod typed = decode_pod(pod);
      kube::PodResourcesOptions options{.exclude_overhead = true};
      kube::ResourceList requests = pod_requests(typed, options);
      kube::ResourceList limits = pod_limits(typed, options);
      check_item(item, type, {requests, limits}, out);
    }
  }
  return out;
}

std::string aggregate(const std::vector<std::string>& messages) {
  std::vector<std::string> unique;
  for (const std::string& m : messages) {
    if (std::find(unique.begin(), unique.end(), m) == unique.end()) unique.push_back(m);
  }
  if (unique.size() == 1) return unique.front();
  return "[" + joined(unique, ", ") + "]";
}

}  // namespace tailor::embedded
