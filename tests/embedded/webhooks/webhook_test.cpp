// Webhook configurations as values: defaults, rule matching, selectors, review responses.
#include "embedded/webhooks/webhook.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/webhooks/review.h"
#include "kube/http/base64.h"

namespace tailor::embedded::webhooks {
namespace {

namespace bj = boost::json;

struct MatchCase {
  const char* name;
  Rule rule;
  Write write;
  bool matches;
};

const Write kPodCreate{"CREATE", "", "v1", "pods", "", true};

class RuleMatching : public ::testing::TestWithParam<MatchCase> {};

TEST_P(RuleMatching, AsTheApiServerMatchesRules) {
  EXPECT_EQ(rules_match({GetParam().rule}, GetParam().write), GetParam().matches)
      << GetParam().name;
}

INSTANTIATE_TEST_SUITE_P(
    Table, RuleMatching,
    ::testing::Values(
        MatchCase{"exact", {{"CREATE"}, {""}, {"v1"}, {"pods"}}, kPodCreate, true},
        MatchCase{"other operation", {{"UPDATE"}, {""}, {"v1"}, {"pods"}}, kPodCreate, false},
        MatchCase{"wildcards", {{"*"}, {"*"}, {"*"}, {"*"}}, kPodCreate, true},
        MatchCase{"other group", {{"*"}, {"apps"}, {"*"}, {"pods"}}, kPodCreate, false},
        MatchCase{"other version", {{"*"}, {""}, {"v2"}, {"pods"}}, kPodCreate, false},
        MatchCase{"star skips subresources",
                  {{"*"}, {""}, {"v1"}, {"*"}},
                  {"UPDATE", "", "v1", "pods", "status", true},
                  false},
        MatchCase{"named subresource",
                  {{"*"}, {""}, {"v1"}, {"pods/resize"}},
                  {"UPDATE", "", "v1", "pods", "resize", true},
                  true},
        MatchCase{"star star",
                  {{"*"}, {""}, {"v1"}, {"*/*"}},
                  {"UPDATE", "", "v1", "pods", "status", true},
                  true},
        MatchCase{
            "pods star is only subresources", {{"*"}, {""}, {"v1"}, {"pods/*"}}, kPodCreate, false},
        MatchCase{"cluster scope", {{"*"}, {""}, {"v1"}, {"pods"}, "Cluster"}, kPodCreate, false},
        MatchCase{
            "namespaced scope", {{"*"}, {""}, {"v1"}, {"pods"}, "Namespaced"}, kPodCreate, true}));

TEST(Configuration, DefaultsAsV1) {
  bj::object c = bj::parse(R"({"webhooks":[{"name":"a.b.c","rules":[{}],
      "clientConfig":{"service":{"namespace":"n","name":"s"}}}]})")
                     .as_object();
  default_configuration(c);
  const bj::object& w = c["webhooks"].as_array()[0].as_object();
  EXPECT_EQ(w.at("failurePolicy"), "Fail");
  EXPECT_EQ(w.at("timeoutSeconds"), 10);
  EXPECT_EQ(w.at("matchPolicy"), "Equivalent");
  EXPECT_EQ(w.at("namespaceSelector"), bj::object{});
  EXPECT_EQ(w.at("rules").as_array()[0].at("scope"), "*");
  EXPECT_EQ(w.at("clientConfig").at("service").at("port"), 443);
  std::vector<Webhook> hooks = parse_configuration(c);
  ASSERT_EQ(hooks.size(), 1u);
  // The URL kube-apiserver names; the dialled address comes from the Service's endpoints.
  EXPECT_EQ(hooks[0].url, "https://s.n.svc:443/");
  EXPECT_EQ(hooks[0].server_name, "s.n.svc");
  ASSERT_TRUE(hooks[0].service.has_value());
  EXPECT_EQ(hooks[0].service->ns, "n");
  EXPECT_EQ(hooks[0].service->name, "s");
  EXPECT_EQ(hooks[0].service->port, 443);
  EXPECT_EQ(hooks[0].service->path, "/");
  EXPECT_TRUE(hooks[0].fail_closed);
}

TEST(Configuration, ValidationNamesEachProblem) {
  bj::object c = bj::parse(R"({"webhooks":[
      {"name":"short","clientConfig":{"url":"http://x"},"failurePolicy":"Fail",
       "admissionReviewVersions":["v2"]},
      {"name":"short","clientConfig":{},"failurePolicy":"Fail","sideEffects":"Some",
       "admissionReviewVersions":["v1"]}]})")
                     .as_object();
  std::vector<std::string> got;
  for (const FieldCause& f : validation_errors(c)) got.push_back(f.field + ": " + f.message);
  std::vector<std::string> want = {
      "webhooks[0].name: Invalid value: \"short\": should be a domain with at least three "
      "segments separated by dots",
      "webhooks[0].clientConfig.url: Invalid value: \"http://x\": 'https' is the only allowed "
      "URL scheme",
      "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[0].admissionReviewVersions: Invalid value: []string{\"v2\"}: must include at "
      "least one of v1, v1beta1",
      "webhooks[1].name: Invalid value: \"short\": should be a domain with at least three "
      "segments separated by dots",
      "webhooks[1].clientConfig: Required value: exactly one of url or service is required",
      "webhooks[1].sideEffects: Unsupported value: \"Some\": supported values: \"None\", "
      "\"NoneOnDryRun\"",
      "webhooks[1].name: Duplicate value: \"short\""};
  EXPECT_EQ(got, want);
}

TEST(Selector, LabelSelectorJsonAsText) {
  EXPECT_EQ(selector_text(bj::parse("{}")), "");
  EXPECT_EQ(selector_text(bj::parse(R"({"matchLabels":{"a":"b"},"matchExpressions":[
      {"key":"c","operator":"In","values":["d","e"]},{"key":"f","operator":"NotIn","values":["g"]},
      {"key":"h","operator":"Exists"},{"key":"i","operator":"DoesNotExist"}]})")),
            "a=b,c in (d,e),f notin (g),h,!i");
}

TEST(Review, RequestCarriesTheWrite) {
  bj::object pod{{"metadata", bj::object{{"name", "web"}}}};
  ReviewRequest r{"u-1", {"UPDATE", "", "v1", "pods", "resize", true}, "Pod", "web", "ns", &pod,
                  &pod};
  bj::object review = bj::parse(review_body(r)).as_object();
  const bj::object& req = review.at("request").as_object();
  EXPECT_EQ(review.at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(req.at("uid"), "u-1");
  EXPECT_EQ(req.at("subResource"), "resize");
  EXPECT_EQ(req.at("resource"),
            (bj::object{{"group", ""}, {"version", "v1"}, {"resource", "pods"}}));
  EXPECT_EQ(req.at("oldObject"), pod);
  EXPECT_EQ(req.at("options").at("kind"), "UpdateOptions");
}

TEST(Review, ResponsesAreCheckedAndRead) {
  EXPECT_THROW(read_review_response("h", "u", "nonsense"), CallFailure);
  try {
    read_review_response("h", "u", R"({"response":{"uid":"other","allowed":true}})");
    FAIL();
  } catch (const CallFailure& e) {
    EXPECT_STREQ(e.what(),
                 "received invalid webhook response: expected response.uid=\"u\", got \"other\"");
  }
  Verdict denied = read_review_response("h", "u", R"({"response":{"uid":"u","allowed":false}})");
  EXPECT_FALSE(denied.allowed);
  EXPECT_EQ(denied.denial.code(), 400);
  EXPECT_EQ(denied.denial.message(),
            "admission webhook \"h\" denied the request without explanation");
  std::string patch = kube::base64_encode(R"([{"op":"remove","path":"/a"}])");
  Verdict mutated = read_review_response(
      "h", "u",
      R"({"response":{"uid":"u","allowed":true,"patchType":"JSONPatch","patch":")" + patch +
          R"("}})");
  ASSERT_TRUE(mutated.patch);
  EXPECT_EQ(*mutated.patch, bj::parse(R"([{"op":"remove","path":"/a"}])"));
  EXPECT_THROW(
      read_review_response("h", "u", R"({"response":{"uid":"u","allowed":true,"patch":"W10="}})"),
      CallFailure);
}

}  // namespace
}  // namespace tailor::embedded::webhooks
