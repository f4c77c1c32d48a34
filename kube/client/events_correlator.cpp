#include "kube/client/events_correlator.h"

#include <algorithm>
#include <cstdio>
#include <list>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "kube/model/encode.h"
#include "kube/model/time.h"

namespace tailor::kube {
namespace {

using Clock = std::chrono::system_clock;

// A least-recently-used map, as client-go's caches are (groupcache/lru).
template <class V>
class Lru {
 public:
  explicit Lru(std::size_t capacity) : capacity_(capacity) {}
  V* find(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return nullptr;
    order_.splice(order_.begin(), order_, it->second);
    return &it->second->second;
  }
  void put(const std::string& key, V value) {
    if (V* existing = find(key)) {
      *existing = std::move(value);
      return;
    }
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
  }

 private:
  std::size_t capacity_;
  std::list<std::pair<std::string, V>> order_;
  std::unordered_map<std::string, typename decltype(order_)::iterator> index_;
};

std::string join(std::initializer_list<std::string_view> parts) {
  std::string key;
  for (auto part : parts) key.append(part).push_back('\x1f');
  return key;
}

std::string object_part(const EventObjectRef& o) {
  return join({o.kind, o.namespace_, o.name, o.uid, o.api_version});
}

// Identical events: everything but the time.
std::string event_key(const EventRecord& e) {
  return join({e.source_component, e.source_host, object_part(e.involved_object),
               e.involved_object.field_path, e.type, e.reason, e.message});
}

// Similar events: the same but for the message.
std::string aggregate_key(const EventRecord& e) {
  return join({e.source_component, e.source_host, object_part(e.involved_object), e.type, e.reason,
               e.reporting_controller, e.reporting_instance});
}

std::string spam_key(const EventRecord& e) {
  return join({e.source_component, e.source_host, object_part(e.involved_object)});
}

struct AggregateRecord {
  std::set<std::string> messages;
  Clock::time_point last{};
};

struct ObservedEvent {
  int count = 0;
  std::string first_timestamp, name, resource_version;
};

struct TokenBucket {
  double tokens;
  Clock::time_point last;
};

std::string hex_nanos(Clock::time_point now) {
  char text[32];
  auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch());
  std::snprintf(text, sizeof text, "%llx", static_cast<unsigned long long>(nanos.count()));
  return text;
}

}  // namespace

struct EventCorrelator::State {
  explicit State(const CorrelatorOptions& o)
      : options(o), aggregates(o.cache_size), observed(o.cache_size), buckets(o.cache_size) {}

  // Folds the event into a combined one once enough similar events were seen; returns the
  // event to record and the key it is tracked under.
  std::pair<EventRecord, std::string> aggregate(const EventRecord& event, Clock::time_point now) {
    std::string key = aggregate_key(event);
    AggregateRecord record;
    if (AggregateRecord* found = aggregates.find(key)) record = *found;
    if (now - record.last > options.similar_interval) record = AggregateRecord{};
    record.messages.insert(event.message);
    record.last = now;
    if (record.messages.size() < options.max_similar) {
      aggregates.put(key, record);
      return {event, event_key(event)};
    }
    // Keep the set from growing past the threshold.
    record.messages.erase(record.messages.begin());
    aggregates.put(key, record);
    EventRecord combined = event;
    combined.name = event.involved_object.name + "." + hex_nanos(now);
    combined.resource_version.clear();
    combined.message = "(combined from similar events): " + event.message;
    combined.count = 1;
    combined.first_timestamp = combined.last_timestamp = format_rfc3339(now);
    return {combined, key};
  }

  // Counts repeats of the event tracked under `key`; a repeat becomes a patch of the Event
  // first created for it.
  CorrelationResult observe(EventRecord event, const std::string& key) {
    CorrelationResult result;
    if (ObservedEvent* last = observed.find(key); last && last->count > 0) {
      event.name = last->name;
      event.resource_version = last->resource_version;
      event.first_timestamp = last->first_timestamp;
      event.count = last->count + 1;
      result.patch = event_repeat_patch(to_event(event));
    }
    observed.put(key, {event.count, event.first_timestamp, event.name, event.resource_version});
    result.event = std::move(event);
    return result;
  }

  bool rate_limited(const EventRecord& event, Clock::time_point now) {
    std::string key = spam_key(event);
    TokenBucket bucket{options.spam_burst, now};
    if (TokenBucket* found = buckets.find(key)) bucket = *found;
    double elapsed = std::chrono::duration<double>(now - bucket.last).count();
    bucket.tokens = std::min(options.spam_burst,
                             bucket.tokens + std::max(0.0, elapsed) * options.spam_per_second);
    bucket.last = std::max(bucket.last, now);
    bool allowed = bucket.tokens >= 1.0;
    if (allowed) bucket.tokens -= 1.0;
    buckets.put(key, bucket);
    return !allowed;
  }

  CorrelatorOptions options;
  Lru<AggregateRecord> aggregates;
  Lru<ObservedEvent> observed;
  Lru<TokenBucket> buckets;
};

EventCorrelator::EventCorrelator(CorrelatorOptions options) {
  if (options.cache_size == 0 || options.max_similar == 0 || options.spam_burst < 1 ||
      options.spam_per_second < 0) {
    throw std::invalid_argument(
        "event correlator: need cache_size > 0, max_similar > 0, spam_burst >= 1, "
        "spam_per_second >= 0");
  }
  state_ = std::make_unique<State>(options);
}

EventCorrelator::~EventCorrelator() = default;

// The order is client-go's: aggregate, then count, then rate-limit (so a dropped event still
// counts towards the next one that gets through).
CorrelationResult EventCorrelator::correlate(const EventRecord& event, Clock::time_point now) {
  auto [aggregated, key] = state_->aggregate(event, now);
  CorrelationResult result = state_->observe(std::move(aggregated), key);
  result.skip = state_->rate_limited(result.event, now);
  return result;
}

void EventCorrelator::update_state(const EventRecord& written) {
  state_->observed.put(event_key(written), {written.count, written.first_timestamp, written.name,
                                            written.resource_version});
}

Event to_event(const EventRecord& r) {
  Event e;
  e.metadata.namespace_ = r.namespace_;
  e.metadata.name = r.name;
  e.metadata.resource_version = r.resource_version;
  e.involved_object = r.involved_object;
  e.type = r.type;
  e.reason = r.reason;
  e.message = r.message;
  e.source = {r.source_component, r.source_host};
  e.reporting_component = r.reporting_controller;
  e.reporting_instance = r.reporting_instance;
  e.first_timestamp = r.first_timestamp;
  e.last_timestamp = r.last_timestamp;
  e.count = r.count;
  return e;
}

EventRecord to_event_record(const Event& e) {
  EventRecord r;
  r.namespace_ = e.metadata.namespace_;
  r.name = e.metadata.name;
  r.resource_version = e.metadata.resource_version;
  r.involved_object = e.involved_object;
  r.type = e.type;
  r.reason = e.reason;
  r.message = e.message;
  r.source_component = e.source.component;
  r.source_host = e.source.host;
  r.reporting_controller = e.reporting_component;
  r.reporting_instance = e.reporting_instance;
  r.first_timestamp = e.first_timestamp;
  r.last_timestamp = e.last_timestamp;
  r.count = e.count;
  return r;
}

}  // namespace tailor::kube
