// Leader election: the pure decision table, config validation, Lease JSON, and the elector
// loop against an in-memory lock with optimistic concurrency.
#include "kube/client/leader_election.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>

#include "kube/client/leader_election_elector.h"
#include "kube/client/leader_election_lock.h"
#include "tests/kube/client/leader_callbacks_recorder.h"

namespace tailor::kube {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using ::testing::HasSubstr;

const WallClock::time_point kT0 = WallClock::time_point{} + seconds(1'700'000'000);
const std::string kT0Text = "2023-11-14T22:13:20.000000Z";

LeaderElectionConfig config_for(std::string identity) {
  LeaderElectionConfig c;
  c.lease_namespace = "kube-system";
  c.lease_name = "tailor-controller";
  c.identity = std::move(identity);
  return c;
}

LeaseRecord held_by(std::string holder, int duration, int transitions,
                    std::string acquired = "2023-11-14T22:00:00.000000Z") {
  return {std::move(holder), duration, acquired, "2023-11-14T22:13:00.000000Z", transitions};
}

struct DecisionCase {
  std::string name;
  std::optional<LeaseRecord> current;
  seconds observed_ago;  // how long ago this candidate first saw `current` unchanged
  LeaseAction action;
  int transitions;           // of the record to write (Create/Update)
  std::string acquire_time;  // of the record to write
};

class DecideLease : public ::testing::TestWithParam<DecisionCase> {};

TEST_P(DecideLease, FollowsClientGo) {
  const DecisionCase& c = GetParam();
  LeaseDecision d = decide_lease(c.current, kT0 - c.observed_ago, kT0, config_for("me"));
  EXPECT_EQ(d.action, c.action);
  if (c.action == LeaseAction::Wait) {
    EXPECT_EQ(d.record, *c.current);
    return;
  }
  EXPECT_EQ(d.record.holder_identity, "me");
  EXPECT_EQ(d.record.lease_duration_seconds, 15);
  EXPECT_EQ(d.record.renew_time, kT0Text);
  EXPECT_EQ(d.record.acquire_time, c.acquire_time);
  EXPECT_EQ(d.record.lease_transitions, c.transitions);
}

const std::string kOld = "2023-11-14T22:00:00.000000Z";

INSTANTIATE_TEST_SUITE_P(
    Table, DecideLease,
    ::testing::Values(DecisionCase{"absent_create", std::nullopt, seconds(0), LeaseAction::Create,
                                   0, kT0Text},
                      DecisionCase{"other_fresh_wait", held_by("other", 15, 3), seconds(0),
                                   LeaseAction::Wait, 0, ""},
                      DecisionCase{"other_valid_wait", held_by("other", 15, 3), seconds(14),
                                   LeaseAction::Wait, 0, ""},
                      DecisionCase{"other_expired_exactly_take", held_by("other", 15, 3),
                                   seconds(15), LeaseAction::Update, 4, kT0Text},
                      DecisionCase{"other_expired_take", held_by("other", 15, 3), seconds(60),
                                   LeaseAction::Update, 4, kT0Text},
                      // The record's own duration counts (a released lease says 1 s), not ours.
                      DecisionCase{"other_short_lease_expired", held_by("other", 1, 3), seconds(2),
                                   LeaseAction::Update, 4, kT0Text},
                      DecisionCase{"other_long_lease_valid", held_by("other", 60, 3), seconds(30),
                                   LeaseAction::Wait, 0, ""},
                      DecisionCase{"released_take_at_once", held_by("", 1, 7), seconds(0),
                                   LeaseAction::Update, 8, kT0Text},
                      DecisionCase{"ours_renew_keeps_term", held_by("me", 15, 5), seconds(3),
                                   LeaseAction::Update, 5, kOld},
                      DecisionCase{"ours_expired_still_renew", held_by("me", 15, 5), seconds(100),
                                   LeaseAction::Update, 5, kOld}),
    [](const auto& info) { return info.param.name; });

TEST(ReleasedRecord, ClearsHolderAndShortensDurationKeepingTransitions) {
  LeaseRecord r = released_record(held_by("me", 15, 9), kT0);
  EXPECT_EQ(r.holder_identity, "");
  EXPECT_EQ(r.lease_duration_seconds, 1);
  EXPECT_EQ(r.lease_transitions, 9);
  EXPECT_EQ(r.acquire_time, kT0Text);
  EXPECT_EQ(r.renew_time, kT0Text);
}

TEST(FormatMicroTime, IsMetav1MicroTime) {
  EXPECT_EQ(format_micro_time(kT0), kT0Text);
  EXPECT_EQ(format_micro_time(kT0 + std::chrono::microseconds(1234567)),
            "2023-11-14T22:13:21.234567Z");
  EXPECT_EQ(format_micro_time(WallClock::time_point{}), "1970-01-01T00:00:00.000000Z");
}

TEST(ValidateConfig, RejectsWhatClientGoRejects) {
  struct Case {
    std::function<void(LeaderElectionConfig&)> change;
    const char* error;
  };
  for (const auto& c : std::vector<Case>{
           {[](auto& c) { c.lease_name = ""; }, "lease name is empty"},
           {[](auto& c) { c.identity = ""; }, "identity is empty"},
           {[](auto& c) { c.lease_duration = milliseconds(500); }, "at least 1s"},
           {[](auto& c) { c.renew_deadline = seconds(15); }, "greater than renewDeadline"},
           {[](auto& c) { c.retry_period = milliseconds(8400); }, "retryPeriod*JitterFactor"},
           {[](auto& c) { c.retry_period = milliseconds(0); }, "retryPeriod must be > 0"},
           {[](auto& c) { c.renew_deadline = milliseconds(-1); }, "renewDeadline must be > 0"},
       }) {
    LeaderElectionConfig config = config_for("me");
    c.change(config);
    try {
      validate(config);
      ADD_FAILURE() << "accepted; expected: " << c.error;
    } catch (const LeaderElectionConfigError& e) {
      EXPECT_THAT(e.what(), HasSubstr(c.error));
    }
  }
  EXPECT_NO_THROW(validate(config_for("me")));
}

TEST(LeaseJson, RoundTripsAndKeepsFieldsItDoesNotOwn) {
  LeaseRecord r = held_by("me", 15, 2);
  std::string created = lease_json("kube-system", "tailor", r);
  auto doc = boost::json::parse(created).as_object();
  EXPECT_EQ(doc.at("apiVersion").as_string(), "coordination.k8s.io/v1");
  EXPECT_EQ(doc.at("kind").as_string(), "Lease");
  EXPECT_EQ(doc.at("metadata").at("namespace").as_string(), "kube-system");
  EXPECT_EQ(doc.at("spec").at("leaseDurationSeconds").as_int64(), 15);

  std::string server = R"({"apiVersion":"coordination.k8s.io/v1","kind":"Lease",
    "metadata":{"name":"tailor","namespace":"kube-system","resourceVersion":"7",
    "labels":{"team":"a"}},"spec":{"holderIdentity":"other","leaseDurationSeconds":15,
    "acquireTime":"2023-11-14T22:00:00.000000Z","renewTime":"2023-11-14T22:13:00.000000Z",
    "leaseTransitions":2,"strategy":"OldestEmulationVersion"}})";
  LeaseState state = parse_lease(server);
  EXPECT_EQ(state.resource_version, "7");
  EXPECT_EQ(state.record, held_by("other", 15, 2));

  auto updated = boost::json::parse(updated_lease_json(server, held_by("me", 15, 3), "7"));
  EXPECT_EQ(updated.at("metadata").at("labels").at("team").as_string(), "a");
  EXPECT_EQ(updated.at("metadata").at("resourceVersion").as_string(), "7");
  EXPECT_EQ(updated.at("spec").at("holderIdentity").as_string(), "me");
  EXPECT_EQ(updated.at("spec").at("leaseTransitions").as_int64(), 3);
  EXPECT_EQ(updated.at("spec").at("strategy").as_string(), "OldestEmulationVersion");

  // Absent fields read as zero values, as the API server omits them.
  EXPECT_EQ(parse_lease(R"({"metadata":{"name":"x"},"spec":{}})").record, LeaseRecord{});
}

TEST(LeaseJson, BadInputSaysWhichField) {
  for (auto [json, error] : std::vector<std::pair<const char*, const char*>>{
           {"{", "malformed"},
           {"[]", "expected an object"},
           {R"({"spec":[]})", "spec: expected an object"},
           {R"({"spec":{"holderIdentity":5}})", "spec.holderIdentity: expected a string"},
           {R"({"spec":{"leaseDurationSeconds":"15"}})", "leaseDurationSeconds: expected"},
           {R"({"spec":{"leaseTransitions":99999999999}})",
            "leaseTransitions: integer out of range for int32"},
           {R"({"metadata":{"resourceVersion":1}})", "metadata.resourceVersion"}}) {
    try {
      parse_lease(json);
      ADD_FAILURE() << "accepted " << json;
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr(error)) << json;
    }
  }
}

// An in-memory Lease with resourceVersion preconditions, as the API server enforces them.
class MemoryLeaseLock : public LeaseLock {
 public:
  struct Shared {
    std::mutex mutex;
    std::optional<LeaseState> lease;
    int next_version = 1;
    std::atomic<bool> unreachable{false};
  };
  explicit MemoryLeaseLock(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

  std::optional<LeaseState> get() override {
    std::lock_guard lock(shared_->mutex);
    check_reachable();
    return shared_->lease;
  }
  LeaseState create(const LeaseRecord& record) override {
    std::lock_guard lock(shared_->mutex);
    check_reachable();
    if (shared_->lease) throw ApiError(409, "AlreadyExists", "leases \"x\" already exists");
    shared_->lease = LeaseState{record, std::to_string(shared_->next_version++)};
    return *shared_->lease;
  }
  LeaseState update(const LeaseRecord& record, const std::string& rv) override {
    std::lock_guard lock(shared_->mutex);
    check_reachable();
    if (!shared_->lease || shared_->lease->resource_version != rv) {
      throw ApiError(409, "Conflict", "the object has been modified");
    }
    shared_->lease = LeaseState{record, std::to_string(shared_->next_version++)};
    return *shared_->lease;
  }
  std::string describe() const override { return "kube-system/tailor"; }

 private:
  void check_reachable() {
    if (shared_->unreachable) throw TransportError("connection refused (test)");
  }
  std::shared_ptr<Shared> shared_;
};

LeaderElectionConfig fast_config(std::string identity) {
  LeaderElectionConfig c = config_for(std::move(identity));
  c.lease_duration = seconds(1);
  c.renew_deadline = milliseconds(500);
  c.retry_period = milliseconds(50);
  return c;
}

using Observer = testing::LeaderCallbacksRecorder;

TEST(LeaderElector, ExactlyOneOfTwoLeadsAndStopHandsOverAtOnce) {
  auto shared = std::make_shared<MemoryLeaseLock::Shared>();
  Observer a_seen, b_seen;
  auto a = std::make_unique<LeaderElector>(std::make_shared<MemoryLeaseLock>(shared),
                                           fast_config("a"), a_seen.callbacks());
  LeaderElector b(std::make_shared<MemoryLeaseLock>(shared), fast_config("b"), b_seen.callbacks());
  a->start();
  ASSERT_TRUE(a_seen.wait_for([&] { return a_seen.started == 1; }));
  b.start();
  ASSERT_TRUE(b_seen.wait_for([&] { return !b_seen.leaders.empty(); }));
  EXPECT_EQ(b_seen.leaders.front(), "a");
  EXPECT_TRUE(a->is_leader());
  EXPECT_FALSE(b.is_leader());
  EXPECT_EQ(b.leader(), "a");

  a->stop();  // releases: b takes over without waiting for expiry
  EXPECT_EQ(a_seen.stopped, 1);
  ASSERT_TRUE(b_seen.wait_for([&] { return b_seen.started == 1; }));
  std::lock_guard lock(shared->mutex);
  EXPECT_EQ(shared->lease->record.holder_identity, "b");
  // Created by a (0); the release keeps the count; b taking over is one transition.
  EXPECT_EQ(shared->lease->record.lease_transitions, 1);
  EXPECT_EQ(shared->lease->record.lease_duration_seconds, 1);
}

TEST(LeaderElector, TakesOverAnExpiredLeaseOfACrashedHolder) {
  auto shared = std::make_shared<MemoryLeaseLock::Shared>();
  shared->lease = LeaseState{held_by("crashed", 1, 4), "1"};
  shared->next_version = 2;
  Observer seen;
  LeaderElector b(std::make_shared<MemoryLeaseLock>(shared), fast_config("b"), seen.callbacks());
  b.start();
  ASSERT_TRUE(seen.wait_for([&] { return seen.started == 1; }));
  EXPECT_EQ(seen.leaders, (std::vector<std::string>{"crashed", "b"}));
  std::lock_guard lock(shared->mutex);
  EXPECT_EQ(shared->lease->record.lease_transitions, 5);
  EXPECT_EQ(shared->lease->record.holder_identity, "b");
}

TEST(LeaderElector, LosesLeadershipWhenRenewalsFailPastTheDeadlineAndComesBack) {
  auto shared = std::make_shared<MemoryLeaseLock::Shared>();
  Observer seen;
  LeaderElector a(std::make_shared<MemoryLeaseLock>(shared), fast_config("a"), seen.callbacks());
  a.start();
  ASSERT_TRUE(seen.wait_for([&] { return seen.started == 1; }));
  shared->unreachable = true;
  ASSERT_TRUE(seen.wait_for([&] { return seen.stopped == 1; }));
  EXPECT_FALSE(a.is_leader());
  shared->unreachable = false;
  ASSERT_TRUE(seen.wait_for([&] { return seen.started == 2; }));
}

TEST(LeaderElector, SingleAttemptsFollowTheLeaseAndLoseRacesOnConflict) {
  auto shared = std::make_shared<MemoryLeaseLock::Shared>();
  Observer seen;
  LeaderElector a(std::make_shared<MemoryLeaseLock>(shared), fast_config("a"), seen.callbacks());
  EXPECT_TRUE(a.try_acquire_or_renew());  // creates
  EXPECT_EQ(shared->lease->record.lease_transitions, 0);
  EXPECT_TRUE(a.try_acquire_or_renew());  // renews
  EXPECT_EQ(shared->lease->resource_version, "2");

  // Someone else writes between our read and our update: 409, not leading.
  class RacingLock : public MemoryLeaseLock {
   public:
    using MemoryLeaseLock::MemoryLeaseLock;
    LeaseState update(const LeaseRecord& record, const std::string& rv) override {
      return MemoryLeaseLock::update(record, std::to_string(std::stoi(rv) - 1));
    }
  };
  LeaderElector racer(std::make_shared<RacingLock>(shared), fast_config("a"), {});
  EXPECT_FALSE(racer.try_acquire_or_renew());
  EXPECT_THROW(LeaderElector(nullptr, fast_config("a"), {}), LeaderElectionConfigError);
}

}  // namespace
}  // namespace tailor::kube
