// Entry points: padding, the per-thread parser, root and list envelopes, watch events.
#include "kube/model/decode.h"

#include <atomic>
#include <cstring>
#include <memory>

#include "kube/model/json_reader.h"

namespace tailor::kube {
namespace {

namespace od = simdjson::ondemand;
using json::fail;
using json::fail_syntax;
using json::for_each_field;

static_assert(kJsonPadding >= simdjson::SIMDJSON_PADDING);

std::atomic<std::size_t> retained_bytes{kDefaultJsonParserRetention};

// Parser and copy buffer are per thread and keep their capacity between documents, up to the
// retention limit: simdjson sizes its index and string buffers from the document (several bytes
// per input byte), so one huge unpaginated list must not pin them for the life of the thread.
class ThreadParser {
 public:
  void trim() {
    std::size_t limit = retained_bytes.load(std::memory_order_relaxed);
    if (parser_.capacity() > limit) parser_ = od::parser();
    if (capacity_ > limit) {
      buffer_.reset();
      capacity_ = 0;
    }
  }

  od::document iterate(JsonInput input) {
    std::string_view json = input.text();
    const char* data = json.data();
    std::size_t readable = json.size() + kJsonPadding;
    if (!input.padded()) {
      data = copy_padded(json);
      readable = capacity_;
    }
    od::document doc;
    if (auto error = parser_.iterate(data, json.size(), readable).get(doc)) fail_syntax(error);
    return doc;
  }

 private:
  const char* copy_padded(std::string_view json) {
    std::size_t needed = json.size() + kJsonPadding;
    if (needed > capacity_) {
      buffer_ = std::make_unique_for_overwrite<char[]>(needed);
      capacity_ = needed;
    }
    if (!json.empty()) std::memcpy(buffer_.get(), json.data(), json.size());
    std::memset(buffer_.get() + json.size(), ' ', kJsonPadding);
    return buffer_.get();
  }

  od::parser parser_;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
};

thread_local ThreadParser tls_parser;

// Every document Tailor decodes is an object; checking the root's type here keeps the
// type-mismatch path (which inspects the value) away from simdjson's special root values.
od::value root_value(od::document& doc) {
  od::json_type type;
  if (auto error = doc.type().get(type)) fail_syntax(error);
  if (type != od::json_type::object) {
    fail("expected an object, got " + std::string(json::type_name(type)));
  }
  od::value root;
  if (auto error = doc.get_value().get(root)) fail_syntax(error);
  return root;
}

void expect_end(od::document& doc) {
  const char* location = nullptr;
  if (!doc.current_location().get(location)) fail("unexpected content after the JSON document");
}

// Trims the thread's parser once the document (which refers to it) is gone.
struct TrimAfterUse {
  ~TrimAfterUse() { tls_parser.trim(); }
};

template <class F>
void decode_document(JsonInput json, F&& read_root) {
  TrimAfterUse trim;
  od::document doc = tls_parser.iterate(json);
  od::value root = root_value(doc);
  read_root(root);
  expect_end(doc);
}

}  // namespace

template <class T>
T decode(JsonInput json) {
  T out;
  decode_document(json, [&](od::value& root) { json::read(root, out); });
  return out;
}

template <class T>
List<T> decode_list(JsonInput json) {
  List<T> list;
  decode_document(json, [&](od::value& root) {
    for_each_field(root, [&](std::string_view key, od::value& f) {
      if (key == "items")
        json::read(f, list.items);
      else if (key == "metadata")
        json::read(f, list.metadata);
    });
  });
  return list;
}

namespace {
template <class T>
void read_event_object(od::value& value, WatchEvent<T>& event) {
  if (event.type == WatchEventType::Error) {
    json::read(value, event.error.emplace());
  } else {
    json::read(value, event.object);
  }
}

[[noreturn]] void fail_missing(std::string_view name) {
  DecodeError e("", "missing");
  e.add_field(name);
  throw e;
}
}  // namespace

// "type" normally comes first; when "object" comes first its text is kept and decoded once the
// type is known (any JSON encoder may order members differently).
template <class T>
WatchEvent<T> decode_watch_event(JsonInput json) {
  WatchEvent<T> event;
  bool have_type = false;
  bool have_object = false;
  std::string deferred_object;
  decode_document(json, [&](od::value& root) {
    for_each_field(root, [&](std::string_view key, od::value& f) {
      if (key == "type") {
        std::string text;
        json::read(f, text);
        event.type = parse_watch_event_type(text);
        have_type = true;
      } else if (key == "object") {
        have_object = true;
        if (have_type) return read_event_object(f, event);
        od::object object;
        if (auto error = f.get_object().get(object)) json::fail_type(f, error, "an object");
        std::string_view raw;
        if (auto error = object.raw_json().get(raw)) fail_syntax(error);
        deferred_object.assign(raw);
      }
    });
  });
  if (!have_type) fail_missing("type");
  if (!have_object) fail_missing("object");
  if (!deferred_object.empty()) {
    decode_document(deferred_object, [&](od::value& object) {
      try {
        read_event_object(object, event);
      } catch (DecodeError& e) {
        e.add_field("object");
        throw;
      }
    });
  }
  return event;
}

void set_json_parser_retention(std::size_t bytes) {
  retained_bytes.store(bytes, std::memory_order_relaxed);
}

template Pod decode<Pod>(JsonInput);
template Node decode<Node>(JsonInput);
template Event decode<Event>(JsonInput);
template Lease decode<Lease>(JsonInput);
template Status decode<Status>(JsonInput);
template PartialObjectMetadata decode<PartialObjectMetadata>(JsonInput);
template PodList decode_list<Pod>(JsonInput);
template NodeList decode_list<Node>(JsonInput);
template EventList decode_list<Event>(JsonInput);
template LeaseList decode_list<Lease>(JsonInput);
template PartialObjectMetadataList decode_list<PartialObjectMetadata>(JsonInput);
template WatchEvent<Pod> decode_watch_event<Pod>(JsonInput);
template WatchEvent<Node> decode_watch_event<Node>(JsonInput);
template WatchEvent<Event> decode_watch_event<Event>(JsonInput);
template WatchEvent<Lease> decode_watch_event<Lease>(JsonInput);
template WatchEvent<PartialObjectMetadata> decode_watch_event<PartialObjectMetadata>(JsonInput);

}  // namespace tailor::kube
