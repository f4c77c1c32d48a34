// Decoding what the API server sends back, apart from objects: Status bodies of failed requests
// (into ApiError) and watch streams (newline-delimited JSON events, split across chunks
// anywhere).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "kube/client/rest_client.h"

namespace tailor::kube {

// The StatusReason the API server uses for an HTTP code ("Conflict" for 409, "Expired" is only
// ever in a Status body), for answers without a Status, e.g. API Priority and Fairness's 429.
std::string reason_for_code(int code);

// The error for a non-2xx answer: code, reason and message from a Status body when there is
// one; otherwise the HTTP code's reason and the body's text (shortened) as the message.
ApiError api_error_from_response(int status, std::string_view body, const std::string& what);

// One event line {"type":"ADDED","object":{...}}. Throws ResponseError naming what is wrong.
RawWatchEvent decode_raw_watch_event(std::string_view line);

// Cuts a byte stream into lines; a line split across chunks is joined. Blank lines are skipped.
class WatchLineBuffer {
 public:
  // Calls on_line for each complete line in data; stops (returning false) when on_line does.
  bool feed(std::string_view data, const std::function<bool(std::string_view)>& on_line);
  std::size_t pending_bytes() const { return partial_.size(); }

 private:
  std::string partial_;
};

}  // namespace tailor::kube
