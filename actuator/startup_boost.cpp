#include "actuator/startup_boost.h"

#include <algorithm>
#include <boost/json.hpp>

#include "kube/model/pod_resources.h"
#include "kube/model/qos.h"

namespace tailor::actuator {
namespace {

namespace bj = boost::json;
using kube::kResourceCpu;

std::optional<std::int64_t> cpu_milli(const kube::ResourceList& list) {
  const kube::Quantity* q = kube::find_resource(list, kResourceCpu);
  if (!q) return std::nullopt;
  return q->milli_value();
}

kube::ResourceList only_cpu(const kube::ResourceList& list) {
  kube::ResourceList out;
  if (const kube::Quantity* q = kube::find_resource(list, kResourceCpu)) {
    out.insert_or_assign(std::string(kResourceCpu), *q);
  }
  return out;
}

bj::object cpu_json(const kube::ResourceList& list) {
  bj::object out;
  if (const kube::Quantity* q = kube::find_resource(list, kResourceCpu)) {
    out[kResourceCpu] = q->to_string();
  }
  return out;
}

kube::ResourceList cpu_from_json(const bj::value* v) {
  kube::ResourceList out;
  if (!v || !v->is_object()) return out;
  if (const bj::value* cpu = v->as_object().if_contains(kResourceCpu); cpu && cpu->is_string()) {
    if (auto q = kube::Quantity::try_parse(cpu->as_string())) {
      out.insert_or_assign(std::string(kResourceCpu), *q);
    }
  }
  return out;
}

// The boosted CPU request in millicores: the factor's multiple or the quantity.
std::int64_t boosted_request(std::int64_t request, const policy::CpuBoost& boost) {
  if (boost.kind == policy::CpuBoost::Kind::Factor) return request * boost.factor;
  return boost.quantity.milli_value();
}

std::string cpu_text(const kube::ResourceList& list) {
  const kube::Quantity* q = kube::find_resource(list, kResourceCpu);
  return q ? std::to_string(q->milli_value()) : "0";
}

// Why no node could hold the boosted pod, or "" when one could (or allocatable is unknown).
std::string infeasible(const kube::Pod& boosted, const kube::ResourceList& largest_allocatable) {
  const kube::Quantity* capacity = kube::find_resource(largest_allocatable, kResourceCpu);
  if (!capacity) return "";
  const kube::ResourceList requests = kube::pod_requests(boosted);
  const kube::Quantity* cpu = kube::find_resource(requests, kResourceCpu);
  if (!cpu || *cpu <= *capacity) return "";
  return "Node didn't have enough capacity: cpu, requested: " + cpu_text(requests) +
         ", capacity: " + cpu_text(largest_allocatable) + "; the pod starts without its boost";
}

}  // namespace

std::optional<kube::ResourceRequirements> boosted_cpu(const kube::ResourceRequirements& base,
                                                      const policy::CpuBoost& boost,
                                                      policy::ControlledValues values) {
  // The API server has defaulted a limit-only request to the limit by now; read it so anyway.
  std::optional<std::int64_t> request = cpu_milli(base.requests);
  const std::optional<std::int64_t> limit = cpu_milli(base.limits);
  if (!request) request = limit;
  if (!request || *request <= 0) return std::nullopt;
  std::int64_t target = boosted_request(*request, boost);
  std::optional<std::int64_t> new_limit = limit;
  if (limit && values == policy::ControlledValues::RequestsOnly) {
    target = std::min(target, *limit - 1);  // just below the limit: the QoS class stays
  } else if (limit) {
    // The ratio kept exactly: request == limit gives limit == target.
    new_limit = static_cast<std::int64_t>(static_cast<__int128>(target) * *limit / *request);
  }
  if (target <= *request) return std::nullopt;
  kube::ResourceRequirements out = base;
  out.requests.insert_or_assign(std::string(kResourceCpu), kube::Quantity::from_milli(target));
  if (new_limit) {
    out.limits.insert_or_assign(std::string(kResourceCpu), kube::Quantity::from_milli(*new_limit));
  }
  return out;
}

std::chrono::seconds BoostRecord::longest_duration() const {
  std::chrono::seconds out{0};
  for (const BoostedContainer& c : containers) out = std::max(out, c.duration);
  return out;
}

std::string format_boost_record(const BoostRecord& record) {
  bj::object out{{"boostedAt", kube::format_rfc3339(record.boosted_at)}};
  bj::array containers;
  for (const BoostedContainer& c : record.containers) {
    bj::object one{{"name", c.name},
                   {"durationSeconds", c.duration.count()},
                   {"requests", cpu_json(c.requests)}};
    if (!c.limits.empty()) one["limits"] = cpu_json(c.limits);
    containers.push_back(std::move(one));
  }
  if (!containers.empty()) out["containers"] = std::move(containers);
  if (record.reverted_at) out["revertedAt"] = kube::format_rfc3339(*record.reverted_at);
  if (!record.skipped.empty()) out["skipped"] = record.skipped;
  return bj::serialize(out);
}

std::optional<BoostRecord> parse_boost_record(std::string_view text) {
  boost::system::error_code ec;
  bj::value v = bj::parse(text, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const bj::object& o = v.as_object();
  auto time_at = [&](std::string_view key) -> std::optional<kube::TimePoint> {
    const bj::value* t = o.if_contains(key);
    if (!t || !t->is_string()) return std::nullopt;
    return kube::try_parse_rfc3339(t->as_string());
  };
  BoostRecord out;
  auto boosted_at = time_at("boostedAt");
  if (!boosted_at) return std::nullopt;
  out.boosted_at = *boosted_at;
  out.reverted_at = time_at("revertedAt");
  if (const bj::value* s = o.if_contains("skipped"); s && s->is_string()) {
    out.skipped = std::string(s->as_string());
  }
  const bj::value* containers = o.if_contains("containers");
  if (!containers) return out;
  if (!containers->is_array()) return std::nullopt;
  for (const bj::value& c : containers->as_array()) {
    const bj::object* one = c.if_object();
    const bj::value* name = one ? one->if_contains("name") : nullptr;
    const bj::value* seconds = one ? one->if_contains("durationSeconds") : nullptr;
    if (!name || !name->is_string() || !seconds || !seconds->is_int64()) return std::nullopt;
    BoostedContainer b{.name = std::string(name->as_string()),
                       .requests = cpu_from_json(one->if_contains("requests")),
                       .limits = cpu_from_json(one->if_contains("limits")),
                       .duration = std::chrono::seconds(seconds->as_int64())};
    if (b.requests.empty()) return std::nullopt;
    out.containers.push_back(std::move(b));
  }
  return out;
}

BoostPlan plan_startup_boost(const kube::Pod& pod, const policy::EffectivePolicy& policy,
                             const kube::ResourceList& largest_allocatable, kube::TimePoint now) {
  BoostPlan plan;
  plan.record.boosted_at = now;
  // A boost that could not be taken back in place would stay for the pod's life.
  if (pod.spec.resources || pod.spec.os_name == "windows") {
    const bool asked = std::any_of(pod.spec.containers.begin(), pod.spec.containers.end(),
                                   [&](const kube::Container& c) {
                                     return policy::cpu_boost_for(policy, c.name).has_value();
                                   });
    if (asked) {
      plan.record.skipped = pod.spec.resources
                                ? "pod-level resources: containers are not resized in place, so "
                                  "the boost could not be taken back"
                                : "Windows pod: in-place resize is not supported on Windows, so "
                                  "the boost could not be taken back";
    }
    return plan;
  }
  kube::Pod boosted = pod;
  for (kube::Container& c : boosted.spec.containers) {
    const std::optional<policy::CpuBoost> boost = policy::cpu_boost_for(policy, c.name);
    if (!boost) continue;
    const auto values = policy::container_policy_for(policy, c.name).controlled_values;
    std::optional<kube::ResourceRequirements> raised = boosted_cpu(c.resources, *boost, values);
    if (!raised) continue;
    plan.record.containers.push_back({.name = c.name,
                                      .requests = only_cpu(c.resources.requests),
                                      .limits = only_cpu(c.resources.limits),
                                      .duration = boost->duration});
    // A limit-only container keeps its request explicit from here on.
    if (plan.record.containers.back().requests.empty()) {
      plan.record.containers.back().requests = only_cpu(c.resources.limits);
    }
    c.resources = *raised;
    plan.boosted.emplace_back(c.name, c.resources);
  }
  if (plan.boosted.empty()) return plan;
  std::string why = infeasible(boosted, largest_allocatable);
  if (why.empty() && kube::compute_pod_qos(boosted.spec) != kube::compute_pod_qos(pod.spec)) {
    why = "the boost would change the pod's QoS class; the pod starts without its boost";
  }
  if (!why.empty()) {
    plan.boosted.clear();
    plan.record.containers.clear();
    plan.record.skipped = std::move(why);
  }
  return plan;
}

bool boost_active(const BoostRecord& record) {
  return !record.containers.empty() && !record.reverted_at;
}

bool revert_due(const BoostRecord& record, bool pod_ready,
                std::optional<kube::TimePoint> ready_since, kube::TimePoint now) {
  if (!boost_active(record) || !pod_ready || !ready_since) return false;
  return now - *ready_since >= record.longest_duration();
}

BoostedContainer at_recommendation(const BoostedContainer& before, const kube::Quantity& cpu,
                                   policy::ControlledValues values) {
  const std::optional<std::int64_t> request = cpu_milli(before.requests);
  const std::optional<std::int64_t> limit = cpu_milli(before.limits);
  std::int64_t target = cpu.milli_value();
  if (!request || *request <= 0 || target <= 0) return before;
  BoostedContainer out = before;
  if (limit && values == policy::ControlledValues::RequestsOnly) {
    target = std::min(target, *limit);
  } else if (limit) {
    const auto scaled = static_cast<__int128>(target) * *limit / *request;
    out.limits.insert_or_assign(std::string(kResourceCpu),
                                kube::Quantity::from_milli(static_cast<std::int64_t>(scaled)));
  }
  out.requests.insert_or_assign(std::string(kResourceCpu), kube::Quantity::from_milli(target));
  return out;
}

std::string revert_patch(const std::vector<BoostedContainer>& targets) {
  bj::array containers;
  for (const BoostedContainer& c : targets) {
    bj::object resources{{"requests", cpu_json(c.requests)}};
    if (!c.limits.empty()) resources["limits"] = cpu_json(c.limits);
    containers.push_back(bj::object{{"name", c.name}, {"resources", std::move(resources)}});
  }
  return bj::serialize(bj::object{{"spec", bj::object{{"containers", std::move(containers)}}}});
}

}  // namespace tailor::actuator
