// Decoding API JSON into the typed model with simdjson's on-demand parser (simdjson stays in
// the .cpp files). Unknown fields are skipped; null counts as absent, as in Go's decoder.
// Quantities may be JSON strings or numbers ("cpu": 1), as apimachinery accepts.
//
// Errors: any bad input (malformed or truncated JSON, wrong types, out-of-range numbers,
// invalid quantities) throws DecodeError, whose message starts with the JSON path, e.g.
// "spec.containers[1].resources.limits.memory: quantities must match ...".
//
// The on-demand parser only validates what it reads: bytes inside skipped (unknown) fields are
// checked for string/bracket structure and UTF-8, not fully. The API server only sends valid
// JSON, and nothing of a skipped field reaches the model.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "controller/kube/model/list.h"

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

// One object from a GET / create / update / patch answer.
template <class T>
T decode(std::string_view json);
// A list answer (GET on a collection).
template <class T>
List<T> decode_list(std::string_view json);
// One line of a watch stream: {"type": "...", "object": {...}}.
template <class T>
WatchEvent<T> decode_watch_event(std::string_view json);

// Defined for Pod, Node, Event, Lease (and decode<Status>).
extern template Pod decode<Pod>(std::string_view);
extern template Node decode<Node>(std::string_view);
extern template Event decode<Event>(std::string_view);
extern template Lease decode<Lease>(std::string_view);
extern template Status decode<Status>(std::string_view);
extern template PodList decode_list<Pod>(std::string_view);
extern template NodeList decode_list<Node>(std::string_view);
extern template EventList decode_list<Event>(std::string_view);
extern template LeaseList decode_list<Lease>(std::string_view);
extern template WatchEvent<Pod> decode_watch_event<Pod>(std::string_view);
extern template WatchEvent<Node> decode_watch_event<Node>(std::string_view);
extern template WatchEvent<Event> decode_watch_event<Event>(std::string_view);
extern template WatchEvent<Lease> decode_watch_event<Lease>(std::string_view);

inline Pod decode_pod(std::string_view json) { return decode<Pod>(json); }
inline PodList decode_pod_list(std::string_view json) { return decode_list<Pod>(json); }
inline Node decode_node(std::string_view json) { return decode<Node>(json); }
inline NodeList decode_node_list(std::string_view json) { return decode_list<Node>(json); }
inline Event decode_event(std::string_view json) { return decode<Event>(json); }
inline Lease decode_lease(std::string_view json) { return decode<Lease>(json); }
inline Status decode_status(std::string_view json) { return decode<Status>(json); }

// "ADDED" -> Added, ...; throws DecodeError for an unknown type.
WatchEventType parse_watch_event_type(std::string_view text);
std::string_view to_string(WatchEventType type);

}  // namespace tailor::kube
