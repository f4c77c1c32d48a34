#include "controller/app/oom_kills.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tailor::controller {
namespace {

using std::chrono::seconds;

const kube::TimePoint kT0 = kube::TimePoint(std::chrono::hours(24 * 365 * 56));

kube::TimePoint at(int s) { return kT0 + seconds(s); }

// A pod whose containers' lastState shows these OOM kills (nullopt: not OOM-killed).
actuator::PodFacts pod(const std::string& uid,
                       std::vector<std::pair<std::string, std::optional<int>>> kills) {
  auto status = std::make_shared<actuator::PodStatusFacts>();
  for (const auto& [name, when] : kills) {
    status->container_statuses.push_back(
        {.name = name, .oom_killed_at = when ? std::optional(at(*when)) : std::nullopt});
  }
  return actuator::PodFacts{.name = "p",
                            .uid = uid,
                            .shared_meta = std::make_shared<kube::ObjectMeta>(),
                            .spec = std::make_shared<actuator::PodSpecFacts>(),
                            .status = std::move(status)};
}

// One observation: a pass reading a pod's status, or an agent window counting a kill.
struct Step {
  OomSource source;
  std::string uid;
  std::string container;
  std::optional<int> kill;  // seconds after kT0: finishedAt, or the agent window's end
  int now;                  // seconds after kT0
  std::vector<int> fed;     // the kills fed to the model at this step
};

TEST(OomLedger, FeedsEachKillOnceWhicheverSourceSeesItFirst) {
  struct Case {
    const char* name;
    std::vector<Step> steps;
  };
  const OomSource S = OomSource::Status, A = OomSource::Agent;
  const Case cases[] = {
      {"a status kill is fed at once and once only",
       {{S, "u1", "app", 100, 105, {100}}, {S, "u1", "app", 100, 115, {}}}},
      {"a container never OOM-killed feeds nothing", {{S, "u1", "app", std::nullopt, 105, {}}}},
      {"the next kill of the same container is a new one",
       {{S, "u1", "app", 100, 105, {100}}, {S, "u1", "app", 130, 135, {130}}}},
      {"the same time in another container or pod is another kill",
       {{S, "u1", "app", 100, 105, {100}},
        {S, "u1", "side", 100, 105, {100}},
        {S, "u2", "app", 100, 105, {100}}}},
      {"agent first, then the status of the same kill: fed once",
       {{A, "u1", "app", 110, 111, {110}}, {S, "u1", "app", 100, 115, {}}}},
      {"status first, then the agent's window of the same kill: fed once",
       {{S, "u1", "app", 100, 105, {100}}, {A, "u1", "app", 110, 111, {}}}},
      {"same_event is inclusive: 60 s apart is the same kill",
       {{A, "u1", "app", 160, 161, {160}}, {S, "u1", "app", 100, 165, {}}}},
      {"61 s apart are two kills",
       {{A, "u1", "app", 161, 162, {161}}, {S, "u1", "app", 100, 165, {100}}}},
      {"the agent kill of another container does not stand for this one",
       {{A, "u1", "side", 110, 111, {110}}, {S, "u1", "app", 100, 115, {100}}}},
      {"one agent kill stands for one status kill only",
       {{A, "u1", "app", 110, 111, {110}},
        {S, "u1", "app", 100, 115, {}},
        {S, "u1", "app", 125, 130, {125}}}},
      {"agent kills never match each other: each increment is a kill",
       {{A, "u1", "app", 110, 111, {110}}, {A, "u1", "app", 125, 126, {125}}}},
      {"a status kill already paired with the agent is not fed when read again",
       {{A, "u1", "app", 110, 111, {110}},
        {S, "u1", "app", 100, 115, {}},
        {S, "u1", "app", 100, 125, {}}}},
      {"a kill older than retention is not fed (a fresh controller, an old lastState)",
       {{S, "u1", "app", 100, 100 + 3600, {}}, {S, "u1", "app", 101, 100 + 3600, {101}}}},
      {"a kill forgotten after retention is not fed again",
       {{S, "u1", "app", 100, 105, {100}}, {S, "u1", "app", 100, 100 + 7200, {}}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    OomLedger ledger;
    for (std::size_t i = 0; i < c.steps.size(); ++i) {
      SCOPED_TRACE("step " + std::to_string(i));
      const Step& s = c.steps[i];
      std::vector<int> fed;
      if (s.source == S) {
        for (const OomKill& k :
             ledger.take_status_kills(pod(s.uid, {{s.container, s.kill}}), at(s.now))) {
          EXPECT_EQ(k.pod_uid, s.uid);
          EXPECT_EQ(k.container, s.container);
          fed.push_back(static_cast<int>(std::chrono::duration_cast<seconds>(k.at - kT0).count()));
        }
      } else if (ledger.take_agent_kill(
                     {.pod_uid = s.uid, .container = s.container, .at = at(*s.kill)}, at(s.now))) {
        fed.push_back(*s.kill);
      }
      EXPECT_EQ(fed, s.fed);
    }
  }
}

TEST(OomLedger, StaysBoundedAndNeverFeedsWhatItDropped) {
  OomLedger ledger({.max_kills = 3});
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(
        ledger.take_status_kills(pod("u" + std::to_string(i), {{"app", 10 + i}}), at(20)).size(),
        1u);
  }
  EXPECT_EQ(ledger.size(), 3u);
  // u1's kill was dropped for room: reading its status again must not feed it a second time,
  // and so must not an older kill of any pod.
  EXPECT_TRUE(ledger.take_status_kills(pod("u1", {{"app", 11}}), at(30)).empty());
  EXPECT_TRUE(ledger.take_status_kills(pod("u9", {{"app", 9}}), at(30)).empty());
  // A kill after the dropped ones is fed.
  EXPECT_EQ(ledger.take_status_kills(pod("u9", {{"app", 25}}), at(30)).size(), 1u);
  EXPECT_EQ(ledger.size(), 3u);
}

// A controller that starts again reads the ledger back from its state ConfigMap: what was fed
// is not fed again, pairs stay paired, and what was dropped stays below the horizon.
TEST(OomLedger, SavedAndRestoredItFeedsNothingTwice) {
  OomLedger ledger({.max_kills = 2});
  ASSERT_TRUE(ledger.take_agent_kill({.pod_uid = "u1", .container = "app", .at = at(10)}, at(11)));
  ASSERT_TRUE(ledger.take_status_kills(pod("u1", {{"app", 5}}), at(20)).empty());    // its pair
  ASSERT_EQ(ledger.take_status_kills(pod("u2", {{"app", 12}}), at(20)).size(), 1u);  // drops u1's
  OomLedger restored({.max_kills = 2});
  restored.restore(ledger.save());
  EXPECT_EQ(restored.size(), 2u);
  EXPECT_EQ(restored.save(), ledger.save());
  EXPECT_TRUE(restored.take_status_kills(pod("u1", {{"app", 5}}), at(30)).empty());
  EXPECT_TRUE(restored.take_status_kills(pod("u2", {{"app", 12}}), at(30)).empty());
  // A later agent window is a kill of its own, and so is a later status kill.
  EXPECT_TRUE(
      restored.take_agent_kill({.pod_uid = "u1", .container = "app", .at = at(40)}, at(41)));
  EXPECT_EQ(restored.take_status_kills(pod("u3", {{"app", 50}}), at(55)).size(), 1u);
}

TEST(OomLedger, RefusesAMalformedSaveAndKeepsWhatItHad) {
  OomLedger ledger;
  ledger.take_status_kills(pod("u1", {{"app", 10}}), at(20));
  for (const char* bad : {"", "[]", R"({"kills":[]})", R"({"dropped":"x","kills":[]})",
                          R"({"dropped":"2026-01-01T00:00:00Z","kills":[{"pod":"u"}]})"}) {
    SCOPED_TRACE(bad);
    EXPECT_ANY_THROW(ledger.restore(bad));
    EXPECT_EQ(ledger.size(), 1u);
  }
}

TEST(OomLedger, ForgetsKillsPastRetention) {
  OomLedger ledger({.retention = seconds(100)});
  ledger.take_status_kills(pod("u1", {{"app", 10}}), at(20));
  ledger.take_agent_kill({.pod_uid = "u2", .container = "app", .at = at(15)}, at(20));
  EXPECT_EQ(ledger.size(), 2u);
  ledger.take_status_kills(pod("u3", {{"app", std::nullopt}}), at(200));
  ledger.take_agent_kill({.pod_uid = "u2", .container = "app", .at = at(150)}, at(200));
  EXPECT_EQ(ledger.size(), 1u);
}

}  // namespace
}  // namespace tailor::controller
