#include "kube/client/api_response.h"

#include <simdjson.h>

#include <cctype>

namespace tailor::kube {
namespace {

constexpr std::size_t kMaxMessage = 512;

std::string shortened(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  if (text.size() <= kMaxMessage) return std::string(text);
  return std::string(text.substr(0, kMaxMessage)) + "...";
}

struct StatusFields {
  std::string reason;
  std::string message;
  std::int64_t code = 0;
};

// Reads a Status object; false when body is not one.
bool decode_status(std::string_view body, StatusFields& out) {
  simdjson::padded_string padded(body);
  simdjson::ondemand::parser parser;
  try {
    auto doc = parser.iterate(padded);
    simdjson::ondemand::object object = doc.get_object();
    bool is_status = false;
    for (auto field : object) {
      std::string_view key = field.unescaped_key();
      if (key == "kind") {
        is_status = std::string_view(field.value().get_string()) == "Status";
      } else if (key == "reason") {
        out.reason = std::string(std::string_view(field.value().get_string()));
      } else if (key == "message") {
        out.message = std::string(std::string_view(field.value().get_string()));
      } else if (key == "code") {
        out.code = field.value().get_int64();
      }
    }
    return is_status;
  } catch (const simdjson::simdjson_error&) {
    return false;
  }
}

WatchEventType event_type(std::string_view type, std::string_view line) {
  if (auto known = watch_event_type_from(type)) return *known;
  throw ResponseError("watch event of unknown type '" + std::string(type) +
                      "': " + shortened(line));
}

}  // namespace

std::string reason_for_code(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

ApiError api_error_from_response(int status, std::string_view body, const std::string& what) {
  StatusFields fields;
  if (decode_status(body, fields)) {
    std::string reason = fields.reason.empty() ? reason_for_code(status) : fields.reason;
    return ApiError(status, reason, fields.message, std::string(body));
  }
  std::string message = shortened(body);
  if (message.empty()) message = "the server responded with HTTP " + std::to_string(status);
  return ApiError(status, reason_for_code(status), what + ": " + message, std::string(body));
}

RawWatchEvent decode_raw_watch_event(std::string_view line) {
  simdjson::padded_string padded(line);
  simdjson::ondemand::parser parser;
  try {
    auto doc = parser.iterate(padded);
    simdjson::ondemand::object object = doc.get_object();
    std::string_view type = object["type"].get_string();
    RawWatchEvent event{event_type(type, line), {}};
    simdjson::ondemand::value value = object["object"];
    if (value.type() != simdjson::ondemand::json_type::object) {
      throw ResponseError("watch event whose object is not a JSON object: " + shortened(line));
    }
    event.object = std::string(simdjson::to_json_string(value).value());
    return event;
  } catch (const simdjson::simdjson_error& e) {
    throw ResponseError("malformed watch event (" + std::string(e.what()) +
                        "): " + shortened(line));
  }
}

bool WatchLineBuffer::feed(std::string_view data,
                           const std::function<bool(std::string_view)>& on_line) {
  while (!data.empty()) {
    auto newline = data.find('\n');
    if (newline == std::string_view::npos) {
      partial_.append(data);
      return true;
    }
    std::string_view piece = data.substr(0, newline);
    data.remove_prefix(newline + 1);
    std::string_view line = piece;
    if (!partial_.empty()) {
      partial_.append(piece);
      line = partial_;
    }
    bool go_on = true;
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) go_on = on_line(line);
    partial_.clear();
    if (!go_on) return false;
  }
  return true;
}

}  // namespace tailor::kube
