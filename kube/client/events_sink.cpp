#include "kube/client/events_sink.h"

#include <stdexcept>

#include "kube/model/decode.h"
#include "kube/model/encode.h"

namespace tailor::kube {

std::string event_json(const EventRecord& event) { return to_json(to_event(event)); }

EventRecord parse_event(std::string_view json) {
  try {
    return to_event_record(decode<Event>(json));
  } catch (const DecodeError& e) {
    // invalid_argument: the recorder treats an unreadable answer as written, not retryable.
    throw std::invalid_argument(std::string("Event JSON: ") + e.what());
  }
}

RestEventSink::RestEventSink(RestClient& client) : client_(client) {}

EventRecord RestEventSink::create(const EventRecord& event) {
  ObjectRef ref{resources::kEvents, event.namespace_, "", ""};
  return parse_event(client_.create(ref, event_json(event)));
}

EventRecord RestEventSink::patch(const EventRecord& event, const std::string& patch) {
  ObjectRef ref{resources::kEvents, event.namespace_, event.name, ""};
  return parse_event(client_.patch(ref, PatchType::StrategicMerge, patch));
}

}  // namespace tailor::kube
