// Small lookups over the model types.
#include "kube/model/list.h"

namespace tailor::kube {

const OwnerReference* controller_of(const ObjectMeta& meta) {
  for (const auto& owner : meta.owner_references) {
    if (owner.controller) return &owner;
  }
  return nullptr;
}

const Quantity* find_resource(const ResourceList& list, std::string_view name) {
  auto it = list.find(name);
  return it == list.end() ? nullptr : &it->second;
}

void add_resources(ResourceList& list, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto [it, inserted] = list.try_emplace(name, quantity);
    if (!inserted) it->second += quantity;
  }
}

void max_resources(ResourceList& list, const ResourceList& other) {
  for (const auto& [name, quantity] : other) {
    auto [it, inserted] = list.try_emplace(name, quantity);
    if (!inserted && quantity > it->second) it->second = quantity;
  }
}

namespace {
template <class Range, class Key>
auto find_by(const Range& range, std::string_view wanted, Key key) -> decltype(&*range.begin()) {
  for (const auto& item : range) {
    if (key(item) == wanted) return &item;
  }
  return nullptr;
}
}  // namespace

const Container* find_container(const PodSpec& spec, std::string_view name) {
  auto by_name = [](const Container& c) -> const std::string& { return c.name; };
  if (auto* found = find_by(spec.containers, name, by_name)) return found;
  return find_by(spec.init_containers, name, by_name);
}

const ContainerStatus* find_container_status(const PodStatus& status, std::string_view name) {
  auto by_name = [](const ContainerStatus& c) -> const std::string& { return c.name; };
  if (auto* found = find_by(status.container_statuses, name, by_name)) return found;
  return find_by(status.init_container_statuses, name, by_name);
}

const PodCondition* find_condition(const PodStatus& status, std::string_view type) {
  return find_by(status.conditions, type,
                 [](const PodCondition& c) -> const std::string& { return c.type; });
}

}  // namespace tailor::kube
