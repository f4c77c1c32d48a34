// ResourceQuota's pod usage and check, and LimitRange defaulting and limits, as pure functions:
// tables with Kubernetes' messages.
#include "embedded/quota/quota.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/quota/limit_range.h"
#include "embedded/resize/resource_json.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object parse(const std::string& text) { return bj::parse(text).as_object(); }

kube::ResourceList list(std::initializer_list<std::pair<const char*, const char*>> entries) {
  kube::ResourceList out;
  for (auto [name, q] : entries) out.insert_or_assign(name, kube::Quantity::parse(q));
  return out;
}

bj::object pod_with(const std::string& containers, const std::string& status = "{}") {
  return parse(R"({"metadata":{"name":"p"},"spec":{"containers":)" + containers + R"(},"status":)" +
               status + "}");
}

TEST(PodQuotaUsage, CountsRequestsLimitsAndThePod) {
  bj::object pod = pod_with(R"([{"name":"a","resources":{"requests":{"cpu":"250m","memory":"64Mi"},
      "limits":{"cpu":"500m"}}},{"name":"b","resources":{"requests":{"cpu":"250m"}}}])");
  EXPECT_EQ(pod_quota_usage(decode_pod(pod)), list({{"count/pods", "1"},
                                                    {"cpu", "500m"},
                                                    {"limits.cpu", "500m"},
                                                    {"memory", "64Mi"},
                                                    {"pods", "1"},
                                                    {"requests.cpu", "500m"},
                                                    {"requests.memory", "64Mi"}}));
}

TEST(PodQuotaUsage, TerminalPodsCountNothing) {
  bj::object pod = pod_with(R"([{"name":"a","resources":{"requests":{"cpu":"1"}}}])",
                            R"({"phase":"Succeeded"})");
  EXPECT_TRUE(pod_quota_usage(decode_pod(pod)).empty());
}

TEST(PodQuotaUsage, ResizeCountsTheLargestOfDesiredAllocatedActual) {
  // Desired 200m, allocated 500m (a decrease not yet actuated): quota keeps 500m.
  bj::object pod = pod_with(
      R"([{"name":"a","resources":{"requests":{"cpu":"200m"}}}])",
      R"({"phase":"Running","containerStatuses":[{"name":"a","allocatedResources":{"cpu":"500m"},
          "resources":{"requests":{"cpu":"500m"}}}]})");
  EXPECT_EQ(pod_quota_usage(decode_pod(pod)).at("requests.cpu"), kube::Quantity::parse("500m"));
}

TEST(MissingRequired, NamesEachQuotaResourceAndItsContainers) {
  bj::object pod = pod_with(R"([{"name":"b","resources":{"requests":{"cpu":"1"}}},
      {"name":"a"}])");
  kube::Pod typed = decode_pod(pod);
  EXPECT_EQ(missing_required(typed, list({{"pods", "3"}})), std::nullopt);
  EXPECT_EQ(missing_required(typed, list({{"requests.cpu", "3"}, {"limits.memory", "1Gi"}})),
            "must specify limits.memory for: a,b; requests.cpu for: a");
}

TEST(QuotaScopes, SelectPodsAsThePodEvaluator) {
  bj::object best_effort = pod_with(R"([{"name":"a"}])", R"({"qosClass":"BestEffort"})");
  bj::object burstable = pod_with(R"([{"name":"a","resources":{"requests":{"cpu":"1"}}}])",
                                  R"({"qosClass":"Burstable"})");
  burstable["spec"].as_object()["activeDeadlineSeconds"] = 30;
  burstable["spec"].as_object()["priorityClassName"] = "high";
  auto quota = [](const std::string& spec) { return parse(R"({"spec":)" + spec + "}"); };
  EXPECT_TRUE(quota_selects(quota(R"({"hard":{"pods":"1"}})"), best_effort));
  EXPECT_TRUE(quota_selects(quota(R"({"scopes":["BestEffort"]})"), best_effort));
  EXPECT_FALSE(quota_selects(quota(R"({"scopes":["BestEffort"]})"), burstable));
  EXPECT_TRUE(quota_selects(quota(R"({"scopes":["NotBestEffort","Terminating"]})"), burstable));
  EXPECT_FALSE(quota_selects(quota(R"({"scopes":["NotTerminating"]})"), burstable));
  const char* high = R"({"scopeSelector":{"matchExpressions":[
      {"scopeName":"PriorityClass","operator":"In","values":["high"]}]}})";
  EXPECT_TRUE(quota_selects(quota(high), burstable));
  EXPECT_FALSE(quota_selects(quota(high), best_effort));
}

TEST(PositiveDelta, KeepsOnlyIncreases) {
  EXPECT_EQ(positive_delta(list({{"requests.cpu", "1"}, {"requests.memory", "1Gi"}}),
                           list({{"requests.cpu", "500m"}, {"requests.memory", "2Gi"}})),
            list({{"requests.cpu", "500m"}}));
}

struct QuotaCase {
  std::string name;
  kube::ResourceList hard, used, requested;
  std::optional<std::string> message;
};

class QuotaCheck : public ::testing::TestWithParam<QuotaCase> {};

TEST_P(QuotaCheck, AsTheResourceQuotaPlugin) {
  const QuotaCase& c = GetParam();
  EXPECT_EQ(quota_exceeded({"compute", c.hard, c.used}, c.requested), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, QuotaCheck,
    ::testing::Values(
        QuotaCase{"fits", list({{"requests.cpu", "1"}}), list({{"requests.cpu", "400m"}}),
                  list({{"requests.cpu", "600m"}, {"pods", "1"}}), std::nullopt},
        QuotaCase{"cpu exceeded", list({{"requests.cpu", "1"}, {"pods", "5"}}),
                  list({{"requests.cpu", "600m"}, {"pods", "1"}}),
                  list({{"requests.cpu", "600m"}, {"pods", "1"}}),
                  "exceeded quota: compute, requested: requests.cpu=600m, used: "
                  "requests.cpu=600m, limited: requests.cpu=1"},
        QuotaCase{"two resources, sorted", list({{"requests.memory", "1Gi"}, {"pods", "1"}}),
                  list({{"requests.memory", "512Mi"}, {"pods", "1"}}),
                  list({{"requests.memory", "768Mi"}, {"pods", "1"}}),
                  "exceeded quota: compute, requested: pods=1,requests.memory=768Mi, used: "
                  "pods=1,requests.memory=512Mi, limited: pods=1,requests.memory=1Gi"},
        QuotaCase{"nothing used yet", list({{"limits.cpu", "1"}}), kube::ResourceList{},
                  list({{"limits.cpu", "2"}}),
                  "exceeded quota: compute, requested: limits.cpu=2, used: limits.cpu=0, "
                  "limited: limits.cpu=1"},
        QuotaCase{"untracked resources pass", list({{"pods", "10"}}), kube::ResourceList{},
                  list({{"requests.cpu", "100"}, {"pods", "1"}}), std::nullopt}),
    [](const ::testing::TestParamInfo<QuotaCase>& info) {
      std::string n;
      for (char ch : info.param.name) n += std::isalnum(ch) ? ch : '_';
      return n;
    });

const char* kLimitRange = R"({"metadata":{"name":"limits"},"spec":{"limits":[
  {"type":"Container","max":{"cpu":"1","memory":"1Gi"},"min":{"cpu":"50m"},
   "default":{"cpu":"500m"},"defaultRequest":{"cpu":"100m","memory":"64Mi"},
   "maxLimitRequestRatio":{"cpu":"4"}}]}})";

TEST(LimitRangeDefaults, FillsWhatContainersLeaveUnset) {
  bj::object pod = pod_with(R"([{"name":"app"},{"name":"side","resources":{"limits":{"cpu":"200m"},
      "requests":{"cpu":"200m"}}}])");
  ASSERT_TRUE(apply_limit_range_defaults(pod, parse(kLimitRange)));
  const bj::array& cs = pod["spec"].as_object()["containers"].as_array();
  EXPECT_EQ(bj::serialize(cs[0].at("resources")),
            R"({"limits":{"cpu":"500m"},"requests":{"cpu":"100m","memory":"64Mi"}})");
  EXPECT_EQ(bj::serialize(cs[1].at("resources")),
            R"({"limits":{"cpu":"200m"},"requests":{"cpu":"200m","memory":"64Mi"}})");
  EXPECT_EQ(pod["metadata"].as_object()["annotations"].at("kubernetes.io/limit-ranger").as_string(),
            "LimitRanger plugin set: cpu, memory request for container app; cpu limit for "
            "container app; memory request for container side");
}

TEST(LimitRangeDefaults, NothingToDoLeavesThePodAlone) {
  bj::object pod = pod_with(R"([{"name":"app","resources":{"limits":{"cpu":"200m"},
      "requests":{"cpu":"200m","memory":"1Mi"}}}])");
  bj::object before = pod;
  EXPECT_FALSE(apply_limit_range_defaults(pod, parse(kLimitRange)));
  EXPECT_EQ(pod, before);
}

TEST(LimitRangeObjectDefaults, AsSetDefaultsLimitRangeItem) {
  bj::object lr = parse(R"({"spec":{"limits":[{"type":"Container","max":{"cpu":"2"},
      "min":{"memory":"1Mi"}},{"type":"Pod","max":{"cpu":"4"}}]}})");
  default_limit_range(lr);
  EXPECT_EQ(bj::serialize(lr["spec"].at("limits")),
            R"([{"type":"Container","max":{"cpu":"2"},"min":{"memory":"1Mi"},)"
            R"("default":{"cpu":"2"},"defaultRequest":{"cpu":"2","memory":"1Mi"}},)"
            R"({"type":"Pod","max":{"cpu":"4"}}])");
}

struct LimitCase {
  std::string name;
  std::string containers;
  std::vector<std::string> violations;
};

class LimitRangeCheck : public ::testing::TestWithParam<LimitCase> {};

TEST_P(LimitRangeCheck, AsTheLimitRanger) {
  EXPECT_EQ(limit_range_violations(pod_with(GetParam().containers), parse(kLimitRange)),
            GetParam().violations);
}

INSTANTIATE_TEST_SUITE_P(
    Table, LimitRangeCheck,
    ::testing::Values(
        LimitCase{"within",
                  R"([{"name":"a","resources":{"requests":{"cpu":"200m"},
            "limits":{"cpu":"400m","memory":"128Mi"}}}])",
                  {}},
        LimitCase{"above max",
                  R"([{"name":"a","resources":{"requests":{"cpu":"1"},
            "limits":{"cpu":"2","memory":"128Mi"}}}])",
                  {"maximum cpu usage per Container is 1, but limit is 2"}},
        LimitCase{"below min",
                  R"([{"name":"a","resources":{"requests":{"cpu":"10m"},
            "limits":{"cpu":"20m","memory":"128Mi"}}}])",
                  {"minimum cpu usage per Container is 50m, but request is 10m"}},
        LimitCase{"no limit, no request",
                  R"([{"name":"a"}])",
                  {"minimum cpu usage per Container is 50m.  No request is specified",
                   "maximum cpu usage per Container is 1.  No limit is specified",
                   "maximum memory usage per Container is 1Gi.  No limit is specified",
                   "cpu max limit to request ratio per Container is 4, but no request is "
                   "specified or request is 0"}},
        LimitCase{"ratio",
                  R"([{"name":"a","resources":{"requests":{"cpu":"100m"},
            "limits":{"cpu":"1","memory":"128Mi"}}}])",
                  {"cpu max limit to request ratio per Container is 4, but provided ratio is "
                   "10.000000"}}),
    [](const ::testing::TestParamInfo<LimitCase>& info) {
      std::string n;
      for (char ch : info.param.name) n += std::isalnum(ch) ? ch : '_';
      return n;
    });

TEST(LimitRangeCheck, PodItemsUseThePodTotals) {
  bj::object lr = parse(R"({"spec":{"limits":[{"type":"Pod","max":{"cpu":"1"}}]}})");
  bj::object pod = pod_with(R"([{"name":"a","resources":{"requests":{"cpu":"600m"},
      "limits":{"cpu":"600m"}}},{"name":"b","resources":{"requests":{"cpu":"600m"},
      "limits":{"cpu":"600m"}}}])");
  EXPECT_EQ(limit_range_violations(pod, lr),
            std::vector<std::string>{"maximum cpu usage per Pod is 1, but limit is 1200m"});
}

TEST(Aggregate, OneAsIsSeveralBracketed) {
  EXPECT_EQ(aggregate({"a"}), "a");
  EXPECT_EQ(aggregate({"a", "b", "a"}), "[a, b]");
}

}  // namespace
}  // namespace tailor::embedded
