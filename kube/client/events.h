// EventRecorder: records core/v1 Events about objects without blocking the caller. Events go
// through a bounded queue to a worker that correlates them (EventCorrelator: counting repeats,
// combining similar ones, rate-limiting per object) and writes them to an EventSink, retrying
// when the API server is unreachable — client-go's record.EventRecorder + broadcaster.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "kube/client/events_correlator.h"
#include "kube/client/events_sink.h"

namespace tailor::kube {

inline constexpr const char* kEventTypeNormal = "Normal";
inline constexpr const char* kEventTypeWarning = "Warning";

// The involvedObject of an event about a pod.
inline EventObjectRef pod_reference(std::string namespace_, std::string name, std::string uid) {
  return {.kind = "Pod",
          .namespace_ = std::move(namespace_),
          .name = std::move(name),
          .uid = std::move(uid),
          .api_version = "v1"};
}

struct EventRecorderOptions {
  std::size_t queue_capacity = 1000;  // further events are dropped (and counted) when full
  int max_tries = 12;                 // per event, when the server cannot be reached
  std::chrono::milliseconds retry_delay{10000};
  CorrelatorOptions correlator;
  std::function<std::chrono::system_clock::time_point()> now;  // default: system clock
};

struct EventRecorderStats {
  std::uint64_t written = 0;   // created or patched
  std::uint64_t skipped = 0;   // rate-limited by the correlator
  std::uint64_t dropped = 0;   // queue full, or gave up after max_tries
  std::uint64_t rejected = 0;  // invalid type, or the server refused the event
};

class EventRecorder {
 public:
  // source: the model's EventSource; component and host are also the reportingComponent and
  // reportingInstance (e.g. "tailor-controller" and the node or pod name).
  EventRecorder(std::shared_ptr<EventSink> sink, EventSource source,
                EventRecorderOptions options = {});
  ~EventRecorder();  // stops; events still queued are dropped
  EventRecorder(const EventRecorder&) = delete;
  EventRecorder& operator=(const EventRecorder&) = delete;

  // Never blocks on I/O. type is "Normal" or "Warning" (others are rejected, as client-go
  // does); reason is a short UpperCamelCase word; message is for humans.
  void event(const EventObjectRef& object, const std::string& type, const std::string& reason,
             const std::string& message);

  // Waits until every event queued so far has been handled; false on timeout.
  bool flush(std::chrono::milliseconds timeout);
  void stop();
  EventRecorderStats stats() const;

 private:
  EventRecord make_event(const EventObjectRef& object, const std::string& type,
                         const std::string& reason, const std::string& message) const;
  void run();
  void record(const EventRecord& event);
  enum class WriteResult { Done, Retry };
  WriteResult write(CorrelationResult& correlated);
  bool sleep(std::chrono::milliseconds delay);
  void count(std::uint64_t EventRecorderStats::*field);

  std::shared_ptr<EventSink> sink_;
  EventSource source_;
  EventRecorderOptions options_;
  EventCorrelator correlator_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<EventRecord> queue_;
  bool busy_ = false, stopping_ = false;
  EventRecorderStats stats_;
  std::thread worker_;
};

}  // namespace tailor::kube
