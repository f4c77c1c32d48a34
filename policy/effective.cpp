#include "policy/effective.h"

#include <algorithm>
#include <set>

#include "kube/observe/duration.h"

namespace tailor::policy {
namespace {

constexpr UpdateMode kModes[] = {UpdateMode::Off, UpdateMode::Initial, UpdateMode::Recreate,
                                 UpdateMode::InPlaceOrRecreate, UpdateMode::InPlace};

bool is_controllable(std::string_view resource) {
  return resource == kube::kResourceCpu || resource == kube::kResourceMemory;
}

// Collects problems with their JSON paths.
class Problems {
 public:
  void add(std::string path, std::string what) { list_.push_back(path + ": " + what); }
  std::vector<std::string> take() { return std::move(list_); }
  bool empty() const { return list_.empty(); }
  std::size_t size() const { return list_.size(); }

 private:
  std::vector<std::string> list_;
};

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string one_of(std::initializer_list<std::string_view> names) {
  std::string out;
  for (auto name : names) out += (out.empty() ? "" : ", ") + quoted(name);
  return out;
}

void check_target_ref(const CrossVersionObjectReference& ref, Problems& p) {
  if (ref.kind.empty()) p.add("spec.targetRef.kind", "Required value");
  if (ref.name.empty()) p.add("spec.targetRef.name", "Required value");
}

void check_selector(const LabelSelector& selector, Problems& p) {
  for (std::size_t i = 0; i < selector.match_expressions.size(); ++i) {
    const auto& req = selector.match_expressions[i];
    std::string path = "spec.selector.matchExpressions[" + std::to_string(i) + "]";
    if (req.key.empty()) p.add(path + ".key", "Required value");
    bool set_op = req.op == "In" || req.op == "NotIn";
    bool exist_op = req.op == "Exists" || req.op == "DoesNotExist";
    if (!set_op && !exist_op) {
      p.add(path + ".operator", "Unsupported value: " + quoted(req.op) + ": supported values: " +
                                    one_of({"In", "NotIn", "Exists", "DoesNotExist"}));
    } else if (set_op && req.values.empty()) {
      p.add(path + ".values",
            "Required value: must be specified when `operator` is 'In' or 'NotIn'");
    } else if (exist_op && !req.values.empty()) {
      p.add(path + ".values",
            "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    }
  }
}

void check_resource_list(const kube::ResourceList& list, const std::string& path, Problems& p) {
  for (const auto& [name, quantity] : list) {
    if (!is_controllable(name)) {
      p.add(path + "." + name, "Unsupported value: only cpu and memory are controlled");
    } else if (quantity.sign() < 0) {
      p.add(path + "." + name, "must be greater than or equal to 0, got " + quantity.to_string());
    }
  }
}

std::optional<ContainerMode> parse_container_mode(std::string_view text) {
  if (text.empty() || text == "Auto") return ContainerMode::Auto;
  if (text == "Off") return ContainerMode::Off;
  return std::nullopt;
}

std::optional<ControlledValues> parse_controlled_values(std::string_view text) {
  if (text.empty() || text == "RequestsAndLimits") return ControlledValues::RequestsAndLimits;
  if (text == "RequestsOnly") return ControlledValues::RequestsOnly;
  return std::nullopt;
}

// startupBoost: the CRD's rules (type required and one of its enum; factor exactly when Factor,
// quantity exactly when Quantity, in the CRD's words as kube-apiserver 1.35 reports a rule on an
// object: no value shown) and the AEP's static ones (factor >= 1);
// a quantity or duration below zero is refused too.
std::optional<CpuBoost> effective_boost(const std::optional<StartupBoost>& in,
                                        const std::string& path, Problems& p) {
  if (!in || !in->cpu) return std::nullopt;
  const CpuStartupBoost& cpu = *in->cpu;
  const std::string at = path + ".startupBoost.cpu";
  CpuBoost out;
  const std::size_t before = p.size();
  // The union's rules only once the type itself is valid (an API server runs the CRD's rules
  // after its schema checks).
  if (cpu.type.empty()) {
    p.add(at + ".type", "Required value");
  } else if (cpu.type != "Factor" && cpu.type != "Quantity") {
    p.add(at + ".type", "Unsupported value: " + quoted(cpu.type) +
                            ": supported values: " + one_of({"Factor", "Quantity"}));
  }
  if (p.size() != before) return std::nullopt;
  if ((cpu.type == "Factor") != cpu.factor.has_value()) {
    p.add(at, "Invalid value: factor is required when type is Factor and forbidden otherwise");
  }
  if ((cpu.type == "Quantity") != cpu.quantity.has_value()) {
    p.add(at, "Invalid value: quantity is required when type is Quantity and forbidden otherwise");
  }
  if (cpu.factor && *cpu.factor < 1) {
    p.add(at + ".factor",
          "Invalid value: " + std::to_string(*cpu.factor) + ": must be greater than or equal to 1");
  }
  if (cpu.quantity && cpu.quantity->sign() <= 0) {
    p.add(at + ".quantity",
          "Invalid value: " + quoted(cpu.quantity->to_string()) + ": must be greater than 0");
  }
  if (cpu.duration_seconds && *cpu.duration_seconds < 0) {
    p.add(at + ".durationSeconds", "Invalid value: " + std::to_string(*cpu.duration_seconds) +
                                       ": must be greater than or equal to 0");
  }
  if (p.size() != before) return std::nullopt;
  out.kind = cpu.type == "Factor" ? CpuBoost::Kind::Factor : CpuBoost::Kind::Quantity;
  out.factor = cpu.factor.value_or(1);
  if (cpu.quantity) out.quantity = *cpu.quantity;
  out.duration = std::chrono::seconds(cpu.duration_seconds.value_or(0));
  return out;
}

EffectiveContainerPolicy effective_container(const ContainerResourcePolicy& in,
                                             const std::string& path, Problems& p) {
  EffectiveContainerPolicy out;
  out.container_name = in.container_name;
  if (in.container_name.empty()) p.add(path + ".containerName", "Required value");
  if (auto mode = parse_container_mode(in.mode)) {
    out.mode = *mode;
  } else {
    p.add(path + ".mode", "Unsupported value: " + quoted(in.mode) +
                              ": supported values: " + one_of({"Auto", "Off"}));
  }
  if (auto values = parse_controlled_values(in.controlled_values)) {
    out.controlled_values = *values;
  } else {
    p.add(path + ".controlledValues",
          "Unsupported value: " + quoted(in.controlled_values) +
              ": supported values: " + one_of({"RequestsAndLimits", "RequestsOnly"}));
  }
  if (in.controlled_resources) {
    out.controlled_resources.clear();
    for (std::size_t i = 0; i < in.controlled_resources->size(); ++i) {
      const std::string& name = (*in.controlled_resources)[i];
      if (!is_controllable(name)) {
        p.add(path + ".controlledResources[" + std::to_string(i) + "]",
              "Unsupported value: " + quoted(name) +
                  ": supported values: " + one_of({"cpu", "memory"}));
      } else if (std::find(out.controlled_resources.begin(), out.controlled_resources.end(),
                           name) == out.controlled_resources.end()) {
        out.controlled_resources.push_back(name);
      }
    }
  }
  check_resource_list(in.min_allowed, path + ".minAllowed", p);
  check_resource_list(in.max_allowed, path + ".maxAllowed", p);
  for (const auto& [name, min] : in.min_allowed) {
    const kube::Quantity* max = kube::find_resource(in.max_allowed, name);
    if (max && min > *max) {
      p.add(path + ".minAllowed." + name,
            min.to_string() + " is greater than maxAllowed " + max->to_string());
    }
  }
  out.min_allowed = in.min_allowed;
  out.max_allowed = in.max_allowed;
  out.cpu_boost = effective_boost(in.startup_boost, path, p);
  return out;
}

std::vector<EffectiveContainerPolicy> effective_containers(const PodResourcePolicy& in,
                                                           Problems& p) {
  std::vector<EffectiveContainerPolicy> out;
  std::set<std::string, std::less<>> seen;
  for (std::size_t i = 0; i < in.container_policies.size(); ++i) {
    std::string path = "spec.resourcePolicy.containerPolicies[" + std::to_string(i) + "]";
    const auto& policy = in.container_policies[i];
    if (!policy.container_name.empty() && !seen.insert(policy.container_name).second) {
      p.add(path + ".containerName", "Duplicate value: " + quoted(policy.container_name));
    }
    out.push_back(effective_container(policy, path, p));
  }
  return out;
}

std::chrono::seconds effective_duration(const std::string& text, std::chrono::seconds fallback,
                                        const std::string& path, Problems& p) {
  if (text.empty()) return fallback;
  try {
    auto d = kube::parse_duration(text);
    if (d.count() <= 0) {
      p.add(path, "must be a positive duration, got " + quoted(text));
      return fallback;
    }
    return std::chrono::ceil<std::chrono::seconds>(d);
  } catch (const std::invalid_argument& e) {
    p.add(path, e.what());
    return fallback;
  }
}

void check_min_replicas(const std::optional<std::int32_t>& value, const std::string& path,
                        Problems& p) {
  if (value && *value < 1) {
    p.add(path, "must be greater than or equal to 1, got " + std::to_string(*value));
  }
}

void check_fraction(const std::optional<double>& value, const char* name, bool zero_ok,
                    Problems& p) {
  if (!value) return;
  bool ok = zero_ok ? (*value >= 0 && *value <= 10) : (*value > 0 && *value <= 1);
  if (!ok) {
    p.add(std::string("spec.recommender.") + name,
          std::string(zero_ok ? "must be in [0, 10]" : "must be in (0, 1]") + ", got " +
              std::to_string(*value));
  }
}

void check_recommender(const RecommenderOverrides& r, Problems& p) {
  check_fraction(r.cpu_percentile, "cpuPercentile", false, p);
  check_fraction(r.memory_percentile, "memoryPercentile", false, p);
  check_fraction(r.lower_bound_percentile, "lowerBoundPercentile", false, p);
  check_fraction(r.upper_bound_percentile, "upperBoundPercentile", false, p);
  check_fraction(r.safety_margin_fraction, "safetyMarginFraction", true, p);
  if (r.lower_bound_percentile && r.upper_bound_percentile &&
      *r.lower_bound_percentile > *r.upper_bound_percentile) {
    p.add("spec.recommender.lowerBoundPercentile", "must not be greater than upperBoundPercentile");
  }
}

std::string supported_modes(PolicyApi api) {
  if (api == PolicyApi::VerticalPodAutoscaler) {
    return one_of({"Off", "Initial", "Recreate", "InPlaceOrRecreate", "InPlace", "Auto"});
  }
  return one_of({"Off", "Initial", "Recreate", "InPlaceOrRecreate", "InPlace"});
}

UpdateMode effective_mode(const std::string& text, PolicyApi api, const std::string& path,
                          Problems& p) {
  if (text.empty()) {
    // VPA defaults an absent updateMode to Auto (Recreate); Tailor's default is in place.
    return api == PolicyApi::VerticalPodAutoscaler ? UpdateMode::Recreate
                                                   : UpdateMode::InPlaceOrRecreate;
  }
  if (auto mode = parse_update_mode(text, api)) return *mode;
  p.add(path, "Unsupported value: " + quoted(text) + ": supported values: " + supported_modes(api));
  return UpdateMode::Off;
}

Validated finish(EffectivePolicy policy, Problems& p) {
  Validated out;
  if (p.empty()) {
    out.policy = std::move(policy);
  } else {
    out.problems = p.take();
  }
  return out;
}

}  // namespace

std::string_view to_string(UpdateMode mode) {
  switch (mode) {
    case UpdateMode::Off:
      return "Off";
    case UpdateMode::Initial:
      return "Initial";
    case UpdateMode::Recreate:
      return "Recreate";
    case UpdateMode::InPlaceOrRecreate:
      return "InPlaceOrRecreate";
    case UpdateMode::InPlace:
      return "InPlace";
  }
  return "";
}

std::optional<UpdateMode> parse_update_mode(std::string_view text, PolicyApi api) {
  // VPA's "Auto" is a deprecated alias of Recreate; its "InPlace" (VPA 1.7, alpha) resizes in
  // place and never evicts, as Tailor's InPlace does.
  if (api == PolicyApi::VerticalPodAutoscaler && text == "Auto") return UpdateMode::Recreate;
  for (UpdateMode mode : kModes) {
    if (text == to_string(mode)) return mode;
  }
  return std::nullopt;
}

RecommendedContainerResources only_controlled(RecommendedContainerResources r,
                                              const EffectiveContainerPolicy& policy) {
  auto keep = [&](kube::ResourceList& list) {
    kube::ResourceList kept;
    for (const std::string& resource : policy.controlled_resources) {
      if (const kube::Quantity* q = kube::find_resource(list, resource)) {
        kept.insert_or_assign(resource, *q);
      }
    }
    list = std::move(kept);
  };
  keep(r.target);
  keep(r.lower_bound);
  keep(r.upper_bound);
  keep(r.uncapped_target);
  return r;
}

bool EffectiveContainerPolicy::controls(std::string_view resource) const {
  return mode == ContainerMode::Auto &&
         std::find(controlled_resources.begin(), controlled_resources.end(), resource) !=
             controlled_resources.end();
}

EffectiveContainerPolicy container_policy_for(const EffectivePolicy& policy,
                                              std::string_view container) {
  const EffectiveContainerPolicy* wildcard = nullptr;
  for (const auto& p : policy.container_policies) {
    if (p.container_name == container) return p;
    if (p.container_name == kWildcardContainer) wildcard = &p;
  }
  EffectiveContainerPolicy out = wildcard ? *wildcard : EffectiveContainerPolicy{};
  out.container_name = std::string(container);
  return out;
}

std::optional<CpuBoost> cpu_boost_for(const EffectivePolicy& policy, std::string_view container) {
  std::optional<CpuBoost> boost = container_policy_for(policy, container).cpu_boost;
  if (!boost) boost = policy.cpu_boost;
  if (boost && boost->kind == CpuBoost::Kind::Factor && boost->factor <= 1) return std::nullopt;
  return boost;
}

Validated validate(const VerticalScalingPolicy& vsp) {
  Problems p;
  EffectivePolicy policy;
  policy.api = PolicyApi::VerticalScalingPolicy;
  policy.metadata = vsp.metadata;
  const auto& spec = vsp.spec;
  if (spec.target_ref && spec.selector) {
    p.add("spec", "Invalid value: targetRef and selector are mutually exclusive");
  } else if (!spec.target_ref && !spec.selector) {
    p.add("spec.targetRef", "Required value: targetRef or selector must be set");
  }
  if (spec.target_ref) check_target_ref(*spec.target_ref, p);
  if (spec.selector) check_selector(*spec.selector, p);
  policy.target_ref = spec.target_ref;
  policy.selector = spec.selector;
  const auto& update = spec.update_policy;
  policy.mode = effective_mode(update.mode, policy.api, "spec.updatePolicy.mode", p);
  check_min_replicas(update.min_replicas, "spec.updatePolicy.minReplicas", p);
  policy.min_replicas = update.min_replicas.value_or(kDefaultMinReplicas);
  policy.deferred_timeout = effective_duration(update.deferred_timeout, kDefaultDeferredTimeout,
                                               "spec.updatePolicy.deferredTimeout", p);
  policy.in_progress_timeout =
      effective_duration(update.in_progress_timeout, kDefaultInProgressTimeout,
                         "spec.updatePolicy.inProgressTimeout", p);
  policy.container_policies = effective_containers(spec.resource_policy, p);
  check_recommender(spec.recommender, p);
  policy.recommender = spec.recommender;
  policy.cpu_boost = effective_boost(spec.startup_boost, "spec", p);
  return finish(std::move(policy), p);
}

Validated validate(const VerticalPodAutoscaler& vpa) {
  Problems p;
  EffectivePolicy policy;
  policy.api = PolicyApi::VerticalPodAutoscaler;
  policy.metadata = vpa.metadata;
  const auto& spec = vpa.spec;
  if (!spec.target_ref) {
    p.add("spec.targetRef", "Required value");
  } else {
    check_target_ref(*spec.target_ref, p);
  }
  policy.target_ref = spec.target_ref;
  VpaUpdatePolicy update = spec.update_policy.value_or(VpaUpdatePolicy{});
  policy.mode = effective_mode(update.update_mode, policy.api, "spec.updatePolicy.updateMode", p);
  check_min_replicas(update.min_replicas, "spec.updatePolicy.minReplicas", p);
  policy.min_replicas = update.min_replicas.value_or(kDefaultVpaMinReplicas);
  if (spec.resource_policy)
    policy.container_policies = effective_containers(*spec.resource_policy, p);
  for (const auto& recommender : spec.recommenders) policy.recommenders.push_back(recommender.name);
  policy.cpu_boost = effective_boost(spec.startup_boost, "spec", p);
  return finish(std::move(policy), p);
}

std::string problems_message(const std::vector<std::string>& problems) {
  constexpr std::size_t kShown = 5;
  std::string out;
  for (std::size_t i = 0; i < problems.size() && i < kShown; ++i) {
    out += (i ? "; " : "") + problems[i];
  }
  if (problems.size() > kShown) {
    out += "; and " + std::to_string(problems.size() - kShown) + " more";
  }
  return out;
}

}  // namespace tailor::policy
