// Informer<T>: keeps a Store<T> in step with the API server by list + watch and tells handlers
// what changed (client-go's SharedIndexInformer). T is any type; the caller supplies its
// decoder, so the informer does not depend on the typed model.
//
//   cache::Informer<Pod> pods(std::make_shared<cache::RestListerWatcher>(client, resources::kPods),
//                             decode_pod, {.name = "pods", .resync_period = 10min});
//   pods.store().add_indexer(std::string(cache::kIndexNodeName), by_node_name);
//   pods.add_handlers({.on_add = ..., .on_update = ..., .on_delete = ...});
//   pods.start(); pods.wait_for_sync(30s);
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "kube/client/informer_core.h"
#include "kube/client/store.h"

namespace tailor::kube::cache {

template <class T>
struct EventHandlers {
  using Ptr = std::shared_ptr<const T>;
  std::function<void(const Ptr& object)> on_add;
  // Also called with old == new by the periodic resync.
  std::function<void(const Ptr& old_object, const Ptr& new_object)> on_update;
  // final_state_unknown: the deletion was found by a relist after a missed watch, so `object`
  // is the last state this informer saw, not necessarily the final one.
  std::function<void(const Ptr& object, bool final_state_unknown)> on_delete;
};

template <class T>
class Informer {
 public:
  using Ptr = std::shared_ptr<const T>;
  // decode: one object's JSON -> T; throws on bad input (the object is then skipped and
  // reported through the error handler).
  using Decode = std::function<T(std::string_view json)>;

  Informer(std::shared_ptr<ListerWatcher> lister_watcher, Decode decode,
           InformerOptions options = {})
      : core_(std::move(lister_watcher), erase(std::move(decode)), store_.core(),
              std::move(options)) {}

  Store<T>& store() { return store_; }
  const Store<T>& store() const { return store_; }

  // Before start().
  void add_handlers(EventHandlers<T> handlers) {
    core_.add_listener([handlers = std::move(handlers)](const Notification& n) {
      switch (n.kind) {
        case NotificationKind::Add:
          if (handlers.on_add) handlers.on_add(cast(n.entry));
          break;
        case NotificationKind::Update:
          if (handlers.on_update) handlers.on_update(cast(n.old_entry), cast(n.entry));
          break;
        case NotificationKind::Delete:
          if (handlers.on_delete) handlers.on_delete(cast(n.entry), n.final_state_unknown);
          break;
      }
    });
  }
  void set_error_handler(std::function<void(const std::string&)> on_error) {
    core_.set_error_handler(std::move(on_error));
  }

  void start() { core_.start(); }
  void stop() { core_.stop(); }
  bool has_synced() const { return core_.has_synced(); }
  bool wait_for_sync(std::chrono::milliseconds timeout) const {
    return core_.wait_for_sync(timeout);
  }
  std::string last_resource_version() const { return core_.last_resource_version(); }
  InformerStats stats() const { return core_.stats(); }

 private:
  static Ptr cast(const StoreEntry& entry) {
    return std::static_pointer_cast<const T>(entry.object);
  }
  static ErasedDecode erase(Decode decode) {
    if (!decode) throw std::invalid_argument("informer: no decode function");
    return [decode = std::move(decode)](std::string_view json) -> std::shared_ptr<const void> {
      return std::make_shared<const T>(decode(json));
    };
  }

  Store<T> store_;  // declared first: the core refers to it
  InformerCore core_;
};

}  // namespace tailor::kube::cache
