// fieldValidation=Strict|Warn|Ignore on raw requests to tailor-cluster: unknown fields in create
// and update bodies, and in what JSON merge, JSON and strategic merge patches produce, for the
// built-in kinds and autoscaling/v1 HorizontalPodAutoscalers (served from v2).
#include "embedded/api/field_validation.h"

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";
constexpr const char* kPods = "/api/v1/namespaces/default/pods";
constexpr const char* kDeployments = "/apis/apps/v1/namespaces/default/deployments";
constexpr const char* kHpaV1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
constexpr const char* kHpaV2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";

constexpr const char* kPod =
    R"({"metadata":{"name":"web"},"spec":{"containers":[{"name":"app","image":"nginx:1"}]}})";
constexpr const char* kHpa =
    R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
        "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
                "minReplicas":1,"maxReplicas":3,"targetCPUUtilizationPercentage":50}})";

class FieldValidationTest : public ApiOnlyRawHttpTest {
 protected:
  bj::object created(const std::string& collection, const std::string& body) {
    kube::http::ClientResponse r = send("POST", collection, "application/json", body);
    EXPECT_EQ(r.status, 201) << r.body;
    return bj::parse(r.body).as_object();
  }
};

std::vector<std::string> warnings(const kube::http::ClientResponse& r) {
  std::vector<std::string> out;
  for (const auto& [name, value] : r.headers) {
    if (name == "Warning") out.push_back(value);
  }
  return out;
}

// The Warning headers of field validation warnings: code 299, agent "-", the text quoted.
std::vector<std::string> warning_headers(const std::vector<std::string>& texts) {
  std::vector<std::string> out;
  for (const std::string& text : texts) {
    std::string quoted;
    for (char ch : text) quoted += ch == '"' ? std::string("\\\"") : std::string(1, ch);
    out.push_back("299 - \"" + quoted + "\"");
  }
  return out;
}

// The strict decoding errors as one message lists them.
std::string joined(const std::vector<std::string>& errors) {
  std::string out;
  for (const std::string& e : errors) out += (out.empty() ? "" : ", ") + e;
  return out;
}

std::string with_mode(const std::string& target, const std::string& mode) {
  return mode.empty() ? target : target + "?fieldValidation=" + mode;
}

// Create and update bodies: Strict is the serializer's 400, Warn (the default) and Ignore store
// the object without the unknown fields.
TEST_F(FieldValidationTest, CreateBodies) {
  struct Case {
    const char* name;
    const char* collection;
    std::string body;
    const char* mode;
    int status;
    std::string error;  // Strict's message
    std::vector<std::string> warnings;
  };
  std::string hpa_unknown = kHpa;
  hpa_unknown.replace(hpa_unknown.find("\"minReplicas\""), 0, R"("colour":"blue",)");
  const std::vector<Case> cases = {
      {"pod-strict",
       kPods,
       R"({"metadata":{"name":"p1"},"spec":{"foo":1,"containers":[{"name":"a","image":"x:1","colour":"blue"}]}})",
       "Strict",
       400,
       "Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field "
       "\"spec.foo\", unknown field \"spec.containers[0].colour\"",
       {}},
      {"pod-warn",
       kPods,
       R"({"metadata":{"name":"p2"},"spec":{"foo":1,"containers":[{"name":"a","image":"x:1"}]}})",
       "",
       201,
       "",
       {R"(299 - "unknown field \"spec.foo\"")"}},
      {"hpa-v1-strict",
       kHpaV1,
       hpa_unknown,
       "Strict",
       400,
       "HorizontalPodAutoscaler in version \"v1\" cannot be handled as a HorizontalPodAutoscaler: "
       "strict decoding error: unknown field \"spec.colour\"",
       {}},
      {"hpa-v1-warn",
       kHpaV1,
       hpa_unknown,
       "Warn",
       201,
       "",
       {R"(299 - "unknown field \"spec.colour\"")"}},
      {"hpa-v2-strict",
       kHpaV2,
       R"({"metadata":{"name":"h2"},"spec":{"scaleTargetRef":{"kind":"Deployment","name":"web","apiVersion":"apps/v1"},
           "maxReplicas":3,"metrics":[{"type":"Resource","size":1,"resource":{"name":"cpu","target":{"type":"Utilization","averageUtilisation":50}}}],
           "behavior":{"scaleUp":{"policies":[{"type":"Pods","value":1,"periodSecond":15}]}}}})",
       "Strict",
       400,
       "HorizontalPodAutoscaler in version \"v2\" cannot be handled as a HorizontalPodAutoscaler: "
       "strict decoding error: unknown field \"spec.metrics[0].size\", unknown field "
       "\"spec.metrics[0].resource.target.averageUtilisation\", unknown field "
       "\"spec.behavior.scaleUp.policies[0].periodSecond\"",
       {}},
      {"service-and-probe-strict",
       "/api/v1/namespaces/default/services",
       R"({"metadata":{"name":"s"},"spec":{"ports":[{"port":80,"targetport":8080}]}})",
       "Strict",
       400,
       "Service in version \"v1\" cannot be handled as a Service: strict decoding error: unknown "
       "field \"spec.ports[0].targetport\"",
       {}},
      {"probe-warn",
       kPods,
       R"({"metadata":{"name":"p4"},"spec":{"containers":[{"name":"a","image":"x:1",
           "readinessProbe":{"httpGet":{"path":"/","port":80},"periodSecond":5}}]}})",
       "Warn",
       201,
       "",
       {R"(299 - "unknown field \"spec.containers[0].readinessProbe.periodSecond\"")"}},
      // Requests and limits: a typo there would silently unset them.
      {"deployment-strict",
       kDeployments,
       R"({"metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"d"}},"strategy":{"rollingUpdate":{"maxSurge":1,"maxSurges":1}},
           "template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"a","image":"x:1",
           "resources":{"request":{"cpu":"1"}},"ports":[{"containerPort":80,"protocl":"TCP"}]}]}}}})",
       "Strict",
       400,
       "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: "
       "unknown field \"spec.strategy.rollingUpdate.maxSurges\", unknown field "
       "\"spec.template.spec.containers[0].resources.request\", unknown field "
       "\"spec.template.spec.containers[0].ports[0].protocl\"",
       {}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    kube::http::ClientResponse r =
        send("POST", with_mode(c.collection, c.mode), "application/json", c.body);
    ASSERT_EQ(r.status, c.status) << r.body;
    EXPECT_EQ(warnings(r), c.warnings);
    if (!c.error.empty()) {
      EXPECT_EQ(bj::parse(r.body).at("reason"), "BadRequest");
      EXPECT_EQ(status_message(r), c.error);
    }
  }
  // The v1 HPA kept no trace of the field (neither in v1 nor in the stored v2).
  std::string stored = send("GET", std::string(kHpaV1) + "/web", "", "").body;
  EXPECT_EQ(stored.find("colour"), std::string::npos) << stored;
  stored = send("GET", std::string(kHpaV2) + "/web", "", "").body;
  EXPECT_EQ(stored.find("colour"), std::string::npos) << stored;
  stored = send("GET", std::string(kPods) + "/p2", "", "").body;
  EXPECT_EQ(stored.find("foo"), std::string::npos) << stored;
}

TEST_F(FieldValidationTest, UpdateBodyOfV1Hpa) {
  bj::object hpa = created(kHpaV1, kHpa);
  hpa["spec"].as_object()["colour"] = "blue";
  kube::http::ClientResponse r = send("PUT", with_mode(std::string(kHpaV1) + "/web", "Strict"),
                                      "application/json", bj::serialize(hpa));
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(status_message(r),
            "HorizontalPodAutoscaler in version \"v1\" cannot be handled as a "
            "HorizontalPodAutoscaler: strict decoding error: unknown field \"spec.colour\"");
  r = send("PUT", std::string(kHpaV1) + "/web", "application/json", bj::serialize(hpa));
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(warnings(r), std::vector<std::string>{R"(299 - "unknown field \"spec.colour\"")"});
}

// What a patch produces is decoded as a body is: Strict is the patch handler's 422 on "patch"
// quoting the patched object (a strategic merge patch: the patch, as Go prints it), Warn applies
// the patch and warns, Ignore applies it; the unknown fields are never stored.
TEST_F(FieldValidationTest, Patches) {
  created(kPods, kPod);
  created(kHpaV1, kHpa);
  struct Case {
    const char* name;
    std::string target;
    const char* type;
    std::string patch;
    const char* mode;
    int status;
    std::vector<std::string> errors;  // the strict decoding errors (Strict) or warnings (Warn)
    std::string value;                // Strict: the quoted value when it is the patch's
  };
  const std::string pod = std::string(kPods) + "/web";
  const std::string hpa = std::string(kHpaV1) + "/web";
  const char* merge = "application/merge-patch+json";
  const char* json = "application/json-patch+json";
  const char* strategic = "application/strategic-merge-patch+json";
  const std::vector<Case> cases = {
      {"merge-strict",
       pod,
       merge,
       R"({"spec":{"foo":"bar"}})",
       "Strict",
       422,
       {R"(unknown field "spec.foo")"},
       ""},
      {"merge-warn",
       pod,
       merge,
       R"({"spec":{"foo":"bar"}})",
       "",
       200,
       {R"(unknown field "spec.foo")"},
       ""},
      {"merge-ignore", pod, merge, R"({"spec":{"foo":"bar"}})", "Ignore", 200, {}, ""},
      // The patched object comes out of Go maps: its unknown fields are reported sorted.
      {"merge-sorted",
       pod,
       merge,
       R"({"spec":{"alpha":1,"containers":[{"name":"app","image":"nginx:1","colour":"blue"}]},"metadata":{"foo":1}})",
       "Strict",
       422,
       {R"(unknown field "metadata.foo")", R"(unknown field "spec.alpha")",
        R"(unknown field "spec.containers[0].colour")"},
       ""},
      {"json-patch-strict",
       pod,
       json,
       R"([{"op":"add","path":"/spec/foo","value":1}])",
       "Strict",
       422,
       {R"(unknown field "spec.foo")"},
       ""},
      {"json-patch-replace-warn",
       pod,
       json,
       R"([{"op":"replace","path":"/spec/containers/0","value":{"name":"app","image":"nginx:1","colour":"blue"}}])",
       "Warn",
       200,
       {R"(unknown field "spec.containers[0].colour")"},
       ""},
      // Members of the operations other than op, path, from and value come first.
      {"json-patch-operation-strict",
       pod,
       json,
       R"([{"op":"add","path":"/metadata/labels","value":{"x":"1"},"foo":"bar"},{"op":"add","path":"/spec/foo","value":1}])",
       "Strict",
       422,
       {R"(json patch unknown field "[0].foo")", R"(unknown field "spec.foo")"},
       ""},
      {"json-patch-operation-warn",
       pod,
       json,
       R"([{"op":"add","path":"/metadata/labels","value":{"x":"1"},"foo":"bar"}])",
       "Warn",
       200,
       {R"(json patch unknown field "[0].foo")"},
       ""},
      {"strategic-strict",
       pod,
       strategic,
       R"({"spec":{"containers":[{"name":"app","colour":1.5}]}})",
       "Strict",
       422,
       {R"(unknown field "spec.containers[0].colour")"},
       "map[spec:map[containers:[map[colour:1.5 name:app]]]]"},
      {"strategic-warn",
       pod,
       strategic,
       R"({"metadata":{"colour":"blue"}})",
       "Warn",
       200,
       {R"(unknown field "metadata.colour")"},
       ""},
      {"hpa-v1-merge-strict",
       hpa,
       merge,
       R"({"spec":{"colour":"blue"}})",
       "Strict",
       422,
       {R"(unknown field "spec.colour")"},
       ""},
      {"hpa-v1-merge-warn",
       hpa,
       merge,
       R"({"spec":{"colour":"blue"}})",
       "Warn",
       200,
       {R"(unknown field "spec.colour")"},
       ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string before = send("GET", c.target, "", "").body;
    kube::http::ClientResponse r = send("PATCH", with_mode(c.target, c.mode), c.type, c.patch);
    ASSERT_EQ(r.status, c.status) << r.body;
    std::string after = send("GET", c.target, "", "").body;
    if (c.status == 422) {
      bj::object status = bj::parse(r.body).as_object();
      EXPECT_EQ(status.at("reason"), "Invalid");
      const bj::object& cause = status.at("details").at("causes").at(0).as_object();
      EXPECT_EQ(cause.at("field"), "patch");
      EXPECT_EQ(cause.at("reason"), "FieldValueInvalid");
      std::string tail = ": strict decoding error: " + joined(c.errors);
      std::string m = status_message(r);
      EXPECT_TRUE(m.starts_with(" \"\" is invalid: patch: Invalid value: \"")) << m;
      EXPECT_TRUE(m.ends_with(tail)) << m;
      if (!c.value.empty()) {
        EXPECT_EQ(m, " \"\" is invalid: patch: Invalid value: \"" + c.value + "\"" + tail);
      } else {
        // The patched object (in the URL's version), quoted.
        EXPECT_NE(m.find("\\\"metadata\\\":{\\\"name\\\":\\\"web\\\""), std::string::npos) << m;
      }
      EXPECT_EQ(after, before);  // nothing stored
      continue;
    }
    EXPECT_EQ(warnings(r), warning_headers(c.errors));
    for (const char* unknown : {"\"colour\"", "\"foo\""}) {
      EXPECT_EQ(r.body.find(unknown), std::string::npos) << r.body;
      EXPECT_EQ(after.find(unknown), std::string::npos) << after;
    }
  }
}

// kube-apiserver's field validation integration test (testFieldValidationPatchTyped, ...SMP): a
// Deployment patched with bodies that repeat and misspell fields; the errors come in its order
// (the patch's repeated keys, then the result's unknown fields sorted).
TEST_F(FieldValidationTest, UpstreamPatchTable) {
  created(
      kDeployments,
      R"({"metadata":{"name":"d","labels":{"app":"nginx"}},"spec":{"selector":{"matchLabels":{"app":"nginx"}},
              "template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[{"name":"nginx","image":"nginx:latest","imagePullPolicy":"Always"}]}}}})");
  const std::string merge_body =
      R"({"spec":{"unknown1":"val1","unknownDupe":"valDupe","unknownDupe":"valDupe2","paused":true,"paused":false,
          "template":{"spec":{"containers":[{"name":"nginx","image":"nginx:latest","unknownNested":"val1",
          "imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}})";
  const std::string json_body =
      R"([{"op":"add","path":"/spec/unknown1","value":"val1","foo":"bar"},
          {"op":"add","path":"/spec/unknown2","path":"/spec/unknown3","value":"val1"},
          {"op":"add","path":"/spec/unknownDupe","value":"valDupe"},
          {"op":"add","path":"/spec/unknownDupe","value":"valDupe2"},
          {"op":"add","path":"/spec/paused","value":true},
          {"op":"add","path":"/spec/paused","value":false},
          {"op":"add","path":"/spec/template/spec/containers/0/unknownNested","value":"val1"},
          {"op":"add","path":"/spec/template/spec/containers/0/imagePullPolicy","value":"Always"},
          {"op":"add","path":"/spec/template/spec/containers/0/imagePullPolicy","value":"Never"}])";
  const std::string smp_body =
      R"({"spec":{"unknown1":"val1","unknownDupe":"valDupe","unknownDupe":"valDupe2","paused":true,"paused":false,
          "selector":{"matchLabels":{"app":"nginx"}},"template":{"metadata":{"labels":{"app":"nginx"}},
          "spec":{"containers":[{"name":"nginx","unknownNested":"val1","imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}})";
  const std::vector<std::string> merge_errors = {
      R"(duplicate field "spec.unknownDupe")",
      R"(duplicate field "spec.paused")",
      R"(duplicate field "spec.template.spec.containers[0].imagePullPolicy")",
      R"(unknown field "spec.template.spec.containers[0].unknownNested")",
      R"(unknown field "spec.unknown1")",
      R"(unknown field "spec.unknownDupe")"};
  const std::vector<std::string> json_errors = {
      R"(json patch unknown field "[0].foo")",
      R"(json patch duplicate field "[1].path")",
      R"(unknown field "spec.template.spec.containers[0].unknownNested")",
      R"(unknown field "spec.unknown1")",
      R"(unknown field "spec.unknown3")",
      R"(unknown field "spec.unknownDupe")"};
  struct Case {
    const char* type;
    const std::string& body;
    const std::vector<std::string>& errors;
  };
  const std::vector<Case> cases = {
      {"application/merge-patch+json", merge_body, merge_errors},
      {"application/json-patch+json", json_body, json_errors},
      {"application/strategic-merge-patch+json", smp_body, merge_errors},
  };
  const std::string target = std::string(kDeployments) + "/d";
  for (const Case& c : cases) {
    SCOPED_TRACE(c.type);
    kube::http::ClientResponse strict = send("PATCH", with_mode(target, "Strict"), c.type, c.body);
    ASSERT_EQ(strict.status, 422) << strict.body;
    EXPECT_TRUE(status_message(strict).ends_with(": strict decoding error: " + joined(c.errors)))
        << status_message(strict);
    kube::http::ClientResponse warned = send("PATCH", with_mode(target, "Warn"), c.type, c.body);
    ASSERT_EQ(warned.status, 200) << warned.body;
    EXPECT_EQ(warnings(warned), warning_headers(c.errors));
    kube::http::ClientResponse ignored = send("PATCH", with_mode(target, "Ignore"), c.type, c.body);
    ASSERT_EQ(ignored.status, 200) << ignored.body;
    EXPECT_TRUE(warnings(ignored).empty());
    EXPECT_EQ(ignored.body.find("unknown"), std::string::npos) << ignored.body;
  }
}

// kube-apiserver answers 415 to a strategic merge patch of a kind without Go types, and lists the
// patch types in its own order.
TEST_F(FieldValidationTest, UnknownPatchTypeIsUnsupportedMediaType) {
  created(kConfigMaps, R"({"metadata":{"name":"c"}})");
  kube::http::ClientResponse r =
      send("PATCH", std::string(kConfigMaps) + "/c", "application/yaml", "data: {}");
  ASSERT_EQ(r.status, 415) << r.body;
  EXPECT_EQ(status_message(r),
            "the body of the request was in an unknown format - accepted media types include: "
            "application/json-patch+json, application/merge-patch+json, "
            "application/strategic-merge-patch+json, application/apply-patch+yaml");
}

TEST(GoPrinted, PrintsAsFmtPrintsAnInterface) {
  struct Case {
    const char* json;
    const char* printed;
  };
  const std::vector<Case> cases = {
      {R"({"b":[1,"x",null,true],"a":{}})", "map[a:map[] b:[1 x <nil> true]]"},
      {R"({"spec":{"replicas":3}})", "map[spec:map[replicas:3]]"},
      {"1.5", "1.5"},
      {"100.0", "100"},
      {"-0.25", "-0.25"},
      {"123456.0", "123456"},
      {"1234567.0", "1.234567e+06"},
      {"1e21", "1e+21"},
      {"0.0001", "0.0001"},
      {"0.00001", "1e-05"},
      {"123456789.125", "1.23456789125e+08"},
      {"[]", "[]"},
  };
  for (const Case& c : cases) EXPECT_EQ(go_printed(bj::parse(c.json)), c.printed) << c.json;
}

}  // namespace
}  // namespace tailor::embedded::testing
