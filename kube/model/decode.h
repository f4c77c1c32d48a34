// Decoding API JSON into the typed model with simdjson's on-demand parser (simdjson stays in
// the .cpp files). Unknown fields are skipped; null counts as absent, as in Go's decoder.
// Quantities may be JSON strings or numbers ("cpu": 1), as apimachinery accepts.
//
// Errors: any bad input (malformed or truncated JSON, wrong types, out-of-range numbers,
// invalid quantities) throws DecodeError, whose message starts with the JSON path, e.g.
// "spec.containers[1].resources.limits.memory: quantities must match ...".
// Control characters quoted from the input (in a value or a key) are written as \xNN, so what()
// holds the whole message.
//
// The on-demand parser only validates what it reads: bytes inside skipped (unknown) fields are
// checked for string/bracket structure and UTF-8, not fully. The API server only sends valid
// JSON, and nothing of a skipped field reaches the model.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "kube/model/list.h"

namespace tailor::kube {

class DecodeError : public std::runtime_error {
 public:
  DecodeError(std::string path, std::string detail);
  const std::string& path() const { return path_; }      // "" for the document root
  const std::string& detail() const { return detail_; }  // what is wrong there
  const char* what() const noexcept override { return message_.c_str(); }

  // Used while unwinding: the error happened inside field `name` / element `index`.
  void add_field(std::string_view name);
  void add_index(std::size_t index);

 private:
  void prepend(std::string segment);
  void rebuild();
  std::string path_;
  std::string detail_;
  std::string message_;
};

// simdjson reads up to kJsonPadding bytes past the end of a document. A std::string whose
// capacity() leaves that much room (see reserve_json_padding) is parsed in place; any other input
// is first copied into a reused per-thread buffer.
inline constexpr std::size_t kJsonPadding = 64;

class JsonInput {
 public:
  JsonInput(const char* text) : text_(text) {}
  JsonInput(std::string_view text) : text_(text) {}
  JsonInput(const std::string& text) : text_(text), readable_(text.capacity()) {}
  std::string_view text() const { return text_; }
  bool padded() const { return readable_ >= text_.size() + kJsonPadding; }

 private:
  std::string_view text_;
  std::size_t readable_ = 0;  // bytes readable from text_.data()
};

// For bodies that will be decoded: makes room so that decoding need not copy them.
inline void reserve_json_padding(std::string& body) { body.reserve(body.size() + kJsonPadding); }

// One object from a GET / create / update / patch answer.
template <class T>
T decode(JsonInput json);
// A list answer (GET on a collection).
template <class T>
List<T> decode_list(JsonInput json);
// One line of a watch stream: {"type": "...", "object": {...}}.
template <class T>
WatchEvent<T> decode_watch_event(JsonInput json);

// Defined for Pod, Node, Event, Lease, PartialObjectMetadata (and decode<Status>).
extern template Pod decode<Pod>(JsonInput);
extern template Node decode<Node>(JsonInput);
extern template Event decode<Event>(JsonInput);
extern template Lease decode<Lease>(JsonInput);
extern template Status decode<Status>(JsonInput);
extern template PartialObjectMetadata decode<PartialObjectMetadata>(JsonInput);
extern template PodList decode_list<Pod>(JsonInput);
extern template NodeList decode_list<Node>(JsonInput);
extern template EventList decode_list<Event>(JsonInput);
extern template LeaseList decode_list<Lease>(JsonInput);
extern template PartialObjectMetadataList decode_list<PartialObjectMetadata>(JsonInput);
extern template WatchEvent<Pod> decode_watch_event<Pod>(JsonInput);
extern template WatchEvent<Node> decode_watch_event<Node>(JsonInput);
extern template WatchEvent<Event> decode_watch_event<Event>(JsonInput);
extern template WatchEvent<Lease> decode_watch_event<Lease>(JsonInput);
extern template WatchEvent<PartialObjectMetadata> decode_watch_event<PartialObjectMetadata>(
    JsonInput);

inline Pod decode_pod(JsonInput json) { return decode<Pod>(json); }
inline PodList decode_pod_list(JsonInput json) { return decode_list<Pod>(json); }
inline Node decode_node(JsonInput json) { return decode<Node>(json); }
inline NodeList decode_node_list(JsonInput json) { return decode_list<Node>(json); }
inline Event decode_event(JsonInput json) { return decode<Event>(json); }
inline Lease decode_lease(JsonInput json) { return decode<Lease>(json); }
inline Status decode_status(JsonInput json) { return decode<Status>(json); }

// Each thread keeps its parser buffers for the next document when they were sized for documents
// of at most this many bytes (default 16 MiB: pages of a paginated list, watch events); buffers
// for bigger documents are freed after use. Process-wide.
inline constexpr std::size_t kDefaultJsonParserRetention = std::size_t{16} << 20;
void set_json_parser_retention(std::size_t document_bytes);

}  // namespace tailor::kube
