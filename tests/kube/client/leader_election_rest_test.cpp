// Leader election over the real RestClient against the in-process HTTPS API server, which
// keeps the Lease with resourceVersion preconditions (409 on a stale update) as kube-apiserver
// does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "kube/client/leader_election_elector.h"
#include "kube/client/rest_client.h"
#include "tests/kube/client/leader_callbacks_recorder.h"
#include "tests/support/test_api_server.h"

namespace tailor::kube {
namespace {

namespace json = boost::json;
using kube::testing::json_response;
using kube::testing::status_response;
using kube::testing::TestApiServer;

const std::string kLeases = "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases";
const std::string kLease = kLeases + "/tailor";

// One Lease served with get / create / update (optimistic concurrency).
class LeaseEndpoint {
 public:
  void serve(TestApiServer& server) {
    server.on("GET", kLease, [this](http::Exchange& ex) { ex.respond(get()); });
    server.on("POST", kLeases,
              [this](http::Exchange& ex) { ex.respond(create(ex.request().body)); });
    server.on("PUT", kLease, [this](http::Exchange& ex) { ex.respond(update(ex.request().body)); });
  }
  void put(const std::string& lease) {
    std::lock_guard lock(mutex_);
    store(json::parse(lease).as_object());
  }
  json::object lease() {
    std::lock_guard lock(mutex_);
    return *lease_;
  }
  int conflicts() {
    std::lock_guard lock(mutex_);
    return conflicts_;
  }

 private:
  http::ServerResponse get() {
    std::lock_guard lock(mutex_);
    if (!lease_) return status_response(404, "NotFound", "leases \"tailor\" not found");
    return json_response(200, json::serialize(*lease_));
  }
  http::ServerResponse create(const std::string& body) {
    std::lock_guard lock(mutex_);
    if (lease_) {
      ++conflicts_;
      return status_response(409, "AlreadyExists", "leases \"tailor\" already exists");
    }
    store(json::parse(body).as_object());
    return json_response(201, json::serialize(*lease_));
  }
  http::ServerResponse update(const std::string& body) {
    std::lock_guard lock(mutex_);
    json::object next = json::parse(body).as_object();
    if (!lease_) return status_response(404, "NotFound", "leases \"tailor\" not found");
    if (next["metadata"].as_object()["resourceVersion"] !=
        (*lease_)["metadata"].as_object()["resourceVersion"]) {
      ++conflicts_;
      return status_response(409, "Conflict",
                             "Operation cannot be fulfilled on leases.coordination.k8s.io "
                             "\"tailor\": the object has been modified; please apply your "
                             "changes to the latest version and try again");
    }
    store(std::move(next));
    return json_response(200, json::serialize(*lease_));
  }
  void store(json::object lease) {
    lease["metadata"].as_object()["resourceVersion"] = std::to_string(++version_);
    lease_ = std::move(lease);
  }

  std::mutex mutex_;
  std::optional<json::object> lease_;
  int version_ = 0, conflicts_ = 0;
};

LeaderElectionConfig fast_config(std::string identity) {
  LeaderElectionConfig c;
  c.lease_namespace = "kube-system";
  c.lease_name = "tailor";
  c.identity = std::move(identity);
  c.lease_duration = std::chrono::seconds(1);
  c.renew_deadline = std::chrono::milliseconds(600);
  c.retry_period = std::chrono::milliseconds(100);
  return c;
}

using Seen = testing::LeaderCallbacksRecorder;

class LeaderElectionRestTest : public ::testing::Test {
 protected:
  LeaderElectionRestTest() { lease_.serve(server_); }
  std::unique_ptr<LeaderElector> candidate(const std::string& id, Seen& seen) {
    clients_.push_back(std::make_unique<RestClient>(server_.config()));
    return std::make_unique<LeaderElector>(
        std::make_shared<RestLeaseLock>(*clients_.back(), "kube-system", "tailor"), fast_config(id),
        seen.callbacks());
  }

  LeaseEndpoint lease_;  // outlives the server's connection threads
  TestApiServer server_;
  std::vector<std::unique_ptr<RestClient>> clients_;
};

TEST_F(LeaderElectionRestTest, TwoCandidatesOneLeaderAndAHandOverOnStop) {
  Seen a_seen, b_seen;
  auto a = candidate("a", a_seen);
  auto b = candidate("b", b_seen);
  a->start();
  b->start();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!a->is_leader() && !b->is_leader() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // polling, bounded
  }
  // Exactly one leads; the other sees it as the leader.
  LeaderElector* leader = a->is_leader() ? a.get() : b.get();
  LeaderElector* follower = leader == a.get() ? b.get() : a.get();
  Seen& follower_seen = leader == a.get() ? b_seen : a_seen;
  ASSERT_TRUE(leader->is_leader());
  EXPECT_FALSE(follower->is_leader());
  std::string leader_id = leader == a.get() ? "a" : "b";
  ASSERT_TRUE(follower_seen.wait_for([&] { return !follower_seen.leaders.empty(); }));
  EXPECT_EQ(follower_seen.leaders.front(), leader_id);

  auto held = lease_.lease();
  EXPECT_EQ(held["spec"].at("holderIdentity").as_string(), leader_id);
  EXPECT_EQ(held["spec"].at("leaseDurationSeconds").as_int64(), 1);
  EXPECT_EQ(held["spec"].at("leaseTransitions").as_int64(), 0);

  leader->stop();  // releases; the follower takes over without waiting for expiry
  ASSERT_TRUE(follower_seen.wait_for([&] { return follower_seen.started == 1; }));
  EXPECT_TRUE(follower->is_leader());
  auto taken = lease_.lease();
  EXPECT_EQ(taken["spec"].at("holderIdentity").as_string(), leader_id == "a" ? "b" : "a");
  EXPECT_EQ(taken["spec"].at("leaseTransitions").as_int64(), 1);
  follower->stop();
  EXPECT_EQ(lease_.lease()["spec"].at("holderIdentity").as_string(), "");  // released
}

TEST_F(LeaderElectionRestTest, TakesOverAnExpiredLeaseKeepingItsLabels) {
  lease_.put(R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
    "metadata":{"name":"tailor","namespace":"kube-system","labels":{"app":"tailor"}},
    "spec":{"holderIdentity":"crashed","leaseDurationSeconds":1,"leaseTransitions":6,
    "acquireTime":"2023-11-14T22:00:00.000000Z","renewTime":"2023-11-14T22:13:00.000000Z"}})");
  Seen seen;
  auto b = candidate("b", seen);
  b->start();
  ASSERT_TRUE(seen.wait_for([&] { return seen.started == 1; }));
  EXPECT_EQ(seen.leaders, (std::vector<std::string>{"crashed", "b"}));
  auto lease = lease_.lease();
  EXPECT_EQ(lease["spec"].at("holderIdentity").as_string(), "b");
  EXPECT_EQ(lease["spec"].at("leaseTransitions").as_int64(), 7);
  EXPECT_EQ(lease["metadata"].at("labels").at("app").as_string(), "tailor");
  EXPECT_NE(lease["spec"].at("acquireTime").as_string(), "2023-11-14T22:00:00.000000Z");
}

TEST_F(LeaderElectionRestTest, AStaleUpdateIsAConflictNotALeadership) {
  Seen seen;
  RestClient client(server_.config());
  RestLeaseLock lock(client, "kube-system", "tailor");
  lock.create(
      LeaseRecord{"a", 15, "2023-11-14T22:00:00.000000Z", "2023-11-14T22:00:00.000000Z", 0});
  auto state = lock.get();
  ASSERT_TRUE(state);
  lock.update(state->record, state->resource_version);
  try {
    lock.update(state->record, state->resource_version);  // stale
    FAIL() << "no conflict";
  } catch (const ApiError& e) {
    EXPECT_TRUE(e.is_conflict());
  }
  EXPECT_EQ(lease_.conflicts(), 1);
}

}  // namespace
}  // namespace tailor::kube
