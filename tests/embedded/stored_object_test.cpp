#include "embedded/storage/stored_object.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

const ResourceInfo& pods() { return *find_resource("", "v1", "pods"); }
const ResourceInfo& nodes() { return *find_resource("", "v1", "nodes"); }

const bj::object kPod = bj::parse(R"({"metadata":{"name":"web","namespace":"shop",
  "resourceVersion":"42","labels":{"tier":"front","app":"web","n":3}},
  "spec":{"nodeName":"n1","hostNetwork":true,"priority":5},"status":{"phase":"Running"}})")
                            .as_object();

TEST(StoredObject, KeepsTheSerialisedObjectAndParsesItBack) {
  StoredObject stored(pods(), kPod);
  EXPECT_EQ(stored.json(), bj::serialize(kPod));
  EXPECT_EQ(stored.object(), kPod);
  EXPECT_EQ(stored.ns(), "shop");
  EXPECT_EQ(stored.name(), "web");
  EXPECT_EQ(stored.resource_version(), 42u);
}

TEST(StoredObject, LabelsAreTheStringOnes) {
  StoredObject stored(pods(), kPod);
  ASSERT_NE(stored.label("app"), nullptr);
  EXPECT_EQ(*stored.label("app"), "web");
  EXPECT_EQ(*stored.label("tier"), "front");
  EXPECT_EQ(stored.label("n"), nullptr);  // not a string: no label (invalid in Kubernetes)
  EXPECT_EQ(stored.label("missing"), nullptr);
}

TEST(StoredObject, SelectableFieldsAsFieldSelectorsSeeThem) {
  StoredObject stored(pods(), kPod);
  struct Case {
    const char* field;
    const char* value;
  };
  for (Case c : std::vector<Case>{{"metadata.name", "web"},
                                  {"metadata.namespace", "shop"},
                                  {"spec.nodeName", "n1"},
                                  {"spec.hostNetwork", "true"},
                                  {"status.phase", "Running"},
                                  {"status.podIP", ""},
                                  {"spec.priority", ""}}) {  // not selectable for pods
    EXPECT_EQ(stored.field(c.field), c.value) << c.field;
  }
  StoredObject node(nodes(), bj::parse(R"({"metadata":{"name":"n1"}})").as_object());
  EXPECT_EQ(node.field("spec.unschedulable"), "false");  // absent reads as its default
  EXPECT_EQ(node.ns(), "");
  EXPECT_EQ(node.resource_version(), 0u);
}

}  // namespace
}  // namespace tailor::embedded
