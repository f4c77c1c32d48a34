// The pods/resize rules (Kubernetes 1.35) as a table: a stored pod, the patch a client sends, and
// the field errors kube-apiserver answers with (field: message, in order).
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/patch.h"
#include "embedded/resize/pod_resize.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object parse(const std::string& text) { return bj::parse(text).as_object(); }

// A stored pod: `containers` and `init` are JSON arrays, `status` a JSON object.
bj::object pod(const std::string& containers, const std::string& qos,
               const std::string& init = "[]", const std::string& extra_status = "") {
  return parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"web","namespace":"default","resourceVersion":"7","generation":1},
    "spec":{"restartPolicy":"Always","initContainers":)" +
               init + R"(,"containers":)" + containers + R"(},
    "status":{"phase":"Pending","qosClass":")" +
               qos + "\"" + extra_status + "}}");
}

const std::string kBurstable =
    R"([{"name":"app","image":"nginx:1.25","resources":{
        "requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}])";
const std::string kGuaranteed =
    R"([{"name":"app","image":"nginx:1.25","resources":{
        "requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"100m","memory":"128Mi"}}}])";
const std::string kTwo =
    R"([{"name":"c1","image":"a","resources":{"requests":{"cpu":"100m"}}},
        {"name":"c2","image":"b","resources":{"requests":{"cpu":"100m"}}}])";
const std::string kInitPlain =
    R"([{"name":"setup","image":"busybox","resources":{"requests":{"cpu":"100m"}}}])";
const std::string kInitSidecar =
    R"([{"name":"proxy","image":"envoy","restartPolicy":"Always",
         "resources":{"requests":{"cpu":"100m","ephemeral-storage":"1Gi"}}}])";

enum class PatchType { Strategic, Merge, Json };

struct Case {
  std::string name;
  bj::object stored;
  PatchType type;
  std::string patch;
  std::vector<std::string> errors;  // "field: message"
};

bj::object apply(const Case& c) {
  bj::value patch = bj::parse(c.patch);
  bj::value out = c.type == PatchType::Strategic ? strategic_merge_patch(c.stored, patch)
                  : c.type == PatchType::Merge   ? merge_patch(c.stored, patch)
                                                 : json_patch(c.stored, patch);
  return out.as_object();
}

std::vector<std::string> errors_of(const Case& c) {
  bj::object target = resize_target(apply(c), c.stored);
  std::vector<std::string> out;
  for (const FieldCause& e : validate_pod_resize(target, c.stored)) {
    out.push_back(e.field + ": " + e.message);
  }
  return out;
}

const char* kQos = "Pod QOS Class may not change as a result of resizing";

std::vector<Case> cases() {
  return {
      {"burstable cpu increase is allowed",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"},
           "limits":{"cpu":"300m"}}}]}})",
       {}},
      {"memory limit decrease is allowed (1.35: the node checks usage)",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"memory":"200Mi"}}}]}})",
       {}},
      {"json patch of one request",
       pod(kBurstable, "Burstable"),
       PatchType::Json,
       R"([{"op":"replace","path":"/spec/containers/0/resources/requests/cpu","value":"120m"}])",
       {}},
      {"best-effort pod may not request memory",
       pod(R"([{"name":"app","image":"a"}])", "BestEffort"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"memory":"40Mi"}}}]}})",
       {std::string("spec: Invalid value: \"BestEffort\": ") + kQos}},
      {"guaranteed pod may not change a limit alone",
       pod(kGuaranteed, "Guaranteed"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"300m"}}}]}})",
       {std::string("spec: Invalid value: \"Guaranteed\": ") + kQos}},
      {"burstable pod may not become guaranteed",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{
           "requests":{"cpu":"200m","memory":"256Mi"}}}]}})",
       {std::string("spec: Invalid value: \"Burstable\": ") + kQos}},
      {"limits cannot be removed",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"limits":{"memory":null}}}]}})",
       {"spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed"}},
      {"requests cannot be removed (and the pod would lose its class)",
       pod(R"([{"name":"app","image":"a","resources":{"requests":{"cpu":"100m"}}}])", "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":null}}}]}})",
       {std::string("spec: Invalid value: \"Burstable\": ") + kQos,
        "spec.containers[0].resources.requests: Forbidden: resource requests cannot be "
        "removed"}},
      {"only cpu and memory are mutable",
       pod(R"([{"name":"app","image":"a","resources":{"requests":{"cpu":"100m",
              "ephemeral-storage":"1"}}}])",
           "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{
           "ephemeral-storage":"3"}}}]}})",
       {"spec: Forbidden: only cpu and memory resources are mutable"}},
      {"resizePolicy is not mutable",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resizePolicy":[
           {"resourceName":"memory","restartPolicy":"RestartContainer"}]}]}})",
       {"spec: Forbidden: only cpu and memory resources are mutable"}},
      {"request above its limit",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"500m"}}}]}})",
       {"spec.containers[0].resources.requests: Invalid value: \"500m\": must be less than or "
        "equal to cpu limit of 200m"}},
      {"negative quantity",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"-1"}}}]}})",
       {"spec.containers[0].resources.requests[cpu]: Invalid value: \"-1\": must be greater "
        "than or equal to 0"}},
      {"containers may not be reordered",
       pod(kTwo, "Burstable"),
       PatchType::Merge,
       R"({"spec":{"containers":[{"name":"c2","resources":{"requests":{"cpu":"100m"}}},
           {"name":"c1","resources":{"requests":{"cpu":"100m"}}}]}})",
       {"spec.containers[0].name: Forbidden: containers may not be renamed or reordered on "
        "resize",
        "spec.containers[1].name: Forbidden: containers may not be renamed or reordered on "
        "resize"}},
      {"containers may not be renamed",
       pod(kTwo, "Burstable"),
       PatchType::Json,
       R"([{"op":"replace","path":"/spec/containers/1/name","value":"c3"}])",
       {"spec.containers[1].name: Forbidden: containers may not be renamed or reordered on "
        "resize"}},
      {"containers may not be added",
       pod(kBurstable, "Burstable"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"extra","image":"a"}]}})",
       {"spec.containers: Forbidden: containers may not be added or removed on resize"}},
      {"non-sidecar init containers are immutable",
       pod(kBurstable, "Burstable", kInitPlain),
       PatchType::Strategic,
       R"({"spec":{"initContainers":[{"name":"setup","resources":{"requests":{"cpu":"200m"}}}]}})",
       {"spec: Forbidden: resources for non-sidecar init containers are immutable"}},
      {"sidecar cpu may change",
       pod(kBurstable, "Burstable", kInitSidecar),
       PatchType::Strategic,
       R"({"spec":{"initContainers":[{"name":"proxy","resources":{"requests":{"cpu":"200m"}}}]}})",
       {}},
      {"sidecar: only cpu and memory are mutable",
       pod(kBurstable, "Burstable", kInitSidecar),
       PatchType::Strategic,
       R"({"spec":{"initContainers":[{"name":"proxy","resources":{"requests":{
           "ephemeral-storage":"2Gi"}}}]}})",
       {"spec: Forbidden: only cpu and memory resources for sidecar containers are mutable"}},
      {"sidecar limits cannot be removed",
       pod(kBurstable, "Burstable",
           R"([{"name":"proxy","image":"envoy","restartPolicy":"Always",
                "resources":{"requests":{"cpu":"100m"},"limits":{"cpu":"1"}}}])"),
       PatchType::Strategic,
       R"({"spec":{"initContainers":[{"name":"proxy","resources":{"limits":null}}]}})",
       {"spec.initContainers[0].resources.limits: Forbidden: resource limits cannot be "
        "removed"}},
      {"running on a node without resize support",
       pod(kBurstable, "Burstable", "[]",
           R"(,"containerStatuses":[{"name":"app","state":{"running":{}}}])"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]}})",
       {"spec: Forbidden: Pod running on node without support for resize"}},
      {"running with status resources is resizable",
       pod(kBurstable, "Burstable", "[]",
           R"(,"containerStatuses":[{"name":"app","state":{"running":{}},
                 "resources":{"requests":{"cpu":"100m"}}}])"),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]}})",
       {}},
      {"static pods cannot be resized",
       [] {
         bj::object p = pod(kBurstable, "Burstable");
         p["metadata"].as_object()["annotations"] =
             bj::object{{"kubernetes.io/config.mirror", "abc"}};
         return p;
       }(),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]}})",
       {": Forbidden: static pods cannot be resized"}},
      {"pods with pod-level resources cannot be resized",
       [] {
         bj::object p = pod(kBurstable, "Burstable");
         p["spec"].as_object()["resources"] = bj::object{{"limits", bj::object{{"cpu", "1"}}}};
         return p;
       }(),
       PatchType::Strategic,
       R"({"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"150m"}}}]}})",
       {": Forbidden: pods with pod-level resources cannot be resized"}},
  };
}

class ResizeValidation : public ::testing::TestWithParam<Case> {};

TEST_P(ResizeValidation, AnswersAsKubeApiserver) {
  EXPECT_EQ(errors_of(GetParam()), GetParam().errors);
}

INSTANTIATE_TEST_SUITE_P(Table, ResizeValidation, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string n;
                           for (char c : info.param.name) n += std::isalnum(c) ? c : '_';
                           return n;
                         });

TEST(ResizeTarget, TakesOnlyResourcesFromTheRequest) {
  bj::object stored = pod(kBurstable, "Burstable");
  bj::object requested = stored;
  bj::object& app = requested["spec"].as_object()["containers"].as_array()[0].as_object();
  app["image"] = "nginx:9";
  app["resources"].as_object()["requests"].as_object()["cpu"] = "150m";
  requested["metadata"].as_object()["labels"] = bj::object{{"sneaky", "yes"}};
  requested["spec"].as_object()["nodeName"] = "elsewhere";
  bj::object target = resize_target(requested, stored);
  const bj::object& c = target["spec"].as_object()["containers"].as_array()[0].as_object();
  EXPECT_EQ(c.at("image").as_string(), "nginx:1.25");
  EXPECT_EQ(c.at("resources").at("requests").at("cpu").as_string(), "150m");
  EXPECT_FALSE(target["metadata"].as_object().contains("labels"));
  EXPECT_FALSE(target["spec"].as_object().contains("nodeName"));
  EXPECT_EQ(target["metadata"].as_object()["resourceVersion"].as_string(), "7");
}

TEST(ResizeTarget, RequestWithoutResourceVersionIsUnconditional) {
  bj::object stored = pod(kBurstable, "Burstable");
  bj::object requested = stored;
  requested["metadata"].as_object().erase("resourceVersion");
  EXPECT_FALSE(
      resize_target(requested, stored)["metadata"].as_object().contains("resourceVersion"));
}

TEST(ResizeValidationErrors, MalformedQuantityIsABadRequest) {
  bj::object stored = pod(kBurstable, "Burstable");
  bj::object requested = parse(bj::serialize(stored));
  requested["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] =
      bj::object{{"requests", bj::object{{"cpu", "lots"}}}};
  try {
    validate_pod_resize(resize_target(requested, stored), stored);
    FAIL() << "expected a 400";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_NE(e.message().find("cpu"), std::string::npos) << e.message();
  }
}

TEST(PodUpdate, ResourcesAreImmutable) {
  bj::object stored = pod(kBurstable, "Burstable");
  bj::object updated = stored;
  updated["spec"].as_object()["containers"].as_array()[0].as_object()["resources"] =
      bj::object{{"requests", bj::object{{"cpu", "300m"}, {"memory", "128Mi"}}},
                 {"limits", bj::object{{"cpu", "400m"}, {"memory", "256Mi"}}}};
  std::vector<FieldCause> errors = validate_pod_update_resources(updated, stored);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "spec");
  EXPECT_EQ(errors[0].reason, "FieldValueForbidden");
  EXPECT_TRUE(errors[0].message.starts_with(
      "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
      "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
      "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be "
      "set to 1 if it was previously negative)\n"))
      << errors[0].message;
  EXPECT_NE(errors[0].message.find("spec.containers[0].resources"), std::string::npos);
}

TEST(PodUpdate, EquivalentQuantitiesAndOtherFieldsPass) {
  bj::object stored = pod(kBurstable, "Burstable");
  bj::object updated = stored;
  bj::object& app = updated["spec"].as_object()["containers"].as_array()[0].as_object();
  app["image"] = "nginx:1.26";
  app["resources"].as_object()["limits"].as_object()["cpu"] = "0.2";
  EXPECT_TRUE(validate_pod_update_resources(updated, stored).empty());
}

}  // namespace
}  // namespace tailor::embedded
