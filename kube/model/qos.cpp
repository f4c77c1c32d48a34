#include "kube/model/qos.h"

namespace tailor::kube {
namespace {

bool is_qos_resource(std::string_view name) {
  return name == kResourceCpu || name == kResourceMemory;
}

bool is_pod_level_resource(std::string_view name) {
  return is_qos_resource(name) || name.starts_with(kResourceHugePagesPrefix);
}

bool names_pod_level_resource(const ResourceList& list) {
  for (const auto& [name, quantity] : list) {
    if (is_pod_level_resource(name)) return true;
  }
  return false;
}

// Sums the positive cpu/memory quantities of `list` into `total`.
void add_positive(ResourceList& total, const ResourceList& list) {
  for (const auto& [name, quantity] : list) {
    if (!is_qos_resource(name) || quantity.sign() <= 0) continue;
    auto [it, inserted] = total.try_emplace(name, quantity);
    if (!inserted) it->second += quantity;
  }
}

// Both cpu and memory have a positive quantity.
bool has_cpu_and_memory(const ResourceList& list) {
  const Quantity* cpu = find_resource(list, kResourceCpu);
  const Quantity* memory = find_resource(list, kResourceMemory);
  return cpu && memory && cpu->sign() > 0 && memory->sign() > 0;
}

struct Totals {
  ResourceList requests;
  ResourceList limits;
  bool limits_complete = true;  // every contributor limits both cpu and memory
};

void add_requirements(Totals& totals, const ResourceRequirements& resources) {
  add_positive(totals.requests, resources.requests);
  add_positive(totals.limits, resources.limits);
}

Totals pod_level_totals(const ResourceRequirements& resources) {
  Totals totals;
  add_requirements(totals, resources);
  if (!resources.limits.empty() && !has_cpu_and_memory(resources.limits)) {
    totals.limits_complete = false;
  }
  return totals;
}

// Ephemeral containers cannot set resources, so they never count.
Totals container_totals(const PodSpec& spec) {
  Totals totals;
  for (const auto* list : {&spec.containers, &spec.init_containers}) {
    for (const Container& container : *list) {
      add_requirements(totals, container.resources);
      if (!has_cpu_and_memory(container.resources.limits)) totals.limits_complete = false;
    }
  }
  return totals;
}

bool pod_level_resources_set(const PodSpec& spec) {
  return spec.resources && (names_pod_level_resource(spec.resources->requests) ||
                            names_pod_level_resource(spec.resources->limits));
}

}  // namespace

std::string_view to_string(QosClass qos) {
  switch (qos) {
    case QosClass::Guaranteed:
      return "Guaranteed";
    case QosClass::Burstable:
      return "Burstable";
    case QosClass::BestEffort:
      return "BestEffort";
  }
  return "";
}

std::optional<QosClass> parse_qos_class(std::string_view text) {
  for (QosClass qos : {QosClass::Guaranteed, QosClass::Burstable, QosClass::BestEffort}) {
    if (text == to_string(qos)) return qos;
  }
  return std::nullopt;
}

QosClass compute_pod_qos(const PodSpec& spec) {
  Totals totals =
      pod_level_resources_set(spec) ? pod_level_totals(*spec.resources) : container_totals(spec);
  if (totals.requests.empty() && totals.limits.empty()) return QosClass::BestEffort;
  bool guaranteed = totals.limits_complete && totals.requests.size() == totals.limits.size();
  for (const auto& [name, request] : totals.requests) {
    const Quantity* limit = find_resource(totals.limits, name);
    if (!limit || *limit != request) guaranteed = false;
  }
  return guaranteed ? QosClass::Guaranteed : QosClass::Burstable;
}

QosClass pod_qos(const Pod& pod) {
  if (auto stored = parse_qos_class(pod.status.qos_class)) return *stored;
  return compute_pod_qos(pod.spec);
}

}  // namespace tailor::kube
