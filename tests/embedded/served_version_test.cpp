// Tables of a served version (autoscaling/v1 HorizontalPodAutoscalers over stored v2): the cells
// print from the stored object, the embedded objects are the served version's, for a get and a
// list alike.
#include <boost/json.hpp>
#include <string>

#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

constexpr const char* kHpa =
    R"({"apiVersion":"autoscaling/v1","kind":"HorizontalPodAutoscaler","metadata":{"name":"web"},
        "spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
                "minReplicas":1,"maxReplicas":3,"targetCPUUtilizationPercentage":50}})";

using ServedVersionTest = ApiOnlyRawHttpTest;

TEST_F(ServedVersionTest, TablesEmbedTheServedVersion) {
  const std::string v1 = "/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers";
  const std::string v2 = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
  ASSERT_EQ(send("POST", v1, "application/json", kHpa).status, 201);
  const std::string table = "application/json;as=Table;v=v1;g=meta.k8s.io";
  struct Case {
    std::string target;
    const char* api_version;
  };
  const std::vector<Case> cases = {
      {v1 + "?includeObject=Object", "autoscaling/v1"},
      {v1 + "/web?includeObject=Object", "autoscaling/v1"},
      {v2 + "/web?includeObject=Object", "autoscaling/v2"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.target);
    kube::http::ClientResponse r = send("GET", c.target, "", "", table);
    ASSERT_EQ(r.status, 200) << r.body;
    bj::value t = bj::parse(r.body);
    EXPECT_EQ(t.at("kind"), "Table");
    const bj::value& row = t.at("rows").at(0);
    EXPECT_EQ(row.at("cells").at(0), "web");
    const bj::object& object = row.at("object").as_object();
    EXPECT_EQ(object.at("apiVersion"), c.api_version);
    bool v1_form = object.at("spec").as_object().contains("targetCPUUtilizationPercentage");
    EXPECT_EQ(v1_form, std::string(c.api_version) == "autoscaling/v1") << r.body;
  }
}

}  // namespace
}  // namespace tailor::embedded::testing
