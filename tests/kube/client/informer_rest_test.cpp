// The informer over the real RestClient against the in-process HTTPS API server: paginated
// list, watch resumption after a dropped connection, 410 (HTTP and ERROR event) relists,
// bookmarks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <memory>
#include <mutex>

#include "kube/client/informer.h"
#include "kube/client/rest_client.h"
#include "tests/kube/client/informer_test_support.h"
#include "tests/support/test_api_server.h"

namespace tailor::kube::cache {
namespace {

using kube::testing::FakeCollection;
using kube::testing::TestApiServer;
using testing::CallLog;
using ::testing::ElementsAre;
using testing::TestPod;
using ::testing::UnorderedElementsAre;

std::string pod_json(const std::string& ns, const std::string& name, const std::string& phase) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name + R"(","namespace":")" +
         ns + R"(","uid":"uid-)" + name + R"("},"spec":{"nodeName":"node-1"},"status":{"phase":")" +
         phase + R"("}})";
}

// Holds the informer in its backoff after a failure until the test opens it, so the test can
// change the server while the informer is provably disconnected.
class BackoffGate {
 public:
  bool pass(std::chrono::milliseconds) {
    std::unique_lock lock(mutex_);
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [this] { return open_; });
    --waiting_;
    return true;
  }
  void close() {
    std::lock_guard lock(mutex_);
    open_ = false;
  }
  void open() {
    {
      std::lock_guard lock(mutex_);
      open_ = true;
    }
    changed_.notify_all();
  }
  bool wait_until_held() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, std::chrono::seconds(20), [this] { return waiting_ > 0; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = true;
  int waiting_ = 0;
};

class InformerRestTest : public ::testing::Test {
 protected:
  InformerRestTest() {
    pods_.serve(server_, "/api/v1/pods");
    client_ = std::make_unique<RestClient>(server_.config());
  }
  ~InformerRestTest() override {
    gate_.open();
    if (informer_) informer_->stop();
  }

  void start(std::int64_t page_size = 2) {
    InformerOptions o;
    o.name = "pods";
    o.page_size = page_size;
    o.sleep = [this](std::chrono::milliseconds d) { return gate_.pass(d); };
    informer_ = std::make_unique<Informer<TestPod>>(
        std::make_shared<RestListerWatcher>(*client_, resources::kPods), testing::decode_test_pod,
        o);
    informer_->add_handlers(log_.handlers());
    informer_->start();
    ASSERT_TRUE(informer_->wait_for_sync(std::chrono::seconds(20)));
  }

  std::vector<kube::testing::RecordedRequest> pod_requests(bool watches) {
    std::vector<kube::testing::RecordedRequest> out;
    for (auto& r : server_.requests()) {
      if (r.path == "/api/v1/pods" && (r.query_param("watch") == "true") == watches) {
        out.push_back(r);
      }
    }
    return out;
  }

  FakeCollection pods_{"v1", "PodList"};  // outlives the server's connection threads
  TestApiServer server_;
  std::unique_ptr<RestClient> client_;
  BackoffGate gate_;
  CallLog log_;
  std::unique_ptr<Informer<TestPod>> informer_;
};

TEST_F(InformerRestTest, PaginatedListThenLiveWatch) {
  std::string rv;
  for (int i = 0; i < 5; ++i) rv = pods_.add(pod_json("shop", "p" + std::to_string(i), "Running"));
  start(2);
  EXPECT_EQ(informer_->store().size(), 5u);
  auto lists = pod_requests(false);
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[0].query_param("limit"), "2");
  EXPECT_EQ(lists[0].query_param("continue"), "");
  EXPECT_NE(lists[2].query_param("continue"), "");
  EXPECT_EQ(informer_->last_resource_version(), rv);

  ASSERT_TRUE(pods_.wait_for_watches(1, std::chrono::seconds(20)));
  auto watch = pod_requests(true).at(0);
  EXPECT_EQ(watch.query_param("resourceVersion"), rv);
  EXPECT_EQ(watch.query_param("allowWatchBookmarks"), "true");

  std::string added = pods_.add(pod_json("shop", "new", "Pending"));
  std::string modified = pods_.modify(pod_json("shop", "new", "Running"));
  std::string removed = pods_.remove("shop", "p0");
  ASSERT_TRUE(log_.wait_for_count(8));
  auto calls = log_.calls();
  EXPECT_THAT(std::vector<std::string>(calls.begin() + 5, calls.end()),
              ElementsAre("add shop/new@" + added, "update shop/new@" + added + "->" + modified,
                          "delete shop/p0@" + removed));
  EXPECT_EQ(informer_->store().get("shop", "new")->phase, "Running");
}

TEST_F(InformerRestTest, DroppedWatchResumesFromTheLastResourceVersion) {
  start();
  ASSERT_TRUE(pods_.wait_for_watches(1, std::chrono::seconds(20)));
  pods_.add(pod_json("shop", "a", "Running"));
  std::string last_seen = pods_.add(pod_json("shop", "b", "Running"));
  ASSERT_TRUE(log_.wait_for_count(2));

  gate_.close();
  pods_.drop_watches();
  ASSERT_TRUE(gate_.wait_until_held());  // the informer noticed and is backing off
  std::string c = pods_.add(pod_json("shop", "c", "Running"));
  std::string d = pods_.add(pod_json("shop", "d", "Running"));
  gate_.open();
  ASSERT_TRUE(log_.wait_for_count(4));

  auto calls = log_.calls();
  EXPECT_EQ(calls.size(), 4u);  // nothing twice
  EXPECT_EQ(calls[2], "add shop/c@" + c);
  EXPECT_EQ(calls[3], "add shop/d@" + d);
  auto watches = pod_requests(true);
  ASSERT_GE(watches.size(), 2u);
  EXPECT_EQ(watches[1].query_param("resourceVersion"), last_seen);
  EXPECT_EQ(pod_requests(false).size(), 1u);  // resumed, not relisted
  EXPECT_EQ(informer_->stats().gone, 0u);
}

class InformerRestGoneTest : public InformerRestTest, public ::testing::WithParamInterface<bool> {};

// While the informer is disconnected, objects change and the server compacts its history; the
// resumed watch meets 410 — as an HTTP 410 answer (param true) or as an ERROR event in the
// stream (false) — and the relist reports exactly what changed.
TEST_P(InformerRestGoneTest, RelistReportsWhatChangedWhileDisconnected) {
  const bool http_410 = GetParam();
  std::string keep = pods_.add(pod_json("shop", "keep", "Running"));
  std::string change = pods_.add(pod_json("shop", "change", "Pending"));
  std::string gone = pods_.add(pod_json("shop", "gone", "Running"));
  start();
  ASSERT_TRUE(pods_.wait_for_watches(1, std::chrono::seconds(20)));
  // Something on the stream first: a connection dropped before any data is retried inside the
  // RestClient, unseen by the informer.
  std::string warm = pods_.add(pod_json("shop", "warm", "Running"));
  ASSERT_TRUE(log_.wait_for_count(4));

  gate_.close();
  pods_.drop_watches();
  ASSERT_TRUE(gate_.wait_until_held());
  std::string changed = pods_.modify(pod_json("shop", "change", "Running"));
  pods_.remove("shop", "gone");
  std::string added = pods_.add(pod_json("shop", "new", "Pending"));
  pods_.compact();
  if (http_410) {
    server_.enqueue("GET", "/api/v1/pods",
                    kube::testing::status_response(410, "Expired", "too old resource version"));
  }
  gate_.open();
  ASSERT_TRUE(log_.wait_for_count(7));

  auto calls = log_.calls();
  EXPECT_THAT(
      std::vector<std::string>(calls.begin() + 4, calls.end()),
      UnorderedElementsAre("add shop/new@" + added, "update shop/change@" + change + "->" + changed,
                           "delete? shop/gone@" + gone));
  EXPECT_EQ(informer_->stats().gone, 1u);
  EXPECT_EQ(informer_->stats().lists, 2u);
  EXPECT_THAT(informer_->store().keys(),
              UnorderedElementsAre("shop/keep", "shop/change", "shop/new", "shop/warm"));
  EXPECT_EQ(informer_->store().get("shop", "keep")->resource_version, keep);
  EXPECT_EQ(informer_->last_resource_version(), pods_.resource_version());

  // And the new watch carries on from the relist.
  std::string later = pods_.add(pod_json("shop", "later", "Running"));
  ASSERT_TRUE(log_.wait_for_count(8));
  EXPECT_EQ(log_.calls().back(), "add shop/later@" + later);
  EXPECT_EQ(informer_->store().get("shop", "warm")->resource_version, warm);
}

INSTANTIATE_TEST_SUITE_P(HttpOrEvent, InformerRestGoneTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "Http410" : "ErrorEvent"; });

TEST_F(InformerRestTest, BookmarkIsConsumedAndBecomesTheResumePoint) {
  pods_.add(pod_json("shop", "a", "Running"));
  start();
  ASSERT_TRUE(pods_.wait_for_watches(1, std::chrono::seconds(20)));
  pods_.add(pod_json("shop", "b", "Running"));
  ASSERT_TRUE(log_.wait_for_count(2));
  pods_.bookmark();
  std::string bookmarked = pods_.resource_version();
  ASSERT_TRUE(
      testing::eventually([&] { return informer_->last_resource_version() == bookmarked; }));
  gate_.close();
  pods_.drop_watches();
  ASSERT_TRUE(gate_.wait_until_held());
  gate_.open();
  ASSERT_TRUE(pods_.wait_for_watches(2, std::chrono::seconds(20)));
  EXPECT_EQ(pod_requests(true).at(1).query_param("resourceVersion"), bookmarked);
  EXPECT_EQ(log_.calls().size(), 2u);  // a bookmark is not an object change
}

TEST_F(InformerRestTest, NamespaceAndSelectorsReachTheServer) {
  FakeCollection shop_pods{"v1", "PodList"};
  shop_pods.serve(server_, "/api/v1/namespaces/shop/pods");
  shop_pods.add(pod_json("shop", "a", "Running"));
  RestListerWatcher lister_watcher(*client_, resources::kPods, "shop", "app=web",
                                   "spec.nodeName=node-1");
  ListOptions options;
  options.limit = 10;
  ListPage page = lister_watcher.list(options);
  ASSERT_EQ(page.items.size(), 1u);
  EXPECT_EQ(page.resource_version, shop_pods.resource_version());
  auto request = server_.requests().back();
  EXPECT_EQ(request.path, "/api/v1/namespaces/shop/pods");
  EXPECT_EQ(request.query_param("labelSelector"), "app=web");
  EXPECT_EQ(request.query_param("fieldSelector"), "spec.nodeName=node-1");
  EXPECT_EQ(request.query_param("limit"), "10");
  server_.stop();  // before shop_pods goes: no handler may still use it
}

}  // namespace
}  // namespace tailor::kube::cache
