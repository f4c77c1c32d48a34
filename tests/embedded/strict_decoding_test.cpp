// strict_decoding_errors: what sigs.k8s.io/json's UnmarshalStrict reports, read from the text
// (cases from kube-apiserver's field validation integration test).
#include "embedded/api/strict_decoding.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "embedded/api/resources.h"

namespace tailor::embedded::testing {
namespace {

const KnownFields* deployment_fields() {
  return known_fields(*find_resource("apps", "v1", "deployments"));
}

// {"data":{"k0":0,...,"k<n-1>":0,<then the given keys again>}}: a map too large for a linear
// search of its keys.
std::string large_map(int n, const std::vector<int>& again) {
  std::string json = R"({"data":{)";
  for (int i = 0; i < n; ++i) json += (i ? "," : "") + ("\"k" + std::to_string(i) + "\":0");
  for (int i : again) json += ",\"k" + std::to_string(i) + "\":1";
  return json + "}}";
}

TEST(StrictDecoding, Table) {
  struct Case {
    const char* name;
    std::string json;
    const KnownFields* known;
    const char* prefix;
    std::vector<std::string> errors;
  };
  const std::vector<Case> cases = {
      // Unknown fields where they start, duplicates where they repeat; a field both unknown and
      // repeated is unknown once.
      {"typed body",
       R"({"apiVersion":"apps/v1","kind":"Deployment",
           "metadata":{"name":"d","name":"d","unknownMeta":"x","labels":{"app":"nginx"}},
           "spec":{"unknown1":"val1","unknownDupe":"valDupe","unknownDupe":"valDupe2",
                   "paused":true,"paused":false,"selector":{"matchLabels":{"app":"nginx"}},
                   "template":{"metadata":{"labels":{"app":"nginx"}},"spec":{"containers":[
                     {"name":"nginx","image":"nginx:latest","unknownNested":"val1",
                      "imagePullPolicy":"Always","imagePullPolicy":"Never"}]}}}})",
       deployment_fields(),
       "",
       {R"(duplicate field "metadata.name")", R"(unknown field "metadata.unknownMeta")",
        R"(unknown field "spec.unknown1")", R"(unknown field "spec.unknownDupe")",
        R"(duplicate field "spec.paused")",
        R"(unknown field "spec.template.spec.containers[0].unknownNested")",
        R"(duplicate field "spec.template.spec.containers[0].imagePullPolicy")"}},
      // A map: repeated keys only, at any depth, list indexes in the path.
      {"map",
       R"({"spec":{"a":1,"a":2,"list":[{"x":1},{"x":1,"x":2}],"unknown":{"b":1,"b":1}}})",
       nullptr,
       "",
       {R"(duplicate field "spec.a")", R"(duplicate field "spec.list[1].x")",
        R"(duplicate field "spec.unknown.b")"}},
      // Below an unknown field nothing is looked at; open fields (labels) only for repeats.
      {"below unknown and open",
       R"({"metadata":{"labels":{"a":"1","a":"2"}},"spec":{"colour":{"x":1,"x":2}}})",
       deployment_fields(),
       "",
       {R"(duplicate field "metadata.labels.a")", R"(unknown field "spec.colour")"}},
      {"json patch operations",
       R"([{"op":"add","path":"/spec/unknown1","value":"val1","foo":"bar"},
           {"op":"add","path":"/spec/unknown2","path":"/spec/unknown3","value":"val1"}])",
       &json_patch_operation_fields(),
       "json patch ",
       {R"(json patch unknown field "[0].foo")", R"(json patch duplicate field "[1].path")"}},
      {"escaped and split keys",
       R"({"a\u0062":1,"ab":2})",
       nullptr,
       "",
       {R"(duplicate field "ab")"}},
      {"large map",
       large_map(100, {5, 80}),
       nullptr,
       "",
       {R"(duplicate field "data.k5")", R"(duplicate field "data.k80")"}},
      {"not json", "{not json", deployment_fields(), "", {}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(strict_decoding_errors(c.json, c.known, c.prefix), c.errors) << c.name;
  }
}

}  // namespace
}  // namespace tailor::embedded::testing
