// Informer logic against FakeApi: pagination, watch resumption, 410 relists (HTTP and ERROR
// event), bookmarks, backoff, undecodable objects, resync and indexes.
#include "kube/client/informer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "tests/kube/client/informer_fake_api.h"
#include "tests/kube/client/informer_test_support.h"

namespace tailor::kube::cache {
namespace {

using testing::CallLog;
using ::testing::ElementsAre;
using testing::FakeApi;
using testing::FakeObject;
using testing::TestPod;
using ::testing::UnorderedElementsAre;

class InformerTest : public ::testing::Test {
 protected:
  InformerTest() : api_(std::make_shared<FakeApi>()) {}
  ~InformerTest() override {
    if (informer_) informer_->stop();
  }

  InformerOptions options() {
    InformerOptions o;
    o.name = "test-pods";
    o.page_size = 3;
    o.random = [] { return 0.5; };
    o.sleep = [this](std::chrono::milliseconds delay) {
      std::lock_guard lock(sleeps_mutex_);
      sleeps_.push_back(delay);
      // Recorded, not waited; a short pause keeps failure loops from spinning hot.
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      return true;
    };
    return o;
  }

  void start(InformerOptions o) {
    informer_ = std::make_unique<Informer<TestPod>>(api_, testing::decode_test_pod, std::move(o));
    informer_->store().add_indexer(std::string(kIndexNamespace), index_by_namespace<TestPod>());
    informer_->store().add_indexer(std::string(kIndexNodeName), testing::pod_node_index);
    informer_->store().add_indexer(std::string(kIndexOwnerUid), index_by_owner_uid<TestPod>());
    informer_->add_handlers(log_.handlers());
    informer_->set_error_handler([this](const std::string& e) {
      std::lock_guard lock(sleeps_mutex_);
      errors_.push_back(e);
    });
    informer_->start();
    ASSERT_TRUE(informer_->wait_for_sync(std::chrono::seconds(10)));
  }
  void start() { start(options()); }

  std::vector<std::chrono::milliseconds> sleeps() {
    std::lock_guard lock(sleeps_mutex_);
    return sleeps_;
  }
  std::vector<std::string> errors() {
    std::lock_guard lock(sleeps_mutex_);
    return errors_;
  }

  std::shared_ptr<FakeApi> api_;
  CallLog log_;
  std::unique_ptr<Informer<TestPod>> informer_;
  std::mutex sleeps_mutex_;
  std::vector<std::chrono::milliseconds> sleeps_;
  std::vector<std::string> errors_;
};

using testing::eventually;

TEST_F(InformerTest, PaginatedInitialListFillsTheStoreAndSyncs) {
  for (int i = 0; i < 7; ++i) api_->put({"ns", "p" + std::to_string(i), "n1", "", "Running"});
  start();
  EXPECT_TRUE(informer_->has_synced());
  EXPECT_EQ(informer_->store().size(), 7u);
  ASSERT_TRUE(log_.wait_for_count(7));
  auto lists = api_->list_calls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[0].limit, 3);
  EXPECT_EQ(lists[0].continue_token, "");
  EXPECT_EQ(lists[1].continue_token, "3");
  EXPECT_EQ(lists[2].continue_token, "6");
  EXPECT_EQ(informer_->last_resource_version(), "107");
  ASSERT_TRUE(eventually([&] { return !api_->watch_calls().empty(); }));
  auto watch = api_->watch_calls()[0];
  EXPECT_EQ(watch.resource_version, "107");
  EXPECT_TRUE(watch.allow_watch_bookmarks);
  // min 300 s + 0.5 * 300 s with the injected random source.
  EXPECT_EQ(watch.timeout_seconds, 450);
}

TEST_F(InformerTest, WatchEventsBecomeAddUpdateDeleteInOrder) {
  api_->put({"ns", "a", "n1", "", "Pending"});  // 101
  start();
  ASSERT_TRUE(log_.wait_for_count(1));
  api_->put({"ns", "b", "n2", "", "Pending"});  // 102
  api_->put({"ns", "a", "n1", "", "Running"});  // 103
  api_->remove("ns", "b");                      // 104
  ASSERT_TRUE(log_.wait_for_count(4));
  EXPECT_THAT(log_.calls(), ElementsAre("add ns/a@101", "add ns/b@102", "update ns/a@101->103",
                                        "delete ns/b@104"));
  EXPECT_EQ(informer_->store().get("ns", "a")->phase, "Running");
  EXPECT_EQ(informer_->store().get("ns", "b"), nullptr);
  EXPECT_EQ(informer_->last_resource_version(), "104");
}

TEST_F(InformerTest, DroppedWatchResumesFromLastResourceVersionWithoutLossOrDuplicates) {
  start();
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() == 1; }));
  // The running watch is already open; the drop applies to the next one, so end this one.
  api_->drop_next_watch_after(2);
  api_->set_partitioned(true);
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() >= 2; }));
  api_->set_partitioned(false);
  for (int i = 0; i < 5; ++i) api_->put({"ns", "p" + std::to_string(i), "", "", "Running"});
  ASSERT_TRUE(log_.wait_for_count(5));
  EXPECT_THAT(log_.calls(), ElementsAre("add ns/p0@101", "add ns/p1@102", "add ns/p2@103",
                                        "add ns/p3@104", "add ns/p4@105"));
  auto watches = api_->watch_calls();
  // No relist: the drop was resumed from the resourceVersion of the last delivered event.
  EXPECT_EQ(api_->list_calls().size(), 1u);
  bool resumed_at_102 = std::any_of(watches.begin(), watches.end(),
                                    [](const auto& w) { return w.resource_version == "102"; });
  EXPECT_TRUE(resumed_at_102);
  EXPECT_EQ(informer_->stats().lists, 1u);
  EXPECT_GE(informer_->stats().failures, 1u);
}

// While the informer is cut off, objects change and the server forgets its history; the
// resumed watch gets 410 (HTTP or ERROR event) and the relist must report exactly what changed.
class InformerGoneTest : public InformerTest, public ::testing::WithParamInterface<bool> {};

TEST_P(InformerGoneTest, RelistDiffReportsWhatChangedWhileDisconnected) {
  api_->set_gone_as_event(GetParam());
  api_->put({"ns", "keep", "n1", "", "Running"});    // 101
  api_->put({"ns", "change", "n1", "", "Pending"});  // 102
  api_->put({"ns", "gone", "n1", "", "Running"});    // 103
  start();
  ASSERT_TRUE(log_.wait_for_count(3));
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() == 1; }));
  api_->set_partitioned(true);
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() >= 2; }));
  api_->put({"ns", "change", "n1", "", "Running"});  // 104
  api_->remove("ns", "gone");                        // 105
  api_->put({"ns", "new", "n2", "", "Pending"});     // 106
  api_->compact();
  api_->set_partitioned(false);
  ASSERT_TRUE(log_.wait_for_count(6));
  auto calls = log_.calls();
  std::vector<std::string> after(calls.begin() + 3, calls.end());
  EXPECT_THAT(after, UnorderedElementsAre("add ns/new@106", "update ns/change@102->104",
                                          "delete? ns/gone@103"));
  EXPECT_EQ(informer_->stats().gone, 1u);
  EXPECT_EQ(informer_->stats().lists, 2u);
  EXPECT_THAT(informer_->store().keys(), UnorderedElementsAre("ns/keep", "ns/change", "ns/new"));
  EXPECT_EQ(informer_->last_resource_version(), "106");
  // Later events still arrive over the new watch.
  api_->put({"ns", "later", "", "", "Running"});
  ASSERT_TRUE(log_.wait_for_count(7));
  EXPECT_EQ(log_.calls().back(), "add ns/later@107");
}

INSTANTIATE_TEST_SUITE_P(HttpAndErrorEvent, InformerGoneTest, ::testing::Bool());

TEST_F(InformerTest, BookmarkAdvancesTheResourceVersionUsedToResume) {
  start();
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() == 1; }));
  auto bookmark = api_->bookmark();
  ASSERT_TRUE(
      eventually([&] { return informer_->last_resource_version() == std::to_string(bookmark); }));
  api_->set_partitioned(true);
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() >= 2; }));
  EXPECT_EQ(api_->watch_calls()[1].resource_version, std::to_string(bookmark));
  EXPECT_TRUE(log_.calls().empty());  // a bookmark is not an object change
}

TEST_F(InformerTest, ExpiredContinueTokenFallsBackToOneFullList) {
  for (int i = 0; i < 5; ++i) api_->put({"ns", "p" + std::to_string(i), "", "", "Running"});
  api_->expire_continue_tokens(true);
  start();
  EXPECT_EQ(informer_->store().size(), 5u);
  auto lists = api_->list_calls();
  ASSERT_EQ(lists.size(), 3u);
  EXPECT_EQ(lists[1].continue_token, "3");
  EXPECT_EQ(lists[2].limit, 0);
  EXPECT_EQ(lists[2].continue_token, "");
}

TEST_F(InformerTest, FailedListsBackOffExponentiallyWithJitter) {
  api_->fail_next_lists(6);
  start();
  // random() = 0.5 and jitter 1.0 stretch each step by 1.5; steps double up to the 30 s cap.
  using ms = std::chrono::milliseconds;
  EXPECT_THAT(sleeps(), ElementsAre(ms(1200), ms(2400), ms(4800), ms(9600), ms(19200), ms(38400)));
  EXPECT_EQ(informer_->stats().failures, 6u);
  EXPECT_EQ(errors().size(), 6u);
  EXPECT_THAT(errors()[0], ::testing::HasSubstr("list failed: connection refused"));
}

TEST_F(InformerTest, NonGoneErrorEventRelistsAfterBackoff) {
  api_->put({"ns", "a", "", "", "Running"});
  start();
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() == 1; }));
  api_->error_event_on_next_watch(500);
  api_->set_partitioned(true);  // ends watch 1 (transport: resumable), watch 2 refused
  ASSERT_TRUE(eventually([&] { return api_->watch_calls().size() >= 2; }));
  api_->set_partitioned(false);
  ASSERT_TRUE(eventually([&] { return api_->list_calls().size() >= 2; }));
  EXPECT_TRUE(eventually([&] {
    for (const auto& e : errors()) {
      if (e.find("watch error event 500 InternalError") != std::string::npos) return true;
    }
    return false;
  }));
}

TEST_F(InformerTest, UndecodableObjectIsSkippedAndReported) {
  api_->put({"ns", "good", "", "", "Running"});
  api_->put_raw_list_item(R"({"metadata":{"name":"bad","namespace":"ns","resourceVersion":"1"}})");
  api_->put_raw_list_item(R"({"metadata":{"namespace":"ns"},"spec":{}})");
  start();
  EXPECT_THAT(informer_->store().keys(), ElementsAre("ns/good"));
  EXPECT_EQ(informer_->stats().decode_errors, 2u);
  auto e = errors();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_THAT(e[0], ::testing::HasSubstr("cannot be decoded"));
  EXPECT_THAT(e[1], ::testing::HasSubstr("no metadata.name"));
}

TEST_F(InformerTest, IndexesFollowUpdatesAndDeletes) {
  api_->put({"a", "p1", "n1", "rs-1", "Running"});
  api_->put({"a", "p2", "n2", "rs-1", "Running"});
  api_->put({"b", "p3", "n1", "rs-2", "Running"});
  start();
  auto names = [](const std::vector<std::shared_ptr<const TestPod>>& pods) {
    std::vector<std::string> out;
    for (const auto& p : pods) out.push_back(p->name);
    std::sort(out.begin(), out.end());
    return out;
  };
  auto& store = informer_->store();
  EXPECT_THAT(names(store.by_index(kIndexNamespace, "a")), ElementsAre("p1", "p2"));
  EXPECT_THAT(names(store.by_index(kIndexNodeName, "n1")), ElementsAre("p1", "p3"));
  EXPECT_THAT(names(store.by_index(kIndexOwnerUid, "rs-1")), ElementsAre("p1", "p2"));
  api_->put({"a", "p1", "n2", "rs-1", "Running"});  // moved to n2
  api_->remove("a", "p2");
  ASSERT_TRUE(log_.wait_for_count(5));
  EXPECT_THAT(names(store.by_index(kIndexNodeName, "n1")), ElementsAre("p3"));
  EXPECT_THAT(names(store.by_index(kIndexNodeName, "n2")), ElementsAre("p1"));
  EXPECT_THAT(names(store.by_index(kIndexOwnerUid, "rs-1")), ElementsAre("p1"));
  EXPECT_THROW(store.by_index("nope", "x"), std::invalid_argument);
}

TEST_F(InformerTest, ResyncRedeliversEveryObjectAsAnUpdate) {
  api_->put({"ns", "a", "", "", "Running"});
  api_->put({"ns", "b", "", "", "Running"});
  auto o = options();
  o.resync_period = std::chrono::milliseconds(20);
  start(o);
  ASSERT_TRUE(log_.wait_for([](const auto& calls) {
    return std::count(calls.begin(), calls.end(), "resync ns/a@101") >= 2 &&
           std::count(calls.begin(), calls.end(), "resync ns/b@102") >= 2;
  }));
}

TEST_F(InformerTest, ConstructionRejectsMissingPieces) {
  EXPECT_THROW(Informer<TestPod>(nullptr, testing::decode_test_pod), std::invalid_argument);
  EXPECT_THROW(Informer<TestPod>(api_, nullptr), std::invalid_argument);
  auto o = options();
  o.page_size = -1;
  EXPECT_THROW(Informer<TestPod>(api_, testing::decode_test_pod, o), std::invalid_argument);
}

TEST_F(InformerTest, HandlersAfterStartAreRejected) {
  start();
  EXPECT_THROW(informer_->add_handlers({}), std::logic_error);
  EXPECT_THROW(informer_->start(), std::logic_error);
}

}  // namespace
}  // namespace tailor::kube::cache
