// The type of a watch event, shared by the typed model (WatchEvent<T>) and the raw REST client
// stream (RawWatchEvent), so both speak of the same values.
#pragma once

#include <optional>
#include <string_view>

namespace tailor::kube {

enum class WatchEventType { Added, Modified, Deleted, Bookmark, Error };

// "ADDED" -> Added, ...; nullopt for anything else.
std::optional<WatchEventType> watch_event_type_from(std::string_view text);
// As watch_event_type_from; throws DecodeError for an unknown type.
WatchEventType parse_watch_event_type(std::string_view text);
std::string_view to_string(WatchEventType type);

}  // namespace tailor::kube
