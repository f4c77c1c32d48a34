// Private to storage/: the shared state of a Watch.
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>

#include "embedded/storage/object_store.h"

namespace tailor::embedded {

struct Watch::State {
  std::string resource_key;  // "group/resource"
  std::string ns;            // "" : all namespaces
  mutable std::mutex mu;
  std::condition_variable cv;
  std::deque<StoredEvent> queue;
  std::uint64_t progress = 0;  // the store's resourceVersion when it last offered an event
  std::uint64_t drained = 0;   // progress when the queue was last emptied by next()
  bool stopped = false;

  // Queues event (null: none for this watcher) and records that the store reached
  // resource_version.
  void push(const StoredEvent* event, std::uint64_t resource_version);
};

}  // namespace tailor::embedded
