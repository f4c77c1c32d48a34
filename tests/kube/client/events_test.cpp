// Events: the correlator's client-go behaviour (counting, combining, spam filter) with an
// explicit clock, Event JSON, and the recorder against an in-memory sink.
#include "kube/client/events.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <map>

#include "kube/model/time.h"

namespace tailor::kube {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;
using Clock = std::chrono::system_clock;

const Clock::time_point kT0 = Clock::time_point{} + seconds(1'700'000'000);

EventRecord pod_event(std::string reason, std::string message, std::string pod = "web-0") {
  EventRecord e;
  e.namespace_ = "shop";
  e.name = pod + ".first";
  e.involved_object = {"Pod", "shop", pod, "uid-" + pod, "v1", "", ""};
  e.type = "Normal";
  e.reason = std::move(reason);
  e.message = std::move(message);
  e.source_component = e.reporting_controller = "tailor-controller";
  e.source_host = e.reporting_instance = "node-1";
  e.first_timestamp = e.last_timestamp = format_rfc3339(kT0);
  return e;
}

// The server's answer to a create: the event with a resourceVersion.
EventRecord stored(EventRecord e, std::string rv) {
  e.resource_version = std::move(rv);
  return e;
}

TEST(EventCorrelator, IdenticalEventsBecomeACountPatchOfTheFirstEvent) {
  EventCorrelator c;
  EventRecord first = pod_event("Resized", "cpu 100m -> 200m");
  CorrelationResult r1 = c.correlate(first, kT0);
  EXPECT_FALSE(r1.skip);
  EXPECT_TRUE(r1.patch.empty());
  EXPECT_EQ(r1.event.count, 1);
  c.update_state(stored(r1.event, "11"));

  EventRecord again = pod_event("Resized", "cpu 100m -> 200m");
  again.name = "web-0.second";
  again.first_timestamp = again.last_timestamp = format_rfc3339(kT0 + seconds(30));
  CorrelationResult r2 = c.correlate(again, kT0 + seconds(30));
  EXPECT_EQ(r2.event.name, "web-0.first");
  EXPECT_EQ(r2.event.resource_version, "11");
  EXPECT_EQ(r2.event.count, 2);
  EXPECT_EQ(r2.event.first_timestamp, "2023-11-14T22:13:20Z");
  EXPECT_EQ(r2.event.last_timestamp, "2023-11-14T22:13:50Z");
  EXPECT_EQ(boost::json::parse(r2.patch),
            boost::json::parse(R"({"count":2,"lastTimestamp":"2023-11-14T22:13:50Z",
                                  "message":"cpu 100m -> 200m"})"));
  // Without the server's answer the count still goes on from what was observed.
  CorrelationResult r3 = c.correlate(again, kT0 + seconds(31));
  EXPECT_EQ(r3.event.count, 3);
}

TEST(EventCorrelator, DifferentObjectsReasonsOrTypesAreNotCounted) {
  EventCorrelator c;
  c.update_state(stored(c.correlate(pod_event("Resized", "m"), kT0).event, "1"));
  EXPECT_TRUE(c.correlate(pod_event("Resized", "m", "web-1"), kT0).patch.empty());
  EXPECT_TRUE(c.correlate(pod_event("Evicted", "m"), kT0).patch.empty());
  EventRecord warning = pod_event("Resized", "m");
  warning.type = "Warning";
  EXPECT_TRUE(c.correlate(warning, kT0).patch.empty());
  EXPECT_FALSE(c.correlate(pod_event("Resized", "m"), kT0).patch.empty());
}

TEST(EventCorrelator, TenSimilarEventsInTenMinutesAreCombined) {
  EventCorrelator c;
  for (int i = 1; i <= 9; ++i) {
    CorrelationResult r =
        c.correlate(pod_event("Resized", "message " + std::to_string(i)), kT0 + seconds(i));
    EXPECT_EQ(r.event.message, "message " + std::to_string(i));
    EXPECT_TRUE(r.patch.empty());
  }
  auto now = kT0 + seconds(10);
  CorrelationResult tenth = c.correlate(pod_event("Resized", "message 10"), now);
  EXPECT_EQ(tenth.event.message, "(combined from similar events): message 10");
  EXPECT_EQ(tenth.event.count, 1);
  EXPECT_TRUE(tenth.patch.empty());
  EXPECT_EQ(tenth.event.name, "web-0.17979d008a35e400");  // object name + now in hex nanos
  EXPECT_EQ(tenth.event.first_timestamp, format_rfc3339(now));
  c.update_state(stored(tenth.event, "50"));

  CorrelationResult eleventh = c.correlate(pod_event("Resized", "message 11"), now + seconds(1));
  EXPECT_EQ(eleventh.event.name, tenth.event.name);
  EXPECT_EQ(eleventh.event.count, 2);
  EXPECT_THAT(eleventh.patch, HasSubstr("(combined from similar events): message 11"));
}

TEST(EventCorrelator, SimilarEventsFurtherApartThanTheIntervalStartOver) {
  EventCorrelator c;
  for (int i = 1; i <= 20; ++i) {
    // 11 minutes apart: each finds the previous aggregate record expired.
    CorrelationResult r =
        c.correlate(pod_event("Resized", "m" + std::to_string(i)), kT0 + minutes(11 * i));
    EXPECT_EQ(r.event.message, "m" + std::to_string(i));
  }
}

TEST(EventCorrelator, SpamFilterAllowsABurstOf25ThenOnePerFiveMinutesPerObject) {
  EventCorrelator c;
  int accepted = 0;
  for (int i = 0; i < 40; ++i) {
    if (!c.correlate(pod_event("R" + std::to_string(i), "m"), kT0).skip) ++accepted;
  }
  EXPECT_EQ(accepted, 25);
  // Another object from the same source has its own bucket.
  EXPECT_FALSE(c.correlate(pod_event("R", "m", "web-9"), kT0).skip);
  EXPECT_TRUE(c.correlate(pod_event("X", "m"), kT0 + seconds(299)).skip);
  EXPECT_FALSE(c.correlate(pod_event("X", "m"), kT0 + seconds(301)).skip);
  EXPECT_TRUE(c.correlate(pod_event("Y", "m"), kT0 + seconds(302)).skip);
}

TEST(EventCorrelator, ForgetsLeastRecentlyUsedEntries) {
  CorrelatorOptions o;
  o.cache_size = 2;
  EventCorrelator c(o);
  c.correlate(pod_event("Resized", "m", "a"), kT0);
  c.correlate(pod_event("Resized", "m", "b"), kT0);
  EXPECT_FALSE(c.correlate(pod_event("Resized", "m", "a"), kT0).patch.empty());  // a is fresh
  c.correlate(pod_event("Resized", "m", "c"), kT0);                              // evicts b
  EXPECT_TRUE(c.correlate(pod_event("Resized", "m", "b"), kT0).patch.empty());
  EXPECT_THROW(EventCorrelator(CorrelatorOptions{0}), std::invalid_argument);
}

TEST(EventJson, WritesACoreV1EventAndReadsTheAnswer) {
  EventRecord e = pod_event("Resized", "cpu \"up\"");
  e.involved_object.field_path = "spec.containers{app}";
  auto doc = boost::json::parse(event_json(e)).as_object();
  EXPECT_EQ(doc.at("kind").as_string(), "Event");
  EXPECT_EQ(doc.at("metadata").at("namespace").as_string(), "shop");
  EXPECT_EQ(doc.at("involvedObject").at("fieldPath").as_string(), "spec.containers{app}");
  EXPECT_EQ(doc.at("source").at("component").as_string(), "tailor-controller");
  EXPECT_EQ(doc.at("reportingComponent").as_string(), "tailor-controller");
  EXPECT_EQ(doc.at("reportingInstance").as_string(), "node-1");
  EXPECT_EQ(doc.at("count").as_int64(), 1);
  EXPECT_EQ(doc.at("firstTimestamp").as_string(), "2023-11-14T22:13:20Z");

  boost::json::object answer = doc;
  answer["metadata"].as_object()["resourceVersion"] = "99";
  EventRecord back = parse_event(boost::json::serialize(answer));
  EXPECT_EQ(back.resource_version, "99");
  EXPECT_EQ(back.message, e.message);
  EXPECT_EQ(back.involved_object.field_path, e.involved_object.field_path);
  EXPECT_EQ(back.reporting_instance, "node-1");

  for (auto [json, error] : std::vector<std::pair<const char*, const char*>>{
           {"nope", "expected an object"},
           {R"({"count":-1})", "count: expected"},
           {R"({"metadata":{"name":3}})", "metadata.name: expected a string"},
           {R"({"involvedObject":"x"})", "involvedObject: expected an object"}}) {
    try {
      parse_event(json);
      ADD_FAILURE() << "accepted " << json;
    } catch (const std::invalid_argument& ex) {
      EXPECT_THAT(ex.what(), HasSubstr(error));
    }
  }
}

// An in-memory Events API: creates and strategic-merge patches by name, with failure switches.
class MemorySink : public EventSink {
 public:
  EventRecord create(const EventRecord& e) override {
    std::lock_guard lock(mutex_);
    check();
    ++creates;
    if (events.count(e.name)) throw ApiError(409, "AlreadyExists", "exists");
    EventRecord s = e;
    s.resource_version = std::to_string(++version_);
    events[e.name] = s;
    return s;
  }
  EventRecord patch(const EventRecord& e, const std::string& patch) override {
    std::lock_guard lock(mutex_);
    check();
    ++patches;
    auto it = events.find(e.name);
    if (it == events.end()) throw ApiError(404, "NotFound", "events not found");
    auto p = boost::json::parse(patch).as_object();
    it->second.count = static_cast<int>(p.at("count").as_int64());
    it->second.last_timestamp = p.at("lastTimestamp").as_string().c_str();
    it->second.message = p.at("message").as_string().c_str();
    it->second.resource_version = std::to_string(++version_);
    return it->second;
  }
  void check() {
    if (unreachable_for > 0) {
      --unreachable_for;
      throw TransportError("connection refused (test)");
    }
  }

  std::mutex mutex_;
  std::map<std::string, EventRecord> events;
  int creates = 0, patches = 0, unreachable_for = 0;

 private:
  int version_ = 0;
};

// A clock the test moves; read by the caller's and the recorder's threads.
struct TestClock {
  std::atomic<std::int64_t> offset_ns{0};
  Clock::time_point now() const {
    return kT0 +
           std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(offset_ns.load()));
  }
  void advance(std::chrono::nanoseconds d) { offset_ns += d.count(); }
};

EventRecorderOptions fast_options(TestClock* clock) {
  EventRecorderOptions o;
  o.retry_delay = std::chrono::milliseconds(1);
  o.now = [clock] { return clock->now(); };
  return o;
}

const EventObjectRef kPod{"Pod", "shop", "web-0", "uid-1", "v1", "", ""};

TEST(EventRecorder, CreatesThenCountsRepeatsOnTheSameEvent) {
  auto sink = std::make_shared<MemorySink>();
  TestClock now;
  EventRecorder recorder(sink, {"tailor-controller", "node-1"}, fast_options(&now));
  recorder.event(kPod, kEventTypeNormal, "Resized", "cpu 100m -> 200m");
  ASSERT_TRUE(recorder.flush(seconds(10)));
  now.advance(seconds(5));
  recorder.event(kPod, kEventTypeNormal, "Resized", "cpu 100m -> 200m");
  recorder.event(kPod, kEventTypeNormal, "Resized", "cpu 100m -> 200m");
  ASSERT_TRUE(recorder.flush(seconds(10)));
  std::lock_guard lock(sink->mutex_);
  ASSERT_EQ(sink->events.size(), 1u);
  const EventRecord& e = sink->events.begin()->second;
  EXPECT_EQ(e.count, 3);
  EXPECT_EQ(e.name, "web-0.17979cfe362a0000");
  EXPECT_EQ(e.first_timestamp, "2023-11-14T22:13:20Z");
  EXPECT_EQ(e.last_timestamp, "2023-11-14T22:13:25Z");
  EXPECT_EQ(e.source_component, "tailor-controller");
  EXPECT_EQ(sink->creates, 1);
  EXPECT_EQ(sink->patches, 2);
  EXPECT_EQ(recorder.stats().written, 3u);
}

TEST(EventRecorder, RetriesWhileTheServerIsUnreachableAndRecreatesDeletedEvents) {
  auto sink = std::make_shared<MemorySink>();
  sink->unreachable_for = 3;
  TestClock now;
  EventRecorder recorder(sink, {"tailor-controller", "node-1"}, fast_options(&now));
  recorder.event(kPod, kEventTypeWarning, "ResizeInfeasible", "node too small");
  ASSERT_TRUE(recorder.flush(seconds(10)));
  {
    std::lock_guard lock(sink->mutex_);
    EXPECT_EQ(sink->events.size(), 1u);
    sink->events.clear();  // the Event expired on the server (TTL)
  }
  recorder.event(kPod, kEventTypeWarning, "ResizeInfeasible", "node too small");
  ASSERT_TRUE(recorder.flush(seconds(10)));
  std::lock_guard lock(sink->mutex_);
  ASSERT_EQ(sink->events.size(), 1u);
  EXPECT_EQ(sink->events.begin()->second.count, 2);
  EXPECT_EQ(recorder.stats().written, 2u);
}

TEST(EventRecorder, GivesUpAfterMaxTriesAndRejectsUnknownTypes) {
  auto sink = std::make_shared<MemorySink>();
  sink->unreachable_for = 1000;
  TestClock now;
  auto o = fast_options(&now);
  o.max_tries = 3;
  EventRecorder recorder(sink, {"tailor-controller", "node-1"}, o);
  recorder.event(kPod, kEventTypeNormal, "Resized", "x");
  recorder.event(kPod, "Info", "Resized", "x");
  ASSERT_TRUE(recorder.flush(seconds(10)));
  EXPECT_EQ(recorder.stats().dropped, 1u);
  EXPECT_EQ(recorder.stats().rejected, 1u);
  EXPECT_EQ(sink->unreachable_for, 997);
}

TEST(EventRecorder, SpamIsSkippedWithoutWriting) {
  auto sink = std::make_shared<MemorySink>();
  TestClock now;
  EventRecorder recorder(sink, {"tailor-controller", "node-1"}, fast_options(&now));
  for (int i = 0; i < 30; ++i) {
    now.advance(std::chrono::microseconds(1));  // distinct Event names, as in real time
    recorder.event(kPod, kEventTypeNormal, "R" + std::to_string(i), "m");
  }
  ASSERT_TRUE(recorder.flush(seconds(10)));
  EXPECT_EQ(recorder.stats().written, 25u);
  EXPECT_EQ(recorder.stats().skipped, 5u);
}

TEST(EventRecorder, AFullQueueDropsInsteadOfBlocking) {
  // A sink that blocks until released, so the queue fills.
  struct BlockingSink : MemorySink {
    std::mutex gate;
    EventRecord create(const EventRecord& e) override {
      std::lock_guard hold(gate);
      return MemorySink::create(e);
    }
  };
  auto sink = std::make_shared<BlockingSink>();
  TestClock now;
  auto o = fast_options(&now);
  o.queue_capacity = 2;
  std::unique_lock gate(sink->gate);
  EventRecorder recorder(sink, {"tailor-controller", "node-1"}, o);
  for (int i = 0; i < 10; ++i) {
    recorder.event({"Pod", "shop", "p" + std::to_string(i), "u", "v1", "", ""}, kEventTypeNormal,
                   "R", "m");
  }
  // At most one in the worker plus two queued; the rest were dropped at once.
  EXPECT_GE(recorder.stats().dropped, 7u);
  gate.unlock();
  ASSERT_TRUE(recorder.flush(seconds(10)));
  EXPECT_EQ(recorder.stats().written + recorder.stats().dropped, 10u);
}

}  // namespace
}  // namespace tailor::kube
