// The VerticalScalingCheckpoint objects' pure parts: names, bodies and reading a list back.
#include "controller/app/checkpoints.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace tailor::controller {
namespace {

namespace bj = boost::json;
using policy::PolicyApi;

TEST(CheckpointName, FollowsVpaAndKeepsKindsApart) {
  EXPECT_EQ(checkpoint_name("web", PolicyApi::VerticalScalingPolicy, "app"), "web-app");
  EXPECT_EQ(checkpoint_name("web", PolicyApi::VerticalPodAutoscaler, "app"), "vpa-web-app");
}

TEST(CheckpointName, LongNamesAreCutWithAHash) {
  const std::string policy(250, 'p');
  const std::string a = checkpoint_name(policy, PolicyApi::VerticalScalingPolicy, "app");
  const std::string b = checkpoint_name(policy, PolicyApi::VerticalScalingPolicy, "sidecar");
  EXPECT_EQ(a.size(), 253u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.substr(0, 244), policy.substr(0, 244));
}

CheckpointRecord record() {
  return {.ns = "shop",
          .name = "web-app",
          .policy_name = "web",
          .policy_api = PolicyApi::VerticalPodAutoscaler,
          .container = "app",
          .strategy = "vpa",
          .state = "v1;0;60;2;0;1;3:10000;0;1;40:10000",
          .samples = {0, 60, 2}};
}

TEST(CheckpointObject, CarriesSpecAndStatus) {
  const auto now = kube::parse_rfc3339("2026-01-02T03:04:05Z");
  const bj::value o = bj::parse(checkpoint_object(record(), now));
  EXPECT_EQ(o.at("kind"), "VerticalScalingCheckpoint");
  EXPECT_EQ(o.at("metadata").at("namespace"), "shop");
  EXPECT_EQ(o.at("spec").at("policyName"), "web");
  EXPECT_EQ(o.at("spec").at("policyKind"), "VerticalPodAutoscaler");
  EXPECT_EQ(o.at("spec").at("containerName"), "app");
  const bj::value& s = o.at("status");
  EXPECT_EQ(s.at("version"), "v1");
  EXPECT_EQ(s.at("lastUpdateTime"), "2026-01-02T03:04:05Z");
  EXPECT_EQ(s.at("lastSampleStart"), "1970-01-01T00:01:00Z");
  EXPECT_EQ(s.at("totalSamplesCount"), 2);
  EXPECT_EQ(s.at("state").as_string(), record().state);
  EXPECT_EQ(bj::parse(checkpoint_status_patch(record(), now)).at("status"), s);
}

TEST(CheckpointList, ReadsBackWhatWasWritten) {
  const auto now = kube::TimePoint(std::chrono::seconds(100));
  const std::string list = R"({"kind":"VerticalScalingCheckpointList","items":[)" +
                           checkpoint_object(record(), now) + "]}";
  const std::vector<CheckpointRecord> items = parse_checkpoint_list(list);
  ASSERT_EQ(items.size(), 1u);
  const CheckpointRecord& r = items[0];
  EXPECT_EQ(r.problem, "");
  EXPECT_EQ(r.policy_key(), "shop/web");
  EXPECT_EQ(r.policy_api, PolicyApi::VerticalPodAutoscaler);
  EXPECT_EQ(r.container, "app");
  EXPECT_EQ(r.strategy, "vpa");
  EXPECT_EQ(r.state, record().state);
}

TEST(CheckpointList, UnreadableItemsSayWhy) {
  const auto items = parse_checkpoint_list(R"({"items":[
    {"metadata":{"name":"a","namespace":"x"},"spec":{"policyName":"web"}},
    {"metadata":{"name":"b","namespace":"x"},"spec":{"policyName":"web","containerName":"c",
     "policyKind":"Deployment"}},
    {"metadata":{"name":"c","namespace":"x"},"spec":{"policyName":"web","containerName":"c"},
     "status":{"state":42}},
    {"metadata":{"name":"d","namespace":"x"},"spec":{"policyName":"web","containerName":"c"}}]})");
  ASSERT_EQ(items.size(), 4u);
  EXPECT_NE(items[0].problem.find("containerName"), std::string::npos);
  EXPECT_NE(items[1].problem.find("Deployment"), std::string::npos);
  EXPECT_NE(items[2].problem.find("status.state"), std::string::npos);
  EXPECT_EQ(items[3].problem, "");  // created, nothing saved yet
  EXPECT_EQ(items[3].state, "");
  EXPECT_THROW(parse_checkpoint_list("{not json"), std::runtime_error);
  EXPECT_TRUE(parse_checkpoint_list(R"({"items":null})").empty());
}

}  // namespace
}  // namespace tailor::controller
