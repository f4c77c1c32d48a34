// FakeApi: an in-memory ListerWatcher that behaves like an API server's list/watch for one
// resource type (resourceVersions, paginated lists, watch history and compaction), with
// switches to inject the failures an informer must survive. Deterministic: the test drives
// every change.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "kube/client/list_watch.h"

namespace tailor::kube::cache::testing {

struct FakeObject {
  std::string namespace_, name, node, owner_uid, phase;
};

class FakeApi : public ListerWatcher {
 public:
  // Mutations append to the watch history and wake watchers. Return the new resourceVersion.
  std::int64_t put(const FakeObject& object) {
    std::lock_guard lock(mutex_);
    std::string key = object.namespace_ + "/" + object.name;
    bool existed = objects_.count(key) > 0;
    objects_[key] = render(object, ++resource_version_);
    history_.push_back({existed ? WatchEventType::Modified : WatchEventType::Added, objects_[key],
                        resource_version_});
    changed_.notify_all();
    return resource_version_;
  }
  std::int64_t remove(const std::string& namespace_, const std::string& name) {
    std::lock_guard lock(mutex_);
    auto it = objects_.find(namespace_ + "/" + name);
    if (it == objects_.end()) return resource_version_;
    // A deleted object's final state carries the deletion's resourceVersion.
    std::string final_state = with_resource_version(it->second, ++resource_version_);
    objects_.erase(it);
    history_.push_back({WatchEventType::Deleted, final_state, resource_version_});
    changed_.notify_all();
    return resource_version_;
  }
  // Inserts a raw item (e.g. malformed) into lists only.
  void put_raw_list_item(std::string json) {
    std::lock_guard lock(mutex_);
    raw_items_.push_back(std::move(json));
  }
  std::int64_t bookmark() {
    std::lock_guard lock(mutex_);
    ++resource_version_;
    history_.push_back({WatchEventType::Bookmark,
                        R"({"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":")" +
                            std::to_string(resource_version_) + R"("}})",
                        resource_version_});
    changed_.notify_all();
    return resource_version_;
  }
  // Forgets history up to now: watches from an older resourceVersion get 410.
  void compact() {
    std::lock_guard lock(mutex_);
    compacted_through_ = resource_version_;
  }
  // While partitioned, open watches deliver nothing and end with a TransportError, and new
  // watches fail the same way; mutations still happen "on the server".
  void set_partitioned(bool partitioned) {
    std::lock_guard lock(mutex_);
    partitioned_ = partitioned;
    changed_.notify_all();
  }
  // 410 is reported as an ERROR event inside the stream instead of an HTTP 410.
  void set_gone_as_event(bool on) {
    std::lock_guard lock(mutex_);
    gone_as_event_ = on;
  }
  // The next watch delivers this many events, then the connection drops.
  void drop_next_watch_after(int events) {
    std::lock_guard lock(mutex_);
    drop_after_ = events;
  }
  void fail_next_lists(int count) {
    std::lock_guard lock(mutex_);
    failing_lists_ = count;
  }
  void expire_continue_tokens(bool on) {
    std::lock_guard lock(mutex_);
    expire_continue_ = on;
  }
  // A watch that ends with an ERROR event carrying this status (once).
  void error_event_on_next_watch(int code) {
    std::lock_guard lock(mutex_);
    error_event_code_ = code;
  }

  std::vector<ListOptions> list_calls() const {
    std::lock_guard lock(mutex_);
    return list_calls_;
  }
  std::vector<ListOptions> watch_calls() const {
    std::lock_guard lock(mutex_);
    return watch_calls_;
  }
  std::int64_t resource_version() const {
    std::lock_guard lock(mutex_);
    return resource_version_;
  }

  ListPage list(const ListOptions& options) override {
    std::lock_guard lock(mutex_);
    list_calls_.push_back(options);
    if (failing_lists_ > 0) {
      --failing_lists_;
      throw TransportError("connection refused (fake)");
    }
    if (!options.continue_token.empty() && expire_continue_) {
      throw ApiError(410, "Expired", "The provided continue parameter is too old");
    }
    std::vector<std::string> all = raw_items_;
    for (const auto& [key, json] : objects_) all.push_back(json);
    std::size_t begin = options.continue_token.empty() ? 0 : std::stoul(options.continue_token);
    std::size_t end = options.limit > 0 ? std::min(all.size(), begin + options.limit) : all.size();
    ListPage page;
    page.items.assign(all.begin() + begin, all.begin() + end);
    page.resource_version = std::to_string(resource_version_);
    if (end < all.size()) page.continue_token = std::to_string(end);
    return page;
  }

  void watch(const ListOptions& options, const std::function<bool(const RawWatchEvent&)>& on_event,
             const StopToken& stop) override {
    std::unique_lock lock(mutex_);
    watch_calls_.push_back(options);
    if (partitioned_) throw TransportError("connection refused (fake partition)");
    std::int64_t from = std::stoll(options.resource_version);
    if (from < compacted_through_) {
      if (!gone_as_event_) throw ApiError(410, "Expired", "too old resource version");
      lock.unlock();
      on_event({WatchEventType::Error, status_json(410, "Expired", "too old resource version")});
      return;
    }
    if (error_event_code_ != 0) {
      int code = std::exchange(error_event_code_, 0);
      lock.unlock();
      on_event({WatchEventType::Error, status_json(code, "InternalError", "fake failure")});
      return;
    }
    int drop_after = std::exchange(drop_after_, -1);
    int sent = 0;
    while (!stop.stop_requested()) {
      if (partitioned_) throw TransportError("connection reset (fake partition)");
      auto next = first_after(from);
      if (next == history_.end()) {
        changed_.wait_for(lock, std::chrono::milliseconds(5));
        continue;
      }
      if (drop_after >= 0 && sent == drop_after) {
        throw TransportError("connection reset (fake drop)");
      }
      HistoryEvent event = *next;
      from = event.resource_version;
      lock.unlock();
      bool go_on = on_event({event.type, event.json});
      lock.lock();
      ++sent;
      if (!go_on) return;
    }
  }

  static std::string render(const FakeObject& o, std::int64_t resource_version) {
    std::string owners =
        o.owner_uid.empty() ? "" : R"(,"ownerReferences":[{"uid":")" + o.owner_uid + R"("}])";
    return R"({"kind":"Pod","apiVersion":"v1","metadata":{"name":")" + o.name +
           R"(","namespace":")" + o.namespace_ + R"(","uid":"uid-)" + o.name +
           R"(","resourceVersion":")" + std::to_string(resource_version) + "\"" + owners +
           R"(},"spec":{"nodeName":")" + o.node + R"("},"status":{"phase":")" + o.phase + R"("}})";
  }

 private:
  struct HistoryEvent {
    WatchEventType type;
    std::string json;
    std::int64_t resource_version;
  };

  std::vector<HistoryEvent>::iterator first_after(std::int64_t from) {
    for (auto it = history_.begin(); it != history_.end(); ++it) {
      if (it->resource_version > from) return it;
    }
    return history_.end();
  }
  static std::string status_json(int code, const std::string& reason, const std::string& msg) {
    return R"({"kind":"Status","apiVersion":"v1","status":"Failure","message":")" + msg +
           R"(","reason":")" + reason + R"(","code":)" + std::to_string(code) + "}";
  }
  static std::string with_resource_version(const std::string& json, std::int64_t rv) {
    auto at = json.find("\"resourceVersion\":\"") + 19;
    auto end = json.find('"', at);
    return json.substr(0, at) + std::to_string(rv) + json.substr(end);
  }

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::int64_t resource_version_ = 100;
  std::map<std::string, std::string> objects_;
  std::vector<std::string> raw_items_;
  std::vector<HistoryEvent> history_;
  std::int64_t compacted_through_ = 0;
  bool partitioned_ = false, gone_as_event_ = false, expire_continue_ = false;
  int drop_after_ = -1, failing_lists_ = 0, error_event_code_ = 0;
  std::vector<ListOptions> list_calls_, watch_calls_;
};

}  // namespace tailor::kube::cache::testing
