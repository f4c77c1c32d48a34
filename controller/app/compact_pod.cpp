#include "controller/app/compact_pod.h"

#include <cstring>
#include <string_view>

namespace tailor::controller {
namespace {

// A part's content as bytes, each field length-prefixed, so that equal bytes mean equal parts.
class Content {
 public:
  Content& add(std::string_view s) {
    add_size(s.size());
    out_.append(s);
    return *this;
  }
  Content& add(bool b) {
    out_.push_back(b ? '1' : '0');
    return *this;
  }
  // The exact value and the format (printing keeps it: 1Gi stays binary).
  Content& add(const kube::Quantity& q) {
    kube::Quantity::nano_t nano = q.nano();
    char bytes[sizeof nano];
    std::memcpy(bytes, &nano, sizeof nano);
    out_.append(bytes, sizeof bytes);
    out_.push_back(static_cast<char>(q.format()));
    return *this;
  }
  Content& add(const kube::ResourceList& list) {
    add_size(list.size());
    for (const auto& [name, q] : list) add(name).add(q);
    return *this;
  }
  Content& add(const kube::ResourceRequirements& r) { return add(r.limits).add(r.requests); }
  // Lists are preceded by their size.
  Content& count(std::size_t n) {
    add_size(n);
    return *this;
  }
  std::string take() { return std::move(out_); }

 private:
  void add_size(std::size_t n) { out_.append(reinterpret_cast<const char*>(&n), sizeof n); }
  std::string out_;
};

std::string content_of(const kube::ObjectMeta& meta) {
  Content c;
  c.add(meta.namespace_).count(meta.labels.size());
  for (const auto& [key, value] : meta.labels) c.add(key).add(value);
  c.count(meta.owner_references.size());
  for (const kube::OwnerReference& o : meta.owner_references) {
    c.add(o.api_version)
        .add(o.kind)
        .add(o.name)
        .add(o.uid)
        .add(o.controller)
        .add(o.block_owner_deletion);
  }
  return c.take();
}

void add_containers(Content& c, const std::vector<kube::Container>& containers) {
  c.count(containers.size());
  for (const kube::Container& k : containers) {
    c.add(k.name).add(k.resources).add(k.restart_policy).count(k.resize_policy.size());
    for (const kube::ContainerResizePolicy& p : k.resize_policy) {
      c.add(p.resource_name).add(p.restart_policy);
    }
  }
}

std::string content_of(const actuator::PodSpecFacts& spec) {
  Content c;
  add_containers(c, spec.containers);
  add_containers(c, spec.init_containers);
  c.add(spec.overhead).add(spec.windows).add(spec.resources.has_value());
  if (spec.resources) c.add(*spec.resources);
  return c.take();
}

std::string content_of(const actuator::PodStatusFacts& status) {
  Content c;
  c.add(status.phase).add(status.qos_class.has_value());
  if (status.qos_class) c.count(static_cast<std::size_t>(*status.qos_class));
  c.count(static_cast<std::size_t>(status.observed_generation))
      .add(status.legacy_resize)
      .add(status.ready_condition)
      .count(status.resize_conditions.size());
  for (const kube::PodCondition& k : status.resize_conditions) {
    c.add(k.type).add(k.status).add(k.reason).add(k.message).count(
        static_cast<std::size_t>(k.observed_generation));
  }
  c.count(status.container_statuses.size());
  for (const actuator::ContainerStatusFacts& s : status.container_statuses) {
    c.add(s.name).add(s.oom_killed_at.has_value());
    if (s.oom_killed_at)
      c.count(static_cast<std::size_t>(s.oom_killed_at->time_since_epoch().count()));
    c.add(s.oom_killed_after.has_value());
    if (s.oom_killed_after) c.count(static_cast<std::size_t>(s.oom_killed_after->count()));
    c.add(s.actual.has_value());
    if (s.actual) c.add(*s.actual);
  }
  return c.take();
}

}  // namespace

// A part already held with the same content (the hash finds candidates, the content decides),
// else `part`, now held.
template <class T>
std::shared_ptr<const T> PodInterner::intern(Table<T>& table, std::shared_ptr<const T> part) {
  const std::string content = content_of(*part);
  const std::size_t hash = std::hash<std::string>{}(content);
  auto [first, last] = table.by_hash.equal_range(hash);
  for (auto it = first; it != last; ++it) {
    if (auto held = it->second.lock(); held && content_of(*held) == content) return held;
  }
  table.by_hash.emplace(hash, part);
  if (table.by_hash.size() >= table.purge_at) {
    std::erase_if(table.by_hash, [](const auto& kv) { return kv.second.expired(); });
    table.purge_at = std::max<std::size_t>(1024, 2 * table.by_hash.size());
  }
  return part;
}

template <class T>
std::size_t PodInterner::live(const Table<T>& table) {
  std::size_t n = 0;
  for (const auto& [hash, part] : table.by_hash) n += part.expired() ? 0 : 1;
  return n;
}

actuator::PodFacts PodInterner::compact(const kube::Pod& pod) {
  actuator::PodFacts facts = actuator::pod_facts(pod);
  std::lock_guard lock(mutex_);
  facts.shared_meta = intern(metas_, std::move(facts.shared_meta));
  facts.spec = intern(specs_, std::move(facts.spec));
  facts.status = intern(statuses_, std::move(facts.status));
  return facts;
}

std::size_t PodInterner::distinct_metas() const {
  std::lock_guard lock(mutex_);
  return live(metas_);
}

std::size_t PodInterner::distinct_specs() const {
  std::lock_guard lock(mutex_);
  return live(specs_);
}

std::size_t PodInterner::distinct_statuses() const {
  std::lock_guard lock(mutex_);
  return live(statuses_);
}

}  // namespace tailor::controller
