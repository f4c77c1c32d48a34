// InformerCore: the type-erased engine behind Informer<T> (client-go's reflector + shared
// informer): list (paginated) into the store, watch from the list's resourceVersion, resume
// watches from the last seen resourceVersion, relist and diff on 410 Gone, deliver add/update/
// delete notifications on a dispatcher thread, periodic resync, backoff between failures.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "kube/client/informer_backoff.h"
#include "kube/client/list_watch.h"
#include "kube/client/store_core.h"

namespace tailor::kube::cache {

struct InformerOptions {
  std::string name = "informer";               // in logs and errors, e.g. "pods"
  std::chrono::milliseconds resync_period{0};  // 0: no periodic resync
  std::int64_t page_size = 500;                // 0: one unpaginated list
  // Server-side watch timeout, randomised in [min, 2*min] so informers do not reconnect in step.
  std::chrono::seconds min_watch_timeout{300};
  BackoffPolicy backoff;
  // Waits between failed attempts; returns false when the informer is stopping. Default: an
  // interruptible wait. Tests inject one that records the delays and returns at once.
  std::function<bool(std::chrono::milliseconds)> sleep;
  std::function<double()> random;  // uniform [0, 1); default: a seeded Mersenne Twister
};

enum class NotificationKind { Add, Update, Delete };

struct Notification {
  NotificationKind kind;
  StoreEntry entry;      // Add/Update: the new object; Delete: the last known state
  StoreEntry old_entry;  // Update only
  // Delete noticed by a relist rather than a watch event (client-go's
  // DeletedFinalStateUnknown): the object may have changed before it went.
  bool final_state_unknown = false;
  bool resync = false;  // Update re-delivered by the periodic resync (old == new)
};

using ErasedDecode = std::function<std::shared_ptr<const void>(std::string_view json)>;

struct InformerStats {
  std::uint64_t lists = 0;          // complete (all pages) lists
  std::uint64_t watches = 0;        // watch calls
  std::uint64_t gone = 0;           // 410s that forced a relist
  std::uint64_t failures = 0;       // failed list/watch attempts (followed by a backoff)
  std::uint64_t decode_errors = 0;  // objects skipped because they could not be decoded
};

class InformerCore {
 public:
  // `store` must outlive the informer.
  InformerCore(std::shared_ptr<ListerWatcher> lister_watcher, ErasedDecode decode, StoreCore& store,
               InformerOptions options = {});
  ~InformerCore();
  InformerCore(const InformerCore&) = delete;
  InformerCore& operator=(const InformerCore&) = delete;

  // Listeners and the error handler must be added before start().
  void add_listener(std::function<void(const Notification&)> listener);
  void set_error_handler(std::function<void(const std::string&)> on_error);

  void start();  // once
  void stop();   // idempotent; joins the threads

  // True once the first complete list is in the store.
  bool has_synced() const;
  bool wait_for_sync(std::chrono::milliseconds timeout) const;
  std::string last_resource_version() const;
  InformerStats stats() const;

 private:
  enum class WatchEnd { Ended, Gone, Failed };

  void run();
  void relist();
  ListPage list_all(std::vector<StoreEntry>& entries);
  WatchEnd watch_once();
  bool handle_event(const RawWatchEvent& event, WatchEnd& end, int& delivered);
  bool decode_entry(std::string_view json, StoreEntry& entry);
  Notification apply_upsert(StoreEntry entry);  // updates the store; returns what to tell
  Notification apply_delete(StoreEntry entry);
  void enqueue(std::vector<Notification> notifications);
  void dispatch_loop();
  void deliver(const Notification& notification);
  void report(const std::string& message);
  bool interruptible_sleep(std::chrono::milliseconds delay);
  std::chrono::seconds watch_timeout();
  bool stopping() const;

  std::shared_ptr<ListerWatcher> lister_watcher_;
  ErasedDecode decode_;
  StoreCore& store_;
  InformerOptions options_;
  Backoff backoff_;
  std::vector<std::function<void(const Notification&)>> listeners_;
  std::function<void(const std::string&)> on_error_;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;  // queue, sync and stop changes
  std::deque<Notification> queue_;
  bool synced_ = false;
  bool stopping_ = false;
  bool started_ = false;
  std::string resource_version_;
  InformerStats stats_;
  StopToken stop_token_;
  std::thread reflector_, dispatcher_;
};

}  // namespace tailor::kube::cache
