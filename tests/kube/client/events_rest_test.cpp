// The event recorder over the real RestClient against the in-process HTTPS API server: POST
// for new Events, strategic-merge PATCH for repeats, combined similar events.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <mutex>

#include "kube/client/events.h"
#include "kube/client/rest_client.h"
#include "tests/support/test_api_server.h"

namespace tailor::kube {
namespace {

namespace json = boost::json;
using kube::testing::json_response;
using kube::testing::status_response;
using kube::testing::TestApiServer;

const std::string kEvents = "/api/v1/namespaces/shop/events";

// Events of one namespace: create, and strategic-merge patch of count/lastTimestamp/message.
class EventsEndpoint {
 public:
  void serve(TestApiServer& server) {
    server.on("POST", kEvents, [this, &server](http::Exchange& ex) {
      json::object event = json::parse(ex.request().body).as_object();
      std::string name(event["metadata"].as_object()["name"].as_string());
      {
        std::lock_guard lock(mutex_);
        if (events_.count(name)) {
          ex.respond(status_response(409, "AlreadyExists", "events \"" + name + "\" exists"));
          return;
        }
        event["metadata"].as_object()["resourceVersion"] = std::to_string(++version_);
        events_[name] = event;
      }
      server.on("PATCH", kEvents + "/" + name,
                [this, name](http::Exchange& p) { p.respond(patch(name, p.request())); });
      ex.respond(json_response(201, json::serialize(event)));
    });
  }
  std::map<std::string, json::object> events() {
    std::lock_guard lock(mutex_);
    return events_;
  }

 private:
  http::ServerResponse patch(const std::string& name, const http::ServerRequest& request) {
    if (request.header("Content-Type") != "application/strategic-merge-patch+json") {
      return status_response(415, "UnsupportedMediaType", "expected a strategic merge patch");
    }
    std::lock_guard lock(mutex_);
    auto& event = events_.at(name);
    json::value patch = json::parse(request.body);
    for (const auto& [key, value] : patch.as_object()) event[key] = value;
    event["metadata"].as_object()["resourceVersion"] = std::to_string(++version_);
    return json_response(200, json::serialize(event));
  }

  std::mutex mutex_;
  std::map<std::string, json::object> events_;
  int version_ = 0;
};

class EventsRestTest : public ::testing::Test {
 protected:
  EventsRestTest() {
    endpoint_.serve(server_);
    client_ = std::make_unique<RestClient>(server_.config());
  }
  EventsEndpoint endpoint_;  // outlives the server's connection threads
  TestApiServer server_;
  std::unique_ptr<RestClient> client_;
};

const EventObjectRef kPod{"Pod", "shop", "web-0", "uid-1", "v1", "", ""};

TEST_F(EventsRestTest, RepeatsPatchTheCountOfOneEvent) {
  EventRecorder recorder(std::make_shared<RestEventSink>(*client_),
                         {"tailor-controller", "node-1"});
  for (int i = 0; i < 3; ++i) {
    recorder.event(kPod, kEventTypeNormal, "ResizeStarted", "cpu 100m -> 250m");
  }
  ASSERT_TRUE(recorder.flush(std::chrono::seconds(30)));
  auto events = endpoint_.events();
  ASSERT_EQ(events.size(), 1u);
  auto& e = events.begin()->second;
  EXPECT_EQ(e["count"].as_int64(), 3);
  EXPECT_EQ(e["reason"].as_string(), "ResizeStarted");
  EXPECT_EQ(e["involvedObject"].at("uid").as_string(), "uid-1");
  EXPECT_EQ(e["source"].at("component").as_string(), "tailor-controller");
  EXPECT_EQ(e["reportingComponent"].as_string(), "tailor-controller");
  EXPECT_EQ(server_.count("POST", kEvents), 1u);
  EXPECT_EQ(server_.count("PATCH", kEvents + "/" + events.begin()->first), 2u);
  EXPECT_EQ(recorder.stats().written, 3u);
}

TEST_F(EventsRestTest, SimilarEventsAreCombinedAfterTen) {
  EventRecorder recorder(std::make_shared<RestEventSink>(*client_),
                         {"tailor-controller", "node-1"});
  for (int i = 1; i <= 12; ++i) {
    recorder.event(kPod, kEventTypeWarning, "ResizeDeferred", "try " + std::to_string(i));
  }
  ASSERT_TRUE(recorder.flush(std::chrono::seconds(30)));
  auto events = endpoint_.events();
  ASSERT_EQ(events.size(), 10u);  // 9 plain, 1 combined (count 3)
  int combined = 0;
  for (auto& [name, e] : events) {
    std::string message(e["message"].as_string());
    if (message.rfind("(combined from similar events): ", 0) == 0) {
      ++combined;
      EXPECT_EQ(e["count"].as_int64(), 3);
      EXPECT_EQ(message, "(combined from similar events): try 12");
    }
  }
  EXPECT_EQ(combined, 1);
}

TEST_F(EventsRestTest, RejectedEventsAreNotRetried) {
  server_.enqueue("POST", kEvents,
                  status_response(403, "Forbidden", "events is forbidden: User cannot create"));
  EventRecorder recorder(std::make_shared<RestEventSink>(*client_),
                         {"tailor-controller", "node-1"});
  recorder.event(kPod, kEventTypeNormal, "ResizeStarted", "x");
  ASSERT_TRUE(recorder.flush(std::chrono::seconds(30)));
  EXPECT_EQ(recorder.stats().rejected, 1u);
  EXPECT_EQ(server_.count("POST", kEvents), 1u);
  EXPECT_TRUE(endpoint_.events().empty());
}

}  // namespace
}  // namespace tailor::kube
