// EventSink: where the recorder writes Events (create, or patch an existing one), so the
// recorder runs against a fake; RestEventSink writes core/v1 Events through the RestClient.
#pragma once

#include <string>
#include <string_view>

#include "kube/client/events_correlator.h"
#include "kube/client/rest_client.h"

namespace tailor::kube {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Both return the Event as the server stored it; they throw ApiError or TransportError.
  virtual EventRecord create(const EventRecord& event) = 0;
  virtual EventRecord patch(const EventRecord& event, const std::string& patch) = 0;
};

// core/v1 Event JSON for a create (the model's encoder).
std::string event_json(const EventRecord& event);
// Reads an Event as the server returns it with the model's decoder; throws
// std::invalid_argument with the DecodeError's message (the JSON path at fault).
EventRecord parse_event(std::string_view json);

class RestEventSink : public EventSink {
 public:
  explicit RestEventSink(RestClient& client);  // client must outlive the sink
  EventRecord create(const EventRecord& event) override;
  EventRecord patch(const EventRecord& event, const std::string& patch) override;

 private:
  RestClient& client_;
};

}  // namespace tailor::kube
