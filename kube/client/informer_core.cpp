#include "kube/client/informer_core.h"

#include <spdlog/spdlog.h>

#include <random>

namespace tailor::kube::cache {
namespace {

std::function<double()> default_random() {
  auto engine = std::make_shared<std::mt19937_64>(std::random_device{}());
  return [engine] { return std::uniform_real_distribution<double>(0.0, 1.0)(*engine); };
}

InformerOptions with_defaults(InformerOptions options) {
  if (!options.random) options.random = default_random();
  if (options.page_size < 0) throw std::invalid_argument("informer: page_size must be >= 0");
  if (options.resync_period.count() < 0) {
    throw std::invalid_argument("informer: resync_period must be >= 0");
  }
  return options;
}

// A watch that ends cleanly this fast without any event means the server is refusing to
// stream; treat it as a failure so we back off instead of spinning (client-go does the same).
constexpr auto kVeryShortWatch = std::chrono::seconds(1);

}  // namespace

InformerCore::InformerCore(std::shared_ptr<ListerWatcher> lister_watcher, ErasedDecode decode,
                           StoreCore& store, InformerOptions options)
    : lister_watcher_(std::move(lister_watcher)),
      decode_(std::move(decode)),
      store_(store),
      options_(with_defaults(std::move(options))),
      backoff_(options_.backoff, options_.random) {
  if (!lister_watcher_) throw std::invalid_argument("informer: no ListerWatcher");
  if (!decode_) throw std::invalid_argument("informer: no decode function");
}

InformerCore::~InformerCore() { stop(); }

void InformerCore::add_listener(std::function<void(const Notification&)> listener) {
  std::lock_guard lock(mutex_);
  if (started_) throw std::logic_error("informer: listener added after start()");
  listeners_.push_back(std::move(listener));
}

void InformerCore::set_error_handler(std::function<void(const std::string&)> on_error) {
  std::lock_guard lock(mutex_);
  if (started_) throw std::logic_error("informer: error handler set after start()");
  on_error_ = std::move(on_error);
}

void InformerCore::start() {
  {
    std::lock_guard lock(mutex_);
    if (started_) throw std::logic_error("informer: started twice");
    started_ = true;
  }
  dispatcher_ = std::thread([this] { dispatch_loop(); });
  reflector_ = std::thread([this] { run(); });
}

void InformerCore::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_token_.request_stop();
  changed_.notify_all();
  if (reflector_.joinable()) reflector_.join();
  if (dispatcher_.joinable()) dispatcher_.join();
}

bool InformerCore::stopping() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

bool InformerCore::has_synced() const {
  std::lock_guard lock(mutex_);
  return synced_;
}

bool InformerCore::wait_for_sync(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [this] { return synced_ || stopping_; }) && synced_;
}

std::string InformerCore::last_resource_version() const {
  std::lock_guard lock(mutex_);
  return resource_version_;
}

InformerStats InformerCore::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void InformerCore::report(const std::string& message) {
  spdlog::warn("{}: {}", options_.name, message);
  if (on_error_) on_error_(message);
}

bool InformerCore::interruptible_sleep(std::chrono::milliseconds delay) {
  if (options_.sleep) return options_.sleep(delay) && !stopping();
  std::unique_lock lock(mutex_);
  return !changed_.wait_for(lock, delay, [this] { return stopping_; });
}

// The reflector: list, then watch until the watch can no longer be resumed. A dropped
// connection resumes from the last resourceVersion; 410 Gone relists at once; any other
// failure relists after a backoff, as client-go's reflector does.
void InformerCore::run() {
  bool need_list = true;
  while (!stopping()) {
    WatchEnd end = WatchEnd::Failed;
    bool resumable = false;
    try {
      if (need_list) relist();
      need_list = false;
      end = watch_once();
    } catch (const TransportError& e) {
      report(std::string(need_list ? "list failed: " : "watch failed: ") + e.what());
      resumable = true;
    } catch (const std::exception& e) {
      report(std::string(need_list ? "list failed: " : "watch failed: ") + e.what());
    }
    if (end == WatchEnd::Ended) continue;
    std::unique_lock lock(mutex_);
    if (end == WatchEnd::Gone) {
      need_list = true;
      ++stats_.gone;
      continue;
    }
    ++stats_.failures;
    if (!resumable) need_list = true;
    lock.unlock();
    if (!interruptible_sleep(backoff_.next(Backoff::Clock::now()))) break;
  }
}

bool InformerCore::decode_entry(std::string_view json, StoreEntry& entry) {
  try {
    entry.meta = parse_meta(json);
    entry.object = decode_(json);
    if (!entry.object) throw DecodeError("decoder returned nothing");
    return true;
  } catch (const std::exception& e) {
    {
      std::lock_guard lock(mutex_);
      ++stats_.decode_errors;
    }
    report(std::string("skipping an object that cannot be decoded: ") + e.what());
    return false;
  }
}

ListPage InformerCore::list_all(std::vector<StoreEntry>& entries) {
  ListOptions options;
  options.limit = options_.page_size;
  ListPage page;
  do {
    page = lister_watcher_->list(options);
    for (const auto& item : page.items) {
      StoreEntry entry;
      if (decode_entry(item, entry)) entries.push_back(std::move(entry));
    }
    options.continue_token = page.continue_token;
  } while (!page.continue_token.empty() && !stopping());
  return page;
}

void InformerCore::relist() {
  std::vector<StoreEntry> entries;
  ListPage last;
  try {
    last = list_all(entries);
  } catch (const ApiError& e) {
    // An expired continue token (410) during paging: fall back to one full list.
    if (!e.is_gone() || options_.page_size == 0) throw;
    entries.clear();
    last = lister_watcher_->list(ListOptions{});
    for (const auto& item : last.items) {
      StoreEntry entry;
      if (decode_entry(item, entry)) entries.push_back(std::move(entry));
    }
  }
  if (stopping()) return;
  StoreDiff diff = store_.replace(std::move(entries));
  std::vector<Notification> notifications;
  for (auto& entry : diff.added)
    notifications.push_back({NotificationKind::Add, std::move(entry), {}});
  for (auto& [old_entry, entry] : diff.updated) {
    notifications.push_back({NotificationKind::Update, std::move(entry), std::move(old_entry)});
  }
  for (auto& entry : diff.deleted) {
    notifications.push_back({NotificationKind::Delete, std::move(entry), {}, true});
  }
  {
    std::lock_guard lock(mutex_);
    resource_version_ = last.resource_version;
    synced_ = true;
    ++stats_.lists;
  }
  changed_.notify_all();
  backoff_.reset();
  enqueue(std::move(notifications));
}

std::chrono::seconds InformerCore::watch_timeout() {
  auto min = options_.min_watch_timeout.count();
  return std::chrono::seconds(min + static_cast<std::int64_t>(options_.random() * min));
}

InformerCore::WatchEnd InformerCore::watch_once() {
  ListOptions options;
  options.resource_version = last_resource_version();
  options.allow_watch_bookmarks = true;
  options.timeout_seconds = static_cast<int>(watch_timeout().count());
  {
    std::lock_guard lock(mutex_);
    ++stats_.watches;
  }
  WatchEnd end = WatchEnd::Ended;
  int delivered = 0;
  auto started = std::chrono::steady_clock::now();
  try {
    lister_watcher_->watch(
        options,
        [&](const RawWatchEvent& event) {
          try {
            return handle_event(event, end, delivered);
          } catch (const std::exception& e) {
            report(std::string("unreadable watch event: ") + e.what());
            end = WatchEnd::Failed;
            return false;
          }
        },
        stop_token_);
  } catch (const ApiError& e) {
    if (!e.is_gone()) throw;
    return WatchEnd::Gone;
  }
  if (end != WatchEnd::Ended || stopping()) return end;
  if (delivered == 0 && std::chrono::steady_clock::now() - started < kVeryShortWatch) {
    report("watch closed at once without events");
    return WatchEnd::Failed;
  }
  return WatchEnd::Ended;
}

// Applies one watch event; returns false to end the watch (error event or stopping).
bool InformerCore::handle_event(const RawWatchEvent& event, WatchEnd& end, int& delivered) {
  if (stopping()) return false;
  ++delivered;
  if (event.type == WatchEventType::Error) {
    StatusInfo status = parse_status(event.object);
    end = status.code == 410 ? WatchEnd::Gone : WatchEnd::Failed;
    if (end == WatchEnd::Failed) {
      report("watch error event " + std::to_string(status.code) + " " + status.reason + ": " +
             status.message);
    }
    return false;
  }
  if (event.type == WatchEventType::Bookmark) {
    std::string resource_version = parse_resource_version(event.object);
    std::lock_guard lock(mutex_);
    resource_version_ = std::move(resource_version);
    return true;
  }
  StoreEntry entry;
  if (!decode_entry(event.object, entry)) {
    // Still advance past it, or every resumed watch would replay the same bad object.
    try {
      std::string resource_version = parse_resource_version(event.object);
      std::lock_guard lock(mutex_);
      resource_version_ = std::move(resource_version);
    } catch (const DecodeError&) {
    }
    return true;
  }
  std::string resource_version = entry.meta.resource_version;
  Notification notification = event.type == WatchEventType::Deleted
                                  ? apply_delete(std::move(entry))
                                  : apply_upsert(std::move(entry));
  {
    // Before handlers hear of it, so they never see an older resourceVersion than the event.
    std::lock_guard lock(mutex_);
    resource_version_ = std::move(resource_version);
  }
  std::vector<Notification> notifications;
  notifications.push_back(std::move(notification));
  enqueue(std::move(notifications));
  return true;
}

Notification InformerCore::apply_upsert(StoreEntry entry) {
  std::optional<StoreEntry> previous = store_.upsert(entry);
  if (previous) return {NotificationKind::Update, std::move(entry), std::move(*previous)};
  return {NotificationKind::Add, std::move(entry), {}};
}

Notification InformerCore::apply_delete(StoreEntry entry) {
  store_.erase(entry.meta.key());
  return {NotificationKind::Delete, std::move(entry), {}};
}

}  // namespace tailor::kube::cache
