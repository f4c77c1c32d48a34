#include "kube/client/events.h"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <random>

#include "kube/model/time.h"

namespace tailor::kube {
namespace {

using Clock = std::chrono::system_clock;

std::string event_name(const std::string& object_name, Clock::time_point now) {
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch());
  char suffix[32];
  std::snprintf(suffix, sizeof suffix, ".%llx", static_cast<unsigned long long>(nanos.count()));
  return object_name + suffix;
}

}  // namespace

EventRecorder::EventRecorder(std::shared_ptr<EventSink> sink, EventSource source,
                             EventRecorderOptions options)
    : sink_(std::move(sink)),
      source_(std::move(source)),
      options_(std::move(options)),
      correlator_(options_.correlator) {
  if (!sink_) throw std::invalid_argument("event recorder: no sink");
  if (source_.component.empty()) throw std::invalid_argument("event recorder: no component");
  if (options_.queue_capacity == 0 || options_.max_tries < 1) {
    throw std::invalid_argument("event recorder: need queue_capacity > 0 and max_tries >= 1");
  }
  if (!options_.now) options_.now = [] { return Clock::now(); };
  worker_ = std::thread([this] { run(); });
}

EventRecorder::~EventRecorder() { stop(); }

void EventRecorder::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (worker_.joinable()) worker_.join();
}

EventRecorderStats EventRecorder::stats() const {
  std::lock_guard lock(mutex_);
  return stats_;
}

void EventRecorder::count(std::uint64_t EventRecorderStats::*field) {
  std::lock_guard lock(mutex_);
  ++(stats_.*field);
}

EventRecord EventRecorder::make_event(const EventObjectRef& object, const std::string& type,
                                      const std::string& reason, const std::string& message) const {
  auto now = options_.now();
  EventRecord e;
  e.name = event_name(object.name, now);
  e.namespace_ = object.namespace_.empty() ? "default" : object.namespace_;
  e.involved_object = object;
  e.type = type;
  e.reason = reason;
  e.message = message;
  e.source_component = e.reporting_controller = source_.component;
  e.source_host = e.reporting_instance = source_.host;
  e.first_timestamp = e.last_timestamp = format_rfc3339(now);
  e.count = 1;
  return e;
}

void EventRecorder::event(const EventObjectRef& object, const std::string& type,
                          const std::string& reason, const std::string& message) {
  if (type != kEventTypeNormal && type != kEventTypeWarning) {
    spdlog::error("event recorder: unsupported event type '{}' (reason {})", type, reason);
    count(&EventRecorderStats::rejected);
    return;
  }
  EventRecord e = make_event(object, type, reason, message);
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= options_.queue_capacity) {
      ++stats_.dropped;
      return;
    }
    queue_.push_back(std::move(e));
  }
  changed_.notify_all();
}

bool EventRecorder::flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [this] { return queue_.empty() && !busy_; });
}

bool EventRecorder::sleep(std::chrono::milliseconds delay) {
  std::unique_lock lock(mutex_);
  return !changed_.wait_for(lock, delay, [this] { return stopping_; });
}

void EventRecorder::run() {
  std::unique_lock lock(mutex_);
  while (true) {
    changed_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
    if (stopping_) return;
    EventRecord e = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    record(e);
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

// One event: correlate, then write, retrying while the server is unreachable. The first retry
// waits a random part of retry_delay so many recorders do not retry in step.
void EventRecorder::record(const EventRecord& event) {
  CorrelationResult correlated = correlator_.correlate(event, options_.now());
  if (correlated.skip) {
    count(&EventRecorderStats::skipped);
    return;
  }
  std::mt19937_64 random(std::random_device{}());
  for (int attempt = 1; attempt <= options_.max_tries; ++attempt) {
    if (write(correlated) == WriteResult::Done) return;
    if (attempt == options_.max_tries) break;
    auto delay = options_.retry_delay;
    if (attempt == 1) {
      delay = std::chrono::milliseconds(
          std::uniform_int_distribution<std::int64_t>(0, options_.retry_delay.count())(random));
    }
    if (!sleep(delay)) return;
  }
  spdlog::error("event recorder: dropping event {} ({}) after {} tries", correlated.event.name,
                correlated.event.reason, options_.max_tries);
  count(&EventRecorderStats::dropped);
}

// Patches an existing Event (or creates it when the patch finds it gone); an answer from the
// server other than success is final, only an unreachable server is retried.
EventRecorder::WriteResult EventRecorder::write(CorrelationResult& correlated) {
  EventRecord& event = correlated.event;
  try {
    EventRecord written;
    bool created = correlated.patch.empty();
    if (!created) {
      try {
        written = sink_->patch(event, correlated.patch);
      } catch (const ApiError& e) {
        if (!e.is_not_found()) throw;
        created = true;
      }
    }
    if (created) {
      event.resource_version.clear();
      written = sink_->create(event);
    }
    correlator_.update_state(written);
    count(&EventRecorderStats::written);
    return WriteResult::Done;
  } catch (const ApiError& e) {
    spdlog::warn("event recorder: server rejected event {} ({}): {}", event.name, event.reason,
                 e.what());
    count(&EventRecorderStats::rejected);
    return WriteResult::Done;
  } catch (const std::invalid_argument& e) {
    // Written, but the answer is unreadable: retrying would only duplicate it.
    spdlog::warn("event recorder: unreadable answer for event {}: {}", event.name, e.what());
    count(&EventRecorderStats::rejected);
    return WriteResult::Done;
  } catch (const std::exception& e) {
    spdlog::warn("event recorder: cannot write event {} ({}): {}", event.name, event.reason,
                 e.what());
    return WriteResult::Retry;
  }
}

}  // namespace tailor::kube
