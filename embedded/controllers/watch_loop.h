// Private to controllers/: the skeleton of every control loop — one thread that keeps a cache of
// the resources it watches (fed by ObjectStore watches and by its own writes) and runs a
// level-triggered reconcile after each batch of changes and on a resync period.
#pragma once

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "embedded/controllers/control_loop.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

// Cached objects of one resource type by "namespace/name".
using ObjectMap = std::map<std::string, ObjectPtr>;

class WatchLoop : public ControlLoop {
 public:
  WatchLoop(ObjectStore& store, std::vector<const ResourceInfo*> watched,
            std::chrono::milliseconds resync = std::chrono::milliseconds(1000));
  ~WatchLoop() override;
  void start() override;
  void stop() override;

 protected:
  // Brings the world towards the cached state's wishes. Level-triggered: whatever fails is tried
  // again on the next pass (after the next change, or the resync period at the latest), so
  // waits such as minReadySeconds and a budget's disruptedPods expiry also end by resync.
  virtual void reconcile() = 0;
  // Called for each change before the cache is updated (for loops that react to transitions).
  virtual void observe(const StoredEvent&) {}

  const ObjectMap& cached(const ResourceInfo& resource) const;
  // Records the loop's own write at once so that the next pass sees it.
  void remember(const ResourceInfo& resource, const ObjectPtr& object);
  // Store writes that keep the cache in step.
  ObjectPtr create(const ResourceInfo& resource, boost::json::object object);
  ObjectPtr modify(const ResourceInfo& resource, const boost::json::object& object,
                   const Mutation& mutate, UpdateScope scope = UpdateScope::Main);
  void remove(const ResourceInfo& resource, const boost::json::object& object,
              std::int64_t grace_seconds, const std::string& finalizer = "");

  ObjectStore& store_;

 private:
  void run();
  bool drain(std::chrono::steady_clock::time_point deadline);
  void apply(const StoredEvent& event);

  std::vector<const ResourceInfo*> watched_;
  std::chrono::milliseconds resync_;
  std::vector<std::shared_ptr<Watch>> watches_;
  std::map<const ResourceInfo*, ObjectMap> cache_;
  std::thread thread_;
  std::atomic<bool> stopping_{false};
  bool dirty_ = true;  // a pass is due (the first one, at start)
};

}  // namespace tailor::embedded
