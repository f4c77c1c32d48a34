#include "embedded/controllers/watch_loop.h"

#include <boost/json.hpp>

#include "embedded/controllers/objects.h"

namespace tailor::embedded {
namespace {

std::uint64_t version_of(const bj::object& o) {
  std::string rv = meta_string(o, "resourceVersion");
  return rv.empty() ? 0 : std::stoull(rv);
}

constexpr auto kPoll = std::chrono::milliseconds(20);

}  // namespace

WatchLoop::WatchLoop(ObjectStore& store, std::vector<const ResourceInfo*> watched,
                     std::chrono::milliseconds resync)
    : store_(store), watched_(std::move(watched)), resync_(resync) {}

WatchLoop::~WatchLoop() { stop(); }

void WatchLoop::start() {
  if (thread_.joinable()) return;
  // Watches open here, so that everything stored before start() is seen.
  for (const ResourceInfo* r : watched_) watches_.push_back(store_.watch(*r, "", std::nullopt));
  thread_ = std::thread([this] { run(); });
}

void WatchLoop::stop() {
  stopping_ = true;
  for (const auto& w : watches_) w->stop();
  if (thread_.joinable()) thread_.join();
}

void WatchLoop::run() {
  auto next_resync = std::chrono::steady_clock::now() + resync_;
  while (!stopping_) {
    bool changed = drain(std::chrono::steady_clock::now() + kPoll);
    if (stopping_) break;
    auto now = std::chrono::steady_clock::now();
    if (!changed && !dirty_ && now < next_resync) continue;
    // Drain what arrived meanwhile, so one pass sees one consistent batch.
    drain(now);
    dirty_ = false;
    next_resync = now + resync_;
    try {
      reconcile();
    } catch (const std::exception&) {
      // Not retried at once (a lasting failure would spin): the resync period brings it back.
    }
  }
}

bool WatchLoop::drain(std::chrono::steady_clock::time_point deadline) {
  bool changed = false;
  for (std::size_t i = 0; i < watches_.size(); ++i) {
    // Only the first watch waits; the others are read as they are.
    auto until = i == 0 && !changed ? deadline : std::chrono::steady_clock::now();
    for (const StoredEvent& e : watches_[i]->next(until)) {
      observe(e);
      apply(e);
      changed = true;
    }
  }
  return changed;
}

void WatchLoop::apply(const StoredEvent& e) {
  ObjectMap& objects = cache_[e.resource];
  std::string key = object_key(e.object->ns(), e.object->name());
  if (e.type == EventType::Deleted) {
    auto it = objects.find(key);
    if (it != objects.end() && version_of(*it->second) <= e.resource_version) objects.erase(it);
    return;
  }
  auto it = objects.find(key);
  if (it == objects.end() || version_of(*it->second) <= e.object->resource_version()) {
    // The loops read trees: parsed once here, then shared by every pass.
    objects[key] = std::make_shared<const bj::object>(e.object->object());
  }
}

const ObjectMap& WatchLoop::cached(const ResourceInfo& resource) const {
  static const ObjectMap kEmpty;
  auto it = cache_.find(&resource);
  return it == cache_.end() ? kEmpty : it->second;
}

void WatchLoop::remember(const ResourceInfo& resource, const ObjectPtr& object) {
  for (const ResourceInfo* r : watched_) {
    if (r == &resource) cache_[r][key_of(*object)] = object;
  }
}

ObjectPtr WatchLoop::create(const ResourceInfo& resource, bj::object object) {
  ObjectPtr created = store_.create(resource, std::move(object));
  remember(resource, created);
  return created;
}

ObjectPtr WatchLoop::modify(const ResourceInfo& resource, const bj::object& object,
                            const Mutation& mutate, UpdateScope scope) {
  ObjectPtr updated = store_.modify(resource, meta_string(object, "namespace"),
                                    meta_string(object, "name"), mutate, scope);
  remember(resource, updated);
  return updated;
}

void WatchLoop::remove(const ResourceInfo& resource, const bj::object& object,
                       std::int64_t grace_seconds, const std::string& finalizer) {
  Preconditions pre{meta_string(object, "uid"), ""};
  Removal r = store_.remove(resource, meta_string(object, "namespace"), meta_string(object, "name"),
                            pre, grace_seconds, finalizer);
  if (r.deleted) {
    auto it = cache_.find(&resource);
    if (it != cache_.end()) it->second.erase(key_of(object));
  } else {
    remember(resource, r.object);
  }
}

}  // namespace tailor::embedded
