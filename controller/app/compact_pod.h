// What the pod informer keeps of a pod: actuator::PodFacts, with the parts replicas of one
// template have in common interned, so that the ten pods of a ReplicaSet hold one copy of their
// labels, owners, containers and status. At 100,000 pods a kube::Pod, even cut down,
// was ~8 KB of heap each (bench/RESULTS.md "Scale").
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "actuator/pod_facts.h"
#include "kube/model/pod.h"

namespace tailor::controller {

// Thread-safe; the parts it hands out stay valid while any pod holds them.
class PodInterner {
 public:
  actuator::PodFacts compact(const kube::Pod& pod);

  // Distinct parts currently held (for tests and the bench).
  std::size_t distinct_metas() const;
  std::size_t distinct_specs() const;
  std::size_t distinct_statuses() const;

 private:
  // Parts by the hash of their content (the content itself is not kept: for 10,000 templates it
  // was ~10 MB); a part no pod holds any more is dropped at the next purge.
  template <class T>
  struct Table {
    std::unordered_multimap<std::size_t, std::weak_ptr<const T>> by_hash;
    std::size_t purge_at = 1024;
  };
  template <class T>
  std::shared_ptr<const T> intern(Table<T>& table, std::shared_ptr<const T> part);
  template <class T>
  static std::size_t live(const Table<T>& table);

  mutable std::mutex mutex_;
  Table<kube::ObjectMeta> metas_;
  Table<actuator::PodSpecFacts> specs_;
  Table<actuator::PodStatusFacts> statuses_;
};

}  // namespace tailor::controller
