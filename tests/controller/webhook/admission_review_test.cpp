#include "controller/webhook/admission_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "kube/http/base64.h"

namespace tailor::controller::webhook {
namespace {

namespace bj = boost::json;
using kube::Quantity;

std::string review(const std::string& request) {
  return R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":)" + request +
         "}";
}

TEST(AdmissionReview, ParsesAPodCreate) {
  AdmissionRequest r = parse_admission_review(review(
      R"({"uid":"u-1","kind":{"group":"","version":"v1","kind":"Pod"},
          "resource":{"group":"","version":"v1","resource":"pods"},"namespace":"shop",
          "operation":"CREATE","dryRun":true,
          "object":{"metadata":{"generateName":"web-"},"spec":{"containers":[]}}})"));
  EXPECT_EQ(r.uid, "u-1");
  EXPECT_EQ(r.kind, "Pod");
  EXPECT_EQ(r.resource, "pods");
  EXPECT_EQ(r.ns, "shop");
  EXPECT_EQ(r.operation, "CREATE");
  EXPECT_TRUE(r.dry_run);
  EXPECT_EQ(bj::parse(r.object_json).at("metadata").at("generateName"), "web-");
}

TEST(AdmissionReview, RejectsWhatIsNotAReview) {
  struct Case {
    std::string body, message;
  } cases[] = {
      {"{", "the AdmissionReview is not valid JSON"},
      {"[]", "the AdmissionReview is not a JSON object"},
      {R"({"apiVersion":"admission.k8s.io/v1beta1","kind":"AdmissionReview"})",
       "expected an admission.k8s.io/v1 AdmissionReview, got apiVersion "
       "\"admission.k8s.io/v1beta1\" kind \"AdmissionReview\""},
      {R"({"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"})",
       "the AdmissionReview has no request"},
      {review(R"({"kind":{"kind":"Pod"}})"), "the AdmissionReview request has no uid"},
      {review(R"({"uid":"u","object":{"spec":{"x":1e999}}})"),
       "the AdmissionReview holds a number out of range: 1e999"},
  };
  for (const Case& c : cases) {
    try {
      parse_admission_review(c.body);
      ADD_FAILURE() << c.body;
    } catch (const ReviewError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, c.message.size()), c.message) << c.body;
    }
  }
}

// kube-apiserver reads 0e400 as 0 (strconv.ParseFloat); Boost.JSON alone made it NaN, which the
// pod's JSON then carried as null.
TEST(AdmissionReview, ZeroMantissaWithAHugeExponentIsZero) {
  AdmissionRequest r = parse_admission_review(
      review(R"({"uid":"u","object":{"spec":{"terminationGracePeriodSeconds":0e400}}})"));
  EXPECT_EQ(bj::parse(r.object_json).at("spec").at("terminationGracePeriodSeconds").as_double(),
            0.0);
}

TEST(AdmissionReview, ResponseCarriesTheBase64Patch) {
  AdmissionResponse r{.uid = "u-1", .patch_json = R"([{"op":"add","path":"/x","value":1}])"};
  r.warnings = {"w"};
  bj::value v = bj::parse(admission_review_response(r));
  EXPECT_EQ(v.at("apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(v.at("kind"), "AdmissionReview");
  const bj::object& resp = v.at("response").as_object();
  EXPECT_EQ(resp.at("uid"), "u-1");
  EXPECT_EQ(resp.at("allowed"), true);
  EXPECT_EQ(resp.at("patchType"), "JSONPatch");
  EXPECT_EQ(kube::base64_decode(std::string(resp.at("patch").as_string())), r.patch_json);
  EXPECT_EQ(resp.at("warnings").as_array().at(0), "w");
  EXPECT_FALSE(resp.contains("status"));
}

TEST(AdmissionReview, DenialCarriesAStatus) {
  AdmissionResponse r{.uid = "u", .allowed = false, .denial_message = "no", .denial_code = 400};
  bj::value v = bj::parse(admission_review_response(r));
  EXPECT_EQ(v.at("response").at("allowed"), false);
  EXPECT_EQ(v.at("response").at("status").at("code"), 400);
  EXPECT_EQ(v.at("response").at("status").at("message"), "no");
  EXPECT_FALSE(v.at("response").as_object().contains("patch"));
}

TEST(ContainerResourcesPatch, AddsReplacesAndKeepsOtherResources) {
  std::string pod = R"({"spec":{"containers":[
      {"name":"side","image":"busybox"},
      {"name":"app","resources":{"requests":{"cpu":"100m","ephemeral-storage":"1Gi"}}},
      {"name":"web","resources":{}}]}})";
  std::vector<ContainerResources> want = {
      {"app",
       {{"cpu", Quantity::parse("250m")}, {"memory", Quantity::parse("64Mi")}},
       {{"cpu", Quantity::parse("1")}}},
      {"web", {{"cpu", Quantity::parse("50m")}}, {}}};
  bj::value patch = bj::parse(container_resources_patch(pod, want));
  bj::value expected = bj::parse(R"([
      {"op":"replace","path":"/spec/containers/1/resources/requests/cpu","value":"250m"},
      {"op":"add","path":"/spec/containers/1/resources/requests/memory","value":"64Mi"},
      {"op":"add","path":"/spec/containers/1/resources/limits","value":{"cpu":"1"}},
      {"op":"add","path":"/spec/containers/2/resources/requests","value":{"cpu":"50m"}}])");
  EXPECT_EQ(patch, expected);
}

TEST(ContainerResourcesPatch, AddsResourcesWhenAbsentAndNothingWhenEqual) {
  std::string pod = R"({"spec":{"containers":[{"name":"app"}]}})";
  bj::value patch = bj::parse(
      container_resources_patch(pod, {{"app", {{"memory", Quantity::parse("1Gi")}}, {}}}));
  EXPECT_EQ(patch, bj::parse(R"([{"op":"add","path":"/spec/containers/0/resources","value":{}},
      {"op":"add","path":"/spec/containers/0/resources/requests","value":{"memory":"1Gi"}}])"));
  std::string same =
      R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"memory":"1Gi"}}}]}})";
  EXPECT_EQ(container_resources_patch(same, {{"app", {{"memory", Quantity::parse("1Gi")}}, {}}}),
            "");
}

TEST(ContainerResourcesPatch, RejectsPodsWithoutTheContainers) {
  EXPECT_THROW(container_resources_patch(R"({"spec":{}})", {{"app", {}, {}}}), ReviewError);
  EXPECT_THROW(
      container_resources_patch(R"({"spec":{"containers":[{"name":"x"}]}})", {{"app", {}, {}}}),
      ReviewError);
  EXPECT_THROW(container_resources_patch("nope", {}), ReviewError);
}

// VPA's admission controller's annotations ride on the same patch: metadata.annotations added
// whole when the pod has none, else each key added (or replaced), keys escaped as JSON Pointer.
TEST(WithAnnotations, AddsThemToThePatch) {
  const std::string bare = R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"app"}]}})";
  EXPECT_EQ(bj::parse(with_annotations("", bare, {{"vpaObservedContainers", "app"}})),
            bj::parse(R"([{"op":"add","path":"/metadata/annotations",
                           "value":{"vpaObservedContainers":"app"}}])"));
  const std::string annotated =
      R"({"metadata":{"annotations":{"vpaUpdates":"old","x/y":"1"}},"spec":{"containers":[]}})";
  EXPECT_EQ(bj::parse(with_annotations(R"([{"op":"add","path":"/a","value":1}])", annotated,
                                       {{"vpaUpdates", "new"}, {"x/y", "2"}})),
            bj::parse(R"([{"op":"add","path":"/a","value":1},
                          {"op":"replace","path":"/metadata/annotations/vpaUpdates","value":"new"},
                          {"op":"replace","path":"/metadata/annotations/x~1y","value":"2"}])"));
  EXPECT_EQ(with_annotations("", bare, {}), "");
  EXPECT_THROW(with_annotations("{}", bare, {{"k", "v"}}), ReviewError);
  EXPECT_THROW(with_annotations("", "nope", {{"k", "v"}}), ReviewError);
}

}  // namespace
}  // namespace tailor::controller::webhook
