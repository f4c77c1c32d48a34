// Server-side apply of built-in kinds with fields their schema does not declare: kube-apiserver's
// typed patch object fails to build whatever fieldValidation says (structured-merge-diff names
// an element of a list with map keys by its keys), and nothing is created or changed.
#include "embedded/api/apply_patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "embedded/storage/resource_info.h"
#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

constexpr const char* kApply = "application/apply-patch+yaml";
constexpr const char* kConfigMap = "/api/v1/namespaces/default/configmaps/conf";
constexpr const char* kDeployment = "/apis/apps/v1/namespaces/default/deployments/web";

const KnownFields& pods() {
  ResourceInfo r;
  r.version = "v1";
  r.resource = "pods";
  return *known_fields(r);
}

TEST(UndeclaredFields, NamesListElementsByTheirMapKeys) {
  struct Case {
    const char* name;
    const char* patch;
    std::vector<std::string> undeclared;
  };
  const std::vector<Case> cases = {
      {"declared", R"({"spec":{"containers":[{"name":"app","image":"nginx:1"}]}})", {}},
      {"top level", R"({"colour":"blue","spec":{}})", {".colour"}},
      {"container by name",
       R"({"spec":{"containers":[{"name":"app","colour":"blue"}]}})",
       {R"(.spec.containers[name="app"].colour)"}},
      {"env by name",
       R"({"spec":{"initContainers":[{"name":"init","env":[{"name":"A","valueFromm":{}}]}]}})",
       {R"(.spec.initContainers[name="init"].env[name="A"].valueFromm)"}},
      {"port by containerPort and protocol",
       R"({"spec":{"containers":[{"name":"app","ports":[{"containerPort":80,"protocol":"UDP","x":1}]}]}})",
       {R"(.spec.containers[name="app"].ports[containerPort=80,protocol="UDP"].x)"}},
      {"port protocol defaulted",
       R"({"spec":{"containers":[{"name":"app","ports":[{"containerPort":80,"x":1}]}]}})",
       {R"(.spec.containers[name="app"].ports[containerPort=80,protocol="TCP"].x)"}},
      {"volume mount by mountPath",
       R"({"spec":{"containers":[{"name":"app","volumeMounts":[{"name":"d","mountPath":"/d","x":1}]}]}})",
       {R"(.spec.containers[name="app"].volumeMounts[mountPath="/d"].x)"}},
      {"volume by name",
       R"({"spec":{"volumes":[{"name":"d","emptyDir":{"colour":1}}]}})",
       {R"(.spec.volumes[name="d"].emptyDir.colour)"}},
      {"volume device by devicePath",
       R"({"spec":{"containers":[{"name":"app","volumeDevices":[{"name":"raw","devicePath":"/dev/xvda","x":1}]}]}})",
       {R"(.spec.containers[name="app"].volumeDevices[devicePath="/dev/xvda"].x)"}},
      {"spread constraint by topologyKey and whenUnsatisfiable",
       R"({"spec":{"topologySpreadConstraints":[{"maxSkew":1,"topologyKey":"zone","whenUnsatisfiable":"DoNotSchedule","x":1}]}})",
       {R"(.spec.topologySpreadConstraints[topologyKey="zone",whenUnsatisfiable="DoNotSchedule"].x)"}},
      {"host alias by ip",
       R"({"spec":{"hostAliases":[{"ip":"10.0.0.1","hostname":"a"}]}})",
       {R"(.spec.hostAliases[ip="10.0.0.1"].hostname)"}},
      {"atomic list by index",
       R"({"spec":{"tolerations":[{"key":"a"},{"key":"b","colour":1}]}})",
       {".spec.tolerations[1].colour"}},
      {"sorted",
       R"({"spec":{"zeta":1,"alpha":2},"metadata":{"colour":1}})",
       {".metadata.colour", ".spec.alpha", ".spec.zeta"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(undeclared_fields(pods(), bj::parse(c.patch).as_object()), c.undeclared) << c.name;
  }
}

// A Deployment applied with repeated keys, laid out as kube-apiserver's field validation
// integration test lays it out (its errors name lines 10 and 27).
constexpr const char* kRepeatedKeysDeployment = R"({
    "apiVersion": "apps/v1",
    "kind": "Deployment",
    "metadata": {
        "name": "web",
        "labels": {"app": "nginx"}
    },
    "spec": {
        "paused": false,
        "paused": true,
        "selector": {
            "matchLabels": {
                "app": "nginx"
            }
        },
        "template": {
            "metadata": {
                "labels": {
                    "app": "nginx"
                }
            },
            "spec": {
                "containers": [{
                    "name":  "nginx",
                    "image": "nginx:latest",
                    "imagePullPolicy": "Never",
                    "imagePullPolicy": "Always"
                }]
            }
        }
    }
})";

TEST(RepeatedKeyErrors, AreGoYamlsInDocumentOrder) {
  struct Case {
    const char* json;
    std::vector<std::string> errors;
  };
  const std::vector<Case> cases = {
      {R"({"a":1,"b":2})", {}},
      {R"({"a":1,"a":2})", {R"(line 1: key "a" already set in map)"}},
      {R"({"a":{"x":1},"b":{"x":2}})", {}},
      {R"({"a":[{"x":1,"x":2}],"s":"a,\"a\":1"})", {R"(line 1: key "x" already set in map)"}},
      {"{\n  \"a\": 1,\n  \"b\": {\"c\": 1,\n    \"c\": 2},\n  \"a\":\n    3\n}",
       {R"(line 4: key "c" already set in map)", R"(line 6: key "a" already set in map)"}},
  };
  for (const Case& c : cases) EXPECT_EQ(repeated_key_errors(c.json), c.errors) << c.json;
  EXPECT_EQ(repeated_key_errors(kRepeatedKeysDeployment),
            (std::vector<std::string>{R"(line 10: key "paused" already set in map)",
                                      R"(line 27: key "imagePullPolicy" already set in map)"}));
}

class ApplyPatchTest : public ApiOnlyRawHttpTest {};

// Every mode: the typed conversion runs before field validation is consulted.
TEST_F(ApplyPatchTest, UndeclaredFieldsFailTheApplyInEveryMode) {
  const std::string cm =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"conf","namespace":"default"},"data":{"a":"1"}})";
  const std::string with_unknown =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"conf","namespace":"default"},"datta":{"a":"1"}})";
  for (std::string mode :
       {"", "?fieldValidation=Strict", "?fieldValidation=Warn", "?fieldValidation=Ignore"}) {
    SCOPED_TRACE(mode);
    std::string target =
        std::string(kConfigMap) + (mode.empty() ? "?" : mode + "&") + "fieldManager=test";
    kube::http::ClientResponse created = send("PATCH", target, kApply, with_unknown);
    ASSERT_EQ(created.status, 500) << created.body;
    EXPECT_EQ(status_message(created),
              "failed to create typed patch object (default/conf; /v1, Kind=ConfigMap): .datta: "
              "field not declared in schema");
    EXPECT_EQ(send("GET", kConfigMap, "", "").status, 404);
  }
  kube::http::ClientResponse first =
      send("PATCH", std::string(kConfigMap) + "?fieldManager=test", kApply, cm);
  ASSERT_EQ(first.status, 201) << first.body;
  kube::http::ClientResponse updated =
      send("PATCH", std::string(kConfigMap) + "?fieldManager=test&fieldValidation=Ignore", kApply,
           with_unknown);
  EXPECT_EQ(updated.status, 500) << updated.body;
  kube::http::ClientResponse stored = send("GET", kConfigMap, "", "");
  EXPECT_EQ(bj::parse(stored.body).at("data"), bj::parse(R"({"a":"1"})")) << stored.body;
}

TEST_F(ApplyPatchTest, SeveralUndeclaredFieldsAreListedOnLinesOfTheirOwn) {
  const std::string deployment =
      R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
          "spec":{"selector":{"matchLabels":{"app":"web"}},"replica":2,
                  "template":{"metadata":{"labels":{"app":"web"}},
                              "spec":{"containers":[{"name":"app","image":"nginx:1","colour":"blue"}]}}}})";
  kube::http::ClientResponse r =
      send("PATCH", std::string(kDeployment) + "?fieldManager=test", kApply, deployment);
  ASSERT_EQ(r.status, 500) << r.body;
  EXPECT_EQ(status_message(r),
            "failed to create typed patch object (default/web; apps/v1, Kind=Deployment): errors:\n"
            "  .spec.replica: field not declared in schema\n"
            "  .spec.template.spec.containers[name=\"app\"].colour: field not declared in schema");
}

// Repeated keys: the apply handler's strict YAML check (Strict 400, Warn one warning each, Ignore
// nothing), on create and on update; the last value wins.
TEST_F(ApplyPatchTest, RepeatedKeysFollowFieldValidation) {
  const std::string body =
      R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"conf","namespace":"default"},"data":{"a":"1","a":"2"},"immutable":false,"immutable":false})";
  const std::string target = std::string(kConfigMap) + "?fieldManager=test&fieldValidation=";
  kube::http::ClientResponse strict = send("PATCH", target + "Strict", kApply, body);
  ASSERT_EQ(strict.status, 400) << strict.body;
  EXPECT_EQ(status_message(strict),
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n"
            "  line 1: key \"a\" already set in map\n"
            "  line 1: key \"immutable\" already set in map");
  EXPECT_EQ(send("GET", kConfigMap, "", "").status, 404);
  for (int update = 0; update < 2; ++update) {
    kube::http::ClientResponse warned = send("PATCH", target + "Warn", kApply, body);
    ASSERT_EQ(warned.status, update ? 200 : 201) << warned.body;
    std::vector<std::string> headers;
    for (const auto& [name, value] : warned.headers) {
      if (name == "Warning") headers.push_back(value);
    }
    EXPECT_EQ(headers, (std::vector<std::string>{
                           R"(299 - "line 1: key \"a\" already set in map")",
                           R"(299 - "line 1: key \"immutable\" already set in map")"}));
    EXPECT_EQ(bj::parse(warned.body).at("data"), bj::parse(R"({"a":"2"})"));
  }
  kube::http::ClientResponse ignored = send("PATCH", target + "Ignore", kApply, body);
  ASSERT_EQ(ignored.status, 200) << ignored.body;
  for (const auto& [name, value] : ignored.headers) EXPECT_NE(name, "Warning") << value;
}

TEST_F(ApplyPatchTest, RepeatedKeysOfADeploymentUnderStrict) {
  kube::http::ClientResponse r =
      send("PATCH", std::string(kDeployment) + "?fieldManager=mgr&fieldValidation=Strict", kApply,
           kRepeatedKeysDeployment);
  ASSERT_EQ(r.status, 400) << r.body;
  EXPECT_EQ(status_message(r),
            "error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n"
            "  line 10: key \"paused\" already set in map\n"
            "  line 27: key \"imagePullPolicy\" already set in map");
}

class ApplyPatchKubectlTest : public ApiOnlyKubectlTest {};

TEST_F(ApplyPatchKubectlTest, ServerSideApplyOfAnUndeclaredFieldFails) {
  const std::string manifest =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"1\"\n";
  write("cm.yaml", manifest + "datta:\n  b: \"2\"\n");
  for (const char* validate : {"", " --validate=warn", " --validate=false"}) {
    SCOPED_TRACE(validate);
    KubectlResult r = kubectl(std::string("apply --server-side -f cm.yaml") + validate);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "Error from server: failed to create typed patch object (default/conf; /v1, "
              "Kind=ConfigMap): .datta: field not declared in schema\n");
  }
  write("cm.yaml", manifest);
  KubectlResult applied = kubectl("apply --server-side -f cm.yaml");
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(applied.out, "configmap/conf serverside-applied\n");
}

}  // namespace
}  // namespace tailor::embedded::testing
