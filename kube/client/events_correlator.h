// EventCorrelator: what client-go's tools/record does to an event before it reaches the API
// server. Identical events (same source, object, type, reason, message) become one Event whose
// count grows through a PATCH; similar events (same source, object, type and reason, differing
// only in message) seen 10 times within 10 minutes are folded into one
// "(combined from similar events): ..." Event; and a token bucket per source + object
// (burst 25, one more every 5 minutes) drops the rest. Pure: the time is an argument.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "kube/model/event.h"

namespace tailor::kube {

using EventObjectRef = ObjectReference;  // the model's core/v1 ObjectReference

// A core/v1 Event as the recorder writes it. Timestamps are metav1.Time text.
struct EventRecord {
  std::string namespace_, name, resource_version;
  EventObjectRef involved_object;
  std::string type;  // "Normal" | "Warning"
  std::string reason, message;
  std::string source_component, source_host;
  std::string reporting_controller, reporting_instance;
  std::string first_timestamp, last_timestamp;
  int count = 1;
};

struct CorrelatorOptions {
  std::size_t cache_size = 4096;  // LRU entries per cache
  std::size_t max_similar = 10;   // distinct messages before aggregation
  std::chrono::seconds similar_interval{600};
  double spam_burst = 25;
  double spam_per_second = 1.0 / 300.0;
};

struct CorrelationResult {
  EventRecord event;
  // Non-empty: the event already exists on the server; send this strategic merge patch to it
  // instead of creating it.
  std::string patch;
  bool skip = false;  // rate-limited: write nothing
};

// The same Event in the model's form, for its encoder and decoder (the one Event codec).
Event to_event(const EventRecord& record);
EventRecord to_event_record(const Event& event);

class EventCorrelator {
 public:
  explicit EventCorrelator(CorrelatorOptions options = {});
  ~EventCorrelator();
  EventCorrelator(const EventCorrelator&) = delete;
  EventCorrelator& operator=(const EventCorrelator&) = delete;

  CorrelationResult correlate(const EventRecord& event, std::chrono::system_clock::time_point now);
  // Records what the server returned (name, resourceVersion, count) for later correlation.
  void update_state(const EventRecord& written);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tailor::kube
