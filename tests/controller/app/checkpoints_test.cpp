// The VerticalScalingCheckpoint objects' pure parts: names, bodies and reading a list back.
#include "controller/app/checkpoints.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "recommender/checkpoint.h"

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
  // The vpa strategy's model in VPA's shape, not as text.
  EXPECT_FALSE(s.as_object().contains("state"));
  const bj::value& cpu = s.at("cpuHistogram");
  EXPECT_EQ(cpu.at("referenceTimestamp"), "1970-01-01T00:00:00Z");
  EXPECT_EQ(cpu.at("totalWeight").to_number<double>(), 1.0);
  EXPECT_EQ(cpu.at("bucketWeights"), (bj::object{{"3", 10000}}));
  EXPECT_EQ(s.at("memoryHistogram").at("bucketWeights"), (bj::object{{"40", 10000}}));
  // The status subresource gets the whole status (JSON patch), so no bucket of an older write
  // survives the way a merge patch would merge bucketWeights.
  const bj::value patch = bj::parse(checkpoint_status_patch(record(), now));
  EXPECT_EQ(patch.at(0).at("op"), "add");
  EXPECT_EQ(patch.at(0).at("path"), "/status");
  EXPECT_EQ(patch.at(0).at("value"), s);
}

TEST(CheckpointObject, DefaultStrategyKeepsItsStateText) {
  CheckpointRecord r = record();
  r.strategy = "default";
  r.state = "default1;1;2;3";
  const bj::value s = bj::parse(checkpoint_object(r, kube::TimePoint{})).at("status");
  EXPECT_EQ(s.at("state"), "default1;1;2;3");
  EXPECT_EQ(s.at("version"), "default1");
  EXPECT_FALSE(s.as_object().contains("cpuHistogram"));
}

// VPA's own checkpoint, as its recommender writes one (types.go VerticalPodAutoscalerCheckpoint,
// checkpoint_writer.go): "<vpa>-<container>", spec.vpaObjectName and containerName, status
// version "v3" with the same histograms as Tailor's checkpoint carries.
TEST(VpaCheckpointObject, AsVpasRecommenderWritesIt) {
  const auto now = kube::parse_rfc3339("2026-01-02T03:04:05Z");
  const std::optional<std::string> text = vpa_checkpoint_object(record(), now);
  ASSERT_TRUE(text);
  const bj::value o = bj::parse(*text);
  EXPECT_EQ(o.at("apiVersion"), "autoscaling.k8s.io/v1");
  EXPECT_EQ(o.at("kind"), "VerticalPodAutoscalerCheckpoint");
  EXPECT_EQ(o.at("metadata").at("name"), "web-app");
  EXPECT_EQ(o.at("metadata").at("namespace"), "shop");
  EXPECT_EQ(o.at("spec"), (bj::object{{"vpaObjectName", "web"}, {"containerName", "app"}}));
  const bj::value& s = o.at("status");
  EXPECT_EQ(s.at("version"), "v3");
  EXPECT_EQ(s.at("lastUpdateTime"), "2026-01-02T03:04:05Z");
  EXPECT_EQ(s.at("totalSamplesCount"), 2);
  const bj::value ours = bj::parse(checkpoint_object(record(), now)).at("status");
  for (const char* field :
       {"cpuHistogram", "memoryHistogram", "firstSampleStart", "lastSampleStart"}) {
    EXPECT_EQ(s.at(field), ours.at(field)) << field;
  }
  EXPECT_FALSE(s.as_object().contains("strategy"));
  EXPECT_EQ(vpa_checkpoint_name("web", "app"), "web-app");
}

// Only a VPA object's model under the vpa strategy has VPA's form.
TEST(VpaCheckpointObject, NoneForOtherPoliciesOrStrategies) {
  CheckpointRecord vsp = record();
  vsp.policy_api = PolicyApi::VerticalScalingPolicy;
  EXPECT_FALSE(vpa_checkpoint_object(vsp, kube::TimePoint{}));
  CheckpointRecord tailored = record();
  tailored.strategy = "default";
  tailored.state = "default1;1;2;3";
  EXPECT_FALSE(vpa_checkpoint_object(tailored, kube::TimePoint{}));
}

// A VPA model written as histograms and read back is the same model: same state text, same
// recommendation.
TEST(CheckpointRoundTrip, VpaHistogramsRestoreTheModel) {
  auto factory =
      std::shared_ptr<const recommender::StrategyFactory>(recommender::make_vpa_strategy());
  recommendation::ModelRegistry before(factory);
  const recommendation::ContainerModelKey key{"shop/web", "app"};
  for (recommender::Seconds t = 1'800'000'000; t < 1'800'000'000 + 6 * 3600; t += 60) {
    const double phase = static_cast<double>(t % 3600) / 3600;
    before.observe(key,
                   {.start = t,
                    .length = 60,
                    .cpu_cores = 0.2 + 0.6 * phase,
                    .memory_peak_bytes = (200 + 150 * phase) * 1024 * 1024},
                   {.cpu_cores = 0.1, .memory_bytes = 100.0 * 1024 * 1024});
  }
  const auto saved = before.save(key);
  ASSERT_TRUE(saved.has_value());
  CheckpointRecord r{.ns = "shop",
                     .name = "web-app",
                     .policy_name = "web",
                     .container = "app",
                     .strategy = "vpa",
                     .state = saved->state,
                     .samples = saved->samples};
  const std::string object = checkpoint_object(r, kube::TimePoint{});
  const bj::value status = bj::parse(object).at("status");
  EXPECT_EQ(status.at("totalSamplesCount"), 360);
  for (const char* h : {"cpuHistogram", "memoryHistogram"}) {
    std::int64_t largest = 0;
    for (const auto& [bucket, w] : status.at(h).at("bucketWeights").as_object()) {
      largest = std::max(largest, w.as_int64());
    }
    EXPECT_EQ(largest, 10000) << h;
    EXPECT_GT(status.at(h).at("totalWeight").to_number<double>(), 0) << h;
  }

  const auto items =
      parse_checkpoint_list(R"({"kind":"VerticalScalingCheckpointList","items":[)" + object + "]}");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].problem, "");
  EXPECT_EQ(items[0].strategy, "vpa");
  EXPECT_EQ(items[0].state, saved->state);
  recommendation::ModelRegistry after(factory);
  ASSERT_TRUE(after.restore(key, items[0].state));
  const recommender::Seconds now = 1'800'000'000 + 6 * 3600;
  const auto want = before.recommend(key, now);
  const auto got = after.recommend(key, now);
  ASSERT_TRUE(want && got);
  EXPECT_EQ(got->target.cpu_cores, want->target.cpu_cores);
  EXPECT_EQ(got->target.memory_bytes, want->target.memory_bytes);
  EXPECT_EQ(got->upper_bound.memory_bytes, want->upper_bound.memory_bytes);
}

// Checkpoints written in VPA's shape by hand (or converted from VPA's own) are read too, and
// a wrong field is named.
TEST(CheckpointList, VpaHistogramsAreReadAndCheckedField) {
  const auto items = parse_checkpoint_list(R"({"items":[
    {"metadata":{"name":"a","namespace":"x"},"spec":{"policyName":"web","containerName":"c"},
     "status":{"firstSampleStart":"1970-01-01T00:00:00Z","lastSampleStart":"1970-01-01T00:01:00Z",
       "totalSamplesCount":2,
       "cpuHistogram":{"referenceTimestamp":"1970-01-01T00:00:00Z","totalWeight":1,
         "bucketWeights":{"4":215,"3":10000}},
       "memoryHistogram":{"referenceTimestamp":"1970-01-01T00:00:00Z","totalWeight":1.5,
         "bucketWeights":{"40":10000}}}},
    {"metadata":{"name":"b","namespace":"x"},"spec":{"policyName":"web","containerName":"c"},
     "status":{"cpuHistogram":{"totalWeight":1,"bucketWeights":{"x":1}}}},
    {"metadata":{"name":"c","namespace":"x"},"spec":{"policyName":"web","containerName":"c"},
     "status":{"memoryHistogram":{"totalWeight":1,"bucketWeights":{"3":-1}}}},
    {"metadata":{"name":"d","namespace":"x"},"spec":{"policyName":"web","containerName":"c"},
     "status":{"totalSamplesCount":1,"lastSampleStart":"1970-01-01T00:00:00Z",
       "firstSampleStart":"1970-01-01T00:01:00Z","cpuHistogram":{}}}]})");
  ASSERT_EQ(items.size(), 4u);
  EXPECT_EQ(items[0].problem, "");
  EXPECT_EQ(items[0].strategy, "vpa");
  EXPECT_EQ(items[0].state, "v1;0;60;2;0;1;3:10000,4:215;0;1.5;40:10000");
  EXPECT_EQ(items[1].problem, "status.cpuHistogram.bucketWeights.x: not a bucket index");
  EXPECT_EQ(items[2].problem, "status.memoryHistogram.bucketWeights.3: out of range");
  EXPECT_NE(items[3].problem.find("inconsistent"), std::string::npos) << items[3].problem;
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
