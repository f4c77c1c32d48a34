#include "embedded/controllers/rollout.h"

#include <algorithm>
#include <boost/json.hpp>
#include <charconv>
#include <map>
#include <stdexcept>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

std::int64_t parse_percent(std::string_view text, const std::string& field) {
  std::int64_t n = -1;
  if (text.size() >= 2 && text.back() == '%') {
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size() - 1, n);
    if (ec != std::errc() || end != text.data() + text.size() - 1) n = -1;
  }
  if (n < 0) {
    throw std::invalid_argument(field + ": invalid value \"" + std::string(text) +
                                "\": must be an integer or percentage (e.g '5%')");
  }
  return n;
}

void canonical(const bj::value& v, std::string& out) {
  if (v.is_object()) {
    std::map<std::string_view, const bj::value*> sorted;
    for (const auto& [k, child] : v.as_object()) sorted.emplace(k, &child);
    out += '{';
    for (const auto& [k, child] : sorted) {
      out += bj::serialize(bj::string(k));
      out += ':';
      canonical(*child, out);
      out += ',';
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (const bj::value& child : v.as_array()) {
      canonical(child, out);
      out += ',';
    }
    out += ']';
  } else {
    out += bj::serialize(v);
  }
}

}  // namespace

std::int64_t resolve_int_or_percent(const bj::value& value, std::int64_t total, bool round_up,
                                    const std::string& field) {
  if (value.is_int64()) return value.as_int64();
  if (value.is_uint64()) return static_cast<std::int64_t>(value.as_uint64());
  if (!value.is_string()) {
    throw std::invalid_argument(field + ": must be an integer or a percentage");
  }
  std::int64_t percent = parse_percent(value.as_string(), field);
  std::int64_t scaled = percent * total;
  return round_up ? (scaled + 99) / 100 : scaled / 100;
}

RollingLimits rolling_limits(const bj::value& max_surge, const bj::value& max_unavailable,
                             std::int64_t replicas) {
  RollingLimits l;
  l.max_surge =
      resolve_int_or_percent(max_surge, replicas, true, "spec.strategy.rollingUpdate.maxSurge");
  l.max_unavailable = resolve_int_or_percent(max_unavailable, replicas, false,
                                             "spec.strategy.rollingUpdate.maxUnavailable");
  if (l.max_surge == 0 && l.max_unavailable == 0) l.max_unavailable = 1;
  return l;
}

std::string safe_encode(const std::string& text) {
  static constexpr std::string_view kAlphanums = "bcdfghjklmnpqrstvwxz2456789";
  std::string out;
  for (unsigned char c : text) out += kAlphanums[c % kAlphanums.size()];
  return out;
}

std::string pod_template_hash(const bj::value& pod_template, std::int64_t collision_count) {
  std::string text;
  canonical(pod_template, text);
  if (collision_count > 0) text += std::to_string(collision_count);
  std::uint32_t h = 2166136261u;
  for (unsigned char c : text) {
    h ^= c;
    h *= 16777619u;
  }
  return safe_encode(std::to_string(h));
}

RolloutStep rolling_update_step(std::int64_t replicas, RollingLimits limits,
                                ReplicaSetCounts new_set,
                                const std::vector<ReplicaSetCounts>& old) {
  RolloutStep step{new_set.spec, {}};
  for (const ReplicaSetCounts& o : old) step.old_replicas.push_back(o.spec);
  std::int64_t all = new_set.spec;
  for (const ReplicaSetCounts& o : old) all += o.spec;
  std::int64_t max_total = replicas + limits.max_surge;
  if (all < max_total && new_set.spec < replicas) {
    step.new_replicas = new_set.spec + std::min(max_total - all, replicas - new_set.spec);
    return step;
  }
  std::int64_t min_available = replicas - limits.max_unavailable;
  std::int64_t new_unavailable = std::max<std::int64_t>(0, new_set.spec - new_set.available);
  std::int64_t budget = all - min_available - new_unavailable;
  if (budget <= 0) return step;
  // Old pods that are not available go first: removing them costs no availability.
  for (std::size_t i = 0; i < old.size() && budget > 0; ++i) {
    std::int64_t unhealthy = std::max<std::int64_t>(0, old[i].spec - old[i].available);
    std::int64_t cut = std::min(budget, unhealthy);
    step.old_replicas[i] -= cut;
    budget -= cut;
  }
  std::int64_t available = new_set.available;
  for (std::size_t i = 0; i < old.size(); ++i) {
    available += std::min(old[i].available, step.old_replicas[i]);
  }
  std::int64_t more = available - min_available;
  for (std::size_t i = 0; i < old.size() && more > 0; ++i) {
    std::int64_t cut = std::min(more, step.old_replicas[i]);
    step.old_replicas[i] -= cut;
    more -= cut;
  }
  return step;
}

}  // namespace tailor::embedded
