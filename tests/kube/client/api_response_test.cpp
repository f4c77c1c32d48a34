// Status bodies into ApiError, watch event decoding and line splitting.
#include "kube/client/api_response.h"

#include <gtest/gtest.h>

namespace tailor::kube {
namespace {

TEST(ApiErrorFromResponse, ReadsTheStatusObject) {
  ApiError error = api_error_from_response(
      409,
      R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on pods \"web-0\": the object has been modified","reason":"Conflict","details":{"name":"web-0","kind":"pods"},"code":409})",
      "PUT /api/v1/namespaces/default/pods/web-0");
  EXPECT_EQ(error.code(), 409);
  EXPECT_EQ(error.reason(), "Conflict");
  EXPECT_EQ(error.status_message(),
            "Operation cannot be fulfilled on pods \"web-0\": the object has been modified");
  EXPECT_TRUE(error.is_conflict());
  EXPECT_NE(std::string(error.what()).find("409 Conflict"), std::string::npos);
}

TEST(ApiErrorFromResponse, PlainTextBodiesKeepTheirText) {
  ApiError error = api_error_from_response(429, "Too many requests, please try again later.\n",
                                           "GET /api/v1/pods");
  EXPECT_EQ(error.reason(), "TooManyRequests");
  EXPECT_EQ(error.status_message(), "GET /api/v1/pods: Too many requests, please try again later.");
  EXPECT_EQ(error.body(), "Too many requests, please try again later.\n");
}

TEST(ApiErrorFromResponse, EmptyAndGarbageBodies) {
  ApiError empty = api_error_from_response(503, "", "GET /x");
  EXPECT_EQ(empty.reason(), "ServiceUnavailable");
  EXPECT_EQ(empty.status_message(), "GET /x: the server responded with HTTP 503");
  ApiError truncated = api_error_from_response(500, R"({"kind":"Status","mess)", "GET /x");
  EXPECT_EQ(truncated.reason(), "InternalError");
  ApiError not_status = api_error_from_response(404, R"({"kind":"Pod"})", "GET /x");
  EXPECT_EQ(not_status.reason(), "NotFound");
  ApiError huge = api_error_from_response(502, std::string(10000, 'x'), "GET /x");
  EXPECT_LT(huge.status_message().size(), 600u);
  ApiError odd_code = api_error_from_response(418, "teapot", "GET /x");
  EXPECT_EQ(odd_code.reason(), "Unknown");
}

TEST(ApiErrorFromResponse, StatusWithoutReasonUsesTheCode) {
  ApiError error = api_error_from_response(
      403, R"({"kind":"Status","message":"forbidden","code":403})", "GET /x");
  EXPECT_EQ(error.reason(), "Forbidden");
  EXPECT_TRUE(error.is_forbidden());
}

TEST(WatchEvents, DecodesEachType) {
  struct Case {
    const char* type;
    WatchEventType expected;
  };
  for (const Case& c :
       {Case{"ADDED", WatchEventType::Added}, Case{"MODIFIED", WatchEventType::Modified},
        Case{"DELETED", WatchEventType::Deleted}, Case{"BOOKMARK", WatchEventType::Bookmark},
        Case{"ERROR", WatchEventType::Error}}) {
    std::string line =
        std::string(R"({"type":")") + c.type + R"(","object":{"kind":"Pod","a":[1,{"b":"}"}]}})";
    RawWatchEvent event = decode_raw_watch_event(line);
    EXPECT_EQ(event.type, c.expected) << c.type;
    EXPECT_EQ(event.object, R"({"kind":"Pod","a":[1,{"b":"}"}]})");
  }
}

TEST(WatchEvents, FieldOrderDoesNotMatter) {
  RawWatchEvent event = decode_raw_watch_event(R"({"object":{"x":1},"type":"ADDED"})");
  EXPECT_EQ(event.type, WatchEventType::Added);
  EXPECT_EQ(event.object, R"({"x":1})");
}

TEST(WatchEvents, MalformedEventsAreClearErrors) {
  for (const char* bad : {"garbage", "[]", R"({"type":"ADDED"})", R"({"object":{}})",
                          R"({"type":"EXPLODED","object":{}})", R"({"type":"ADDED","object":"x"})",
                          R"({"type":7,"object":{}})", R"({"type":"ADDED","object":{"a":)"}) {
    EXPECT_THROW(decode_raw_watch_event(bad), ResponseError) << bad;
  }
}

TEST(WatchLineBuffer, JoinsLinesSplitAnywhere) {
  const std::string stream = "{\"a\":1}\n{\"b\":2}\n\n{\"c\":3}\n";
  // Every way of cutting the stream in three gives the same lines.
  for (std::size_t i = 0; i <= stream.size(); ++i) {
    for (std::size_t j = i; j <= stream.size(); ++j) {
      WatchLineBuffer buffer;
      std::vector<std::string> lines;
      auto collect = [&](std::string_view line) {
        lines.emplace_back(line);
        return true;
      };
      buffer.feed(std::string_view(stream).substr(0, i), collect);
      buffer.feed(std::string_view(stream).substr(i, j - i), collect);
      buffer.feed(std::string_view(stream).substr(j), collect);
      ASSERT_EQ(lines, (std::vector<std::string>{"{\"a\":1}", "{\"b\":2}", "{\"c\":3}"}))
          << i << "," << j;
      EXPECT_EQ(buffer.pending_bytes(), 0u);
    }
  }
}

TEST(WatchLineBuffer, StopsWhenAskedAndKeepsPartialLines) {
  WatchLineBuffer buffer;
  int calls = 0;
  EXPECT_FALSE(buffer.feed("one\ntwo\n", [&](std::string_view) { return ++calls < 1; }));
  EXPECT_EQ(calls, 1);
  WatchLineBuffer partial;
  partial.feed("abc", [](std::string_view) { return true; });
  EXPECT_EQ(partial.pending_bytes(), 3u);
}

}  // namespace
}  // namespace tailor::kube
