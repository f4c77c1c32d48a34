// pods/log decisions without a server: the query checked as the API checks it, the attempt a
// request means (the kubelet's choice) with upstream's words when there is none, and CRI log
// lines turned into what kubectl prints.
#include "embedded/logs/pod_log_request.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {
namespace bj = boost::json;

bj::object pod_with(const std::string& statuses, const std::string& node = "n1") {
  return bj::parse(R"({"metadata":{"name":"x","namespace":"ns","uid":"u"},
    "spec":{"nodeName":")" +
                   node + R"(","initContainers":[{"name":"init"}],
            "containers":[{"name":"a"},{"name":"b"}]},
    "status":{"containerStatuses":[)" +
                   statuses + "]}}")
      .as_object();
}

PodLogOptions for_container(const std::string& name, bool previous = false) {
  PodLogOptions o;
  o.container = name;
  o.previous = previous;
  return o;
}

std::string error_of(const bj::object& pod, const PodLogOptions& options) {
  try {
    choose_log_file(pod, options);
  } catch (const StatusError& e) {
    return std::to_string(e.code()) + " " + e.message();
  }
  return "no error";
}

kube::http::ServerRequest query(std::vector<std::pair<std::string, std::string>> params) {
  kube::http::ServerRequest r;
  r.method = "GET";
  r.query = std::move(params);
  return r;
}

TEST(PodLogRequest, AContainerMustBeNamedAmongSeveral) {
  const bj::object pod = pod_with(R"({"name":"a","restartCount":0,"state":{"running":{}}})");
  EXPECT_EQ(error_of(pod, {}),
            "400 a container name must be specified for pod x, choose one of: [init a b]");
  EXPECT_EQ(error_of(pod, for_container("nope")), "400 container nope is not valid for pod x");
}

TEST(PodLogRequest, TheRunningAttemptOrTheLastTerminatedOne) {
  const auto running =
      choose_log_file(pod_with(R"({"name":"a","restartCount":2,"state":{"running":{}},
                   "lastState":{"terminated":{"exitCode":1}}})"),
                      for_container("a"));
  ASSERT_TRUE(running);
  EXPECT_EQ(running->attempt, 2u);
  EXPECT_TRUE(running->running);
  const auto previous =
      choose_log_file(pod_with(R"({"name":"a","restartCount":2,"state":{"running":{}},
                   "lastState":{"terminated":{"exitCode":1}}})"),
                      for_container("a", true));
  EXPECT_EQ(previous->attempt, 1u);
  EXPECT_FALSE(previous->running);
  // Waiting to restart (CrashLoopBackOff): the attempt that last ran, now and as "previous".
  const bj::object backing_off = pod_with(
      R"({"name":"a","restartCount":3,"state":{"waiting":{"reason":"CrashLoopBackOff"}},
          "lastState":{"terminated":{"exitCode":1}}})");
  EXPECT_EQ(choose_log_file(backing_off, for_container("a"))->attempt, 3u);
  EXPECT_EQ(choose_log_file(backing_off, for_container("a", true))->attempt, 3u);
  EXPECT_EQ(log_file_path("/logs", backing_off, {"a", 3, false}), "/logs/ns_x_u/a/3.log");
}

TEST(PodLogRequest, TheKubeletsWordsWhenThereIsNoLog) {
  EXPECT_EQ(error_of(pod_with(R"({"name":"a","restartCount":0,"state":{"running":{}}})"),
                     for_container("a", true)),
            "400 previous terminated container \"a\" in pod \"x\" not found");
  EXPECT_EQ(error_of(pod_with(R"({"name":"a","state":{"waiting":{"reason":"ErrImagePull"}}})"),
                     for_container("a")),
            "400 container \"a\" in pod \"x\" is waiting to start: image can't be pulled");
  EXPECT_EQ(
      error_of(pod_with(R"({"name":"a","state":{"waiting":{"reason":"ImagePullBackOff"}}})"),
               for_container("a")),
      "400 container \"a\" in pod \"x\" is waiting to start: trying and failing to pull image");
  EXPECT_EQ(error_of(pod_with(R"({"name":"a","state":{"waiting":{"reason":"ContainerCreating"}}})"),
                     for_container("a")),
            "400 container \"a\" in pod \"x\" is waiting to start: ContainerCreating");
  EXPECT_EQ(error_of(pod_with(""), for_container("b")),
            "400 container \"b\" in pod \"x\" is not available");
  EXPECT_FALSE(choose_log_file(pod_with("", ""), for_container("a")))  // not bound: empty log
      << "an unscheduled pod has no log yet";
}

TEST(PodLogRequest, OptionsAreCheckedAsTheApiChecksThem) {
  const kube::TimePoint now{};
  const PodLogOptions o = parse_pod_log_options(
      query({{"container", "a"}, {"follow", "true"}, {"tailLines", "5"}, {"limitBytes", "10"}}),
      "x", now);
  EXPECT_EQ(o.container, "a");
  EXPECT_TRUE(o.follow);
  EXPECT_EQ(o.tail_lines, 5);
  EXPECT_EQ(o.limit_bytes, 10);
  const auto message = [&](std::vector<std::pair<std::string, std::string>> params) {
    try {
      parse_pod_log_options(query(std::move(params)), "x", now);
    } catch (const StatusError& e) {
      return std::to_string(e.code()) + " " + e.message();
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({{"tailLines", "-1"}}),
            "422 PodLogOptions \"x\" is invalid: tailLines: Invalid value: -1: must be greater "
            "than or equal to 0");
  EXPECT_EQ(message({{"limitBytes", "0"}}),
            "422 PodLogOptions \"x\" is invalid: limitBytes: Invalid value: 0: must be greater "
            "than 0");
  EXPECT_EQ(message({{"sinceSeconds", "5"}, {"sinceTime", "2026-01-01T00:00:00Z"}}),
            "422 PodLogOptions \"x\" is invalid: : Forbidden: at most one of `sinceTime` or "
            "`sinceSeconds` may be specified");
  EXPECT_EQ(message({{"tailLines", "ten"}}).substr(0, 4), "400 ");
  EXPECT_EQ(message({{"follow", "yes"}}).substr(0, 4), "400 ");
}

TEST(PodLogRequest, CriLinesBecomeTheLogsText) {
  PodLogOptions plain;
  LogWriter writer(plain);
  std::string out;
  writer.add("2026-11-27T19:25:45.9594Z stdout F hello", out);
  writer.add("2026-11-27T19:25:46Z stderr P part-", out);
  writer.add("2026-11-27T19:25:46Z stderr F two", out);
  writer.add("not a cri line", out);
  writer.add("2026-11-27T19:25:47Z stdout F", out);  // an empty line
  EXPECT_EQ(out, "hello\npart-two\n\n");

  PodLogOptions stamped;
  stamped.timestamps = true;
  stamped.limit_bytes = 40;
  LogWriter limited(stamped);
  std::string text;
  limited.add("2026-11-27T19:25:45.9594Z stdout F hello", text);
  limited.add("2026-11-27T19:25:46Z stdout F world", text);
  EXPECT_EQ(text, "2026-11-27T19:25:45.959400000Z hello\n202");  // 37 + 3 bytes
  EXPECT_TRUE(limited.full());

  PodLogOptions since;
  since.since = kube::parse_rfc3339("2026-11-27T19:25:46Z");
  LogWriter recent(since);
  std::string kept;
  recent.add("2026-11-27T19:25:45.9Z stdout F old", kept);
  recent.add("2026-11-27T19:25:46.1Z stdout F new", kept);
  EXPECT_EQ(kept, "new\n");
}

TEST(PodLogRequest, CompleteLinesAndTheirTail) {
  EXPECT_EQ(complete_lines("a\nb\nc\npartial"), (std::vector<std::string_view>{"a", "b", "c"}));
  EXPECT_EQ(complete_lines("a\nb\nc\n", 2), (std::vector<std::string_view>{"b", "c"}));
  EXPECT_EQ(complete_lines("a\n", 0), std::vector<std::string_view>{});
}

}  // namespace
}  // namespace tailor::embedded
