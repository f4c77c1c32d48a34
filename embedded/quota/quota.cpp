#include "embedded/quota/quota.h"

#include <algorithm>

#include "kube/model/pod_resources.h"

namespace tailor::embedded {
namespace {

// Native compute resources are quota'd under a bare alias too ("cpu" is "requests.cpu").
bool has_bare_alias(std::string_view name) {
  return name == kube::kResourceCpu || name == kube::kResourceMemory ||
         name == kube::kResourceEphemeralStorage;
}

bool terminal(const kube::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

// Quota names that oblige containers to state a resource: (name, the list it must be in, which).
struct Required {
  std::string_view quota_name;
  bool limit;
  std::string_view resource;
};
constexpr Required kRequired[] = {
    {"cpu", false, kube::kResourceCpu},
    {"limits.cpu", true, kube::kResourceCpu},
    {"limits.memory", true, kube::kResourceMemory},
    {"memory", false, kube::kResourceMemory},
    {"requests.cpu", false, kube::kResourceCpu},
    {"requests.memory", false, kube::kResourceMemory},
};

}  // namespace

std::optional<std::string> missing_required(const kube::Pod& pod, const kube::ResourceList& hard) {
  std::string message;
  for (const Required& r : kRequired) {  // sorted by quota name, as the message lists them
    if (!hard.contains(r.quota_name)) continue;
    std::vector<std::string> names;
    for (const auto* list : {&pod.spec.containers, &pod.spec.init_containers}) {
      for (const kube::Container& c : *list) {
        const kube::ResourceList& stated = r.limit ? c.resources.limits : c.resources.requests;
        if (!stated.contains(r.resource)) names.push_back(c.name);
      }
    }
    if (names.empty()) continue;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    std::string joined;
    for (const std::string& n : names) joined += (joined.empty() ? "" : ",") + n;
    message += (message.empty() ? "" : "; ") + std::string(r.quota_name) + " for: " + joined;
  }
  if (message.empty()) return std::nullopt;
  return "must specify " + message;
}

kube::ResourceList pod_quota_usage(const kube::Pod& pod) {
  kube::ResourceList usage;
  if (terminal(pod)) return usage;
  usage.insert_or_assign("pods", kube::Quantity::from_int(1));
  usage.insert_or_assign("count/pods", kube::Quantity::from_int(1));
  kube::PodResourcesOptions options{.use_status_resources = true};
  for (const auto& [name, q] : pod_requests(pod, options)) {
    usage.insert_or_assign("requests." + name, q);
    if (has_bare_alias(name)) usage.insert_or_assign(name, q);
  }
  for (const auto& [name, q] : pod_limits(pod, options)) {
    usage.insert_or_assign("limits." + name, q);
  }
  return usage;
}

kube::ResourceList mask(const kube::ResourceList& list, const kube::ResourceList& names) {
  kube::ResourceList out;
  for (const auto& [name, q] : list) {
    if (names.contains(name)) out.insert_or_assign(name, q);
  }
  return out;
}

kube::ResourceList positive_delta(const kube::ResourceList& after,
                                  const kube::ResourceList& before) {
  kube::ResourceList out;
  for (const auto& [name, q] : after) {
    const kube::Quantity* old = find_resource(before, name);
    kube::Quantity d = old ? q - *old : q;
    if (d.sign() > 0) out.insert_or_assign(name, d);
  }
  return out;
}

std::string pretty_print(const kube::ResourceList& list) {
  std::string out;
  for (const auto& [name, q] : list) {  // ResourceList keeps names sorted
    if (!out.empty()) out += ",";
    out += name + "=" + q.to_string();
  }
  return out;
}

std::optional<std::string> quota_exceeded(const QuotaState& quota,
                                          const kube::ResourceList& requested) {
  kube::ResourceList wanted = mask(requested, quota.hard);
  kube::ResourceList exceeded;
  for (const auto& [name, q] : wanted) {
    const kube::Quantity* used = find_resource(quota.used, name);
    kube::Quantity total = used ? *used + q : q;
    if (total > quota.hard.at(name)) exceeded.insert_or_assign(name, q);
  }
  if (exceeded.empty()) return std::nullopt;
  kube::ResourceList used;
  for (const auto& [name, q] : exceeded) {
    const kube::Quantity* u = find_resource(quota.used, name);
    used.insert_or_assign(name, u ? *u : kube::Quantity());
  }
  return "exceeded quota: " + quota.name + ", requested: " + pretty_print(exceeded) +
         ", used: " + pretty_print(used) + ", limited: " + pretty_print(mask(quota.hard, exceeded));
}

}  // namespace tailor::embedded
