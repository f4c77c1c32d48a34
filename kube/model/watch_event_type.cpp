#include "kube/model/watch_event_type.h"

#include <string>

#include "kube/model/decode.h"

namespace tailor::kube {

std::optional<WatchEventType> watch_event_type_from(std::string_view text) {
  if (text == "ADDED") return WatchEventType::Added;
  if (text == "MODIFIED") return WatchEventType::Modified;
  if (text == "DELETED") return WatchEventType::Deleted;
  if (text == "BOOKMARK") return WatchEventType::Bookmark;
  if (text == "ERROR") return WatchEventType::Error;
  return std::nullopt;
}

WatchEventType parse_watch_event_type(std::string_view text) {
  if (auto type = watch_event_type_from(text)) return *type;
  throw DecodeError("", "unknown watch event type \"" + std::string(text) + "\"");
}

std::string_view to_string(WatchEventType type) {
  switch (type) {
    case WatchEventType::Added:
      return "ADDED";
    case WatchEventType::Modified:
      return "MODIFIED";
    case WatchEventType::Deleted:
      return "DELETED";
    case WatchEventType::Bookmark:
      return "BOOKMARK";
    case WatchEventType::Error:
      return "ERROR";
  }
  return "UNKNOWN";
}

}  // namespace tailor::kube
