#include "controller/kube/client/events_sink.h"

#include <boost/json.hpp>
#include <limits>
#include <stdexcept>

namespace tailor::kube {
namespace {

namespace json = boost::json;

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("Event JSON: " + what);
}

void put_if(json::object& o, std::string_view key, const std::string& value) {
  if (!value.empty()) o[key] = value;
}

json::object reference_json(const EventObjectRef& r) {
  json::object o;
  put_if(o, "kind", r.kind);
  put_if(o, "namespace", r.namespace_);
  put_if(o, "name", r.name);
  put_if(o, "uid", r.uid);
  put_if(o, "apiVersion", r.api_version);
  put_if(o, "resourceVersion", r.resource_version);
  put_if(o, "fieldPath", r.field_path);
  return o;
}

std::string text_at(const json::object& o, std::string_view key, std::string_view where) {
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return "";
  if (!v->is_string()) bad(std::string(where) + std::string(key) + ": expected a string");
  return std::string(v->get_string());
}

const json::object& object_at(const json::object& o, std::string_view key) {
  static const json::object empty;
  const json::value* v = o.if_contains(key);
  if (!v || v->is_null()) return empty;
  if (!v->is_object()) bad(std::string(key) + ": expected an object");
  return v->get_object();
}

int count_at(const json::object& o) {
  const json::value* v = o.if_contains("count");
  if (!v || v->is_null()) return 0;
  if (!v->is_int64() || v->get_int64() < 0 ||
      v->get_int64() > std::numeric_limits<std::int32_t>::max()) {
    bad("count: expected a non-negative 32-bit integer");
  }
  return static_cast<int>(v->get_int64());
}

EventObjectRef parse_reference(const json::object& o) {
  const char* at = "involvedObject.";
  return {text_at(o, "kind", at),       text_at(o, "namespace", at),
          text_at(o, "name", at),       text_at(o, "uid", at),
          text_at(o, "apiVersion", at), text_at(o, "resourceVersion", at),
          text_at(o, "fieldPath", at)};
}

}  // namespace

std::string event_json(const EventRecord& e) {
  json::object o;
  o["apiVersion"] = "v1";
  o["kind"] = "Event";
  json::object meta{{"name", e.name}, {"namespace", e.namespace_}};
  put_if(meta, "resourceVersion", e.resource_version);
  o["metadata"] = std::move(meta);
  o["involvedObject"] = reference_json(e.involved_object);
  o["reason"] = e.reason;
  o["message"] = e.message;
  json::object source;
  put_if(source, "component", e.source_component);
  put_if(source, "host", e.source_host);
  o["source"] = std::move(source);
  o["firstTimestamp"] = e.first_timestamp;
  o["lastTimestamp"] = e.last_timestamp;
  o["count"] = e.count;
  o["type"] = e.type;
  o["eventTime"] = nullptr;
  put_if(o, "reportingComponent", e.reporting_controller);
  put_if(o, "reportingInstance", e.reporting_instance);
  return json::serialize(o);
}

EventRecord parse_event(std::string_view text) {
  json::error_code error;
  json::value doc = json::parse(text, error);
  if (error) bad("malformed: " + error.message());
  if (!doc.is_object()) bad("expected an object");
  const json::object& o = doc.get_object();
  const json::object& meta = object_at(o, "metadata");
  const json::object& source = object_at(o, "source");
  EventRecord e;
  e.namespace_ = text_at(meta, "namespace", "metadata.");
  e.name = text_at(meta, "name", "metadata.");
  e.resource_version = text_at(meta, "resourceVersion", "metadata.");
  e.involved_object = parse_reference(object_at(o, "involvedObject"));
  e.type = text_at(o, "type", "");
  e.reason = text_at(o, "reason", "");
  e.message = text_at(o, "message", "");
  e.source_component = text_at(source, "component", "source.");
  e.source_host = text_at(source, "host", "source.");
  e.reporting_controller = text_at(o, "reportingComponent", "");
  e.reporting_instance = text_at(o, "reportingInstance", "");
  e.first_timestamp = text_at(o, "firstTimestamp", "");
  e.last_timestamp = text_at(o, "lastTimestamp", "");
  e.count = count_at(o);
  return e;
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
