#include "node-agent/cri/actuation_plan.h"

#include <limits>

namespace tailor::node::cri {
namespace {

constexpr std::int64_t kUnlimited = std::numeric_limits<std::int64_t>::max();

// Limits compared with "no limit" as the largest value.
std::int64_t memory_limit(const CgroupValues& v) {
  return v.memory_limit_bytes.value_or(kUnlimited);
}
std::int64_t cpu_limit(const CgroupValues& v) {
  const std::int64_t quota = v.cpu_quota_us.value_or(kUnlimitedQuota);
  return quota <= 0 ? kUnlimited : quota;
}
std::int64_t limit_of(const CgroupValues& v, ResizeResource r) {
  return r == ResizeResource::Memory ? memory_limit(v) : cpu_limit(v);
}
std::int64_t shares(const CgroupValues& v) { return v.cpu_shares.value_or(kMinShares); }

bool same_resource(const CgroupValues& a, const CgroupValues& b, ResizeResource r) {
  if (r == ResizeResource::Memory) return a.memory_limit_bytes == b.memory_limit_bytes;
  return a.cpu_quota_us == b.cpu_quota_us && a.cpu_shares == b.cpu_shares &&
         a.cpu_period_us == b.cpu_period_us;
}

// A container's change of one resource counts as a decrease if its limit drops, or (CPU) its
// limit stays and its shares drop.
bool is_decrease(const ContainerResize& c, ResizeResource r) {
  const std::int64_t from = limit_of(c.actuated, r);
  const std::int64_t to = limit_of(c.desired, r);
  if (to != from) return to < from;
  return r == ResizeResource::Cpu && shares(c.desired) < shares(c.actuated);
}

CgroupValues with_resource(CgroupValues base, const CgroupValues& from, ResizeResource r) {
  if (r == ResizeResource::Memory) {
    base.memory_limit_bytes = from.memory_limit_bytes;
  } else {
    base.cpu_shares = from.cpu_shares;
    base.cpu_quota_us = from.cpu_quota_us;
    base.cpu_period_us = from.cpu_period_us;
  }
  return base;
}

ActuationStep pod_limit_step(const CgroupValues& desired, ResizeResource r) {
  ActuationStep step{ActuationStep::Target::PodCgroup, r, 0, {}};
  if (r == ResizeResource::Memory) {
    step.values.memory_limit_bytes = desired.memory_limit_bytes;
  } else {
    step.values.cpu_quota_us = desired.cpu_quota_us;
    step.values.cpu_period_us = desired.cpu_period_us;
  }
  return step;
}

ActuationStep pod_shares_step(const CgroupValues& desired) {
  ActuationStep step{ActuationStep::Target::PodCgroup, ResizeResource::Cpu, 0, {}};
  step.values.cpu_shares = desired.cpu_shares;
  return step;
}

class Planner {
 public:
  explicit Planner(const PodResize& resize) : resize_(resize) {
    for (const auto& c : resize.containers) current_.push_back(c.actuated);
  }

  std::vector<ActuationStep> plan() {
    plan_resource(ResizeResource::Memory);
    plan_resource(ResizeResource::Cpu);
    return std::move(steps_);
  }

 private:
  void plan_resource(ResizeResource r) {
    const CgroupValues& from = resize_.pod_actuated;
    const CgroupValues& to = resize_.pod_desired;
    const bool pod_limit_changes = limit_of(to, r) != limit_of(from, r);
    const bool cpu = r == ResizeResource::Cpu;
    const bool shares_change = cpu && to.cpu_shares && to.cpu_shares != from.cpu_shares;
    if (pod_limit_changes && limit_of(to, r) > limit_of(from, r)) {
      steps_.push_back(pod_limit_step(to, r));
    }
    if (shares_change && shares(to) > shares(from)) steps_.push_back(pod_shares_step(to));
    containers(r, /*decreases=*/true);
    containers(r, /*decreases=*/false);
    if (shares_change && shares(to) < shares(from)) steps_.push_back(pod_shares_step(to));
    if (pod_limit_changes && limit_of(to, r) < limit_of(from, r)) {
      steps_.push_back(pod_limit_step(to, r));
    }
  }

  void containers(ResizeResource r, bool decreases) {
    for (std::size_t i = 0; i < resize_.containers.size(); ++i) {
      const ContainerResize& c = resize_.containers[i];
      if (same_resource(c.actuated, c.desired, r) || is_decrease(c, r) != decreases) continue;
      current_[i] = with_resource(current_[i], c.desired, r);
      steps_.push_back({ActuationStep::Target::Container, r, i, current_[i]});
    }
  }

  const PodResize& resize_;
  std::vector<CgroupValues> current_;
  std::vector<ActuationStep> steps_;
};

}  // namespace

std::vector<ActuationStep> plan_pod_resize(const PodResize& resize) {
  return Planner(resize).plan();
}

}  // namespace tailor::node::cri
