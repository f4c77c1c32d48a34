#include "embedded/api/patch.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

struct Case {
  const char* target;
  const char* patch;
  const char* want;
};

TEST(MergePatch, Rfc7386) {
  for (Case c : std::vector<Case>{
           {R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
           {R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
           {R"({"a":"b"})", R"({"a":null})", R"({})"},
           {R"({"a":["b"]})", R"({"a":["c","d"]})", R"({"a":["c","d"]})"},
           {R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
       }) {
    EXPECT_EQ(bj::serialize(merge_patch(bj::parse(c.target), bj::parse(c.patch))), c.want)
        << c.patch;
  }
}

TEST(JsonPatch, Rfc6902) {
  for (Case c : std::vector<Case>{
           {R"({"a":[1,2]})", R"([{"op":"add","path":"/a/1","value":9}])", R"({"a":[1,9,2]})"},
           {R"({"a":[1,2]})", R"([{"op":"add","path":"/a/-","value":3}])", R"({"a":[1,2,3]})"},
           {R"({"a":{"b~c":1}})", R"([{"op":"remove","path":"/a/b~0c"}])", R"({"a":{}})"},
           {R"({"a":1})", R"([{"op":"replace","path":"/a","value":2}])", R"({"a":2})"},
           {R"({"a":1})", R"([{"op":"move","from":"/a","path":"/b"}])", R"({"b":1})"},
           {R"({"a":1})",
            R"([{"op":"copy","from":"/a","path":"/b"},{"op":"test","path":"/b","value":1}])",
            R"({"a":1,"b":1})"},
       }) {
    EXPECT_EQ(bj::serialize(json_patch(bj::parse(c.target), bj::parse(c.patch))), c.want)
        << c.patch;
  }
}

TEST(JsonPatch, FailuresAreStatusErrors) {
  struct Bad {
    const char* patch;
    int code;
  };
  for (Bad b : std::vector<Bad>{{R"([{"op":"test","path":"/a","value":2}])", 422},
                                {R"([{"op":"replace","path":"/zz","value":2}])", 422},
                                {R"([{"op":"remove","path":"/a/b/c"}])", 422},
                                {R"([{"op":"jump","path":"/a"}])", 400},
                                {R"({"op":"add"})", 400}}) {
    try {
      json_patch(bj::parse(R"({"a":1})"), bj::parse(b.patch));
      ADD_FAILURE() << "accepted " << b.patch;
    } catch (const StatusError& e) {
      EXPECT_EQ(e.code(), b.code) << b.patch;
    }
  }
}

// Found by fuzz/embedded_patches: an index beyond size_t escaped as std::out_of_range (a 500),
// not the 422 of any other index out of range.
TEST(JsonPatch, AnIndexBeyondSizeTIsOutOfRange) {
  try {
    json_patch(bj::parse(R"({"a":[1,2]})"),
               bj::parse(R"([{"op":"add","path":"/a/444444444444444444444444","value":3}])"));
    ADD_FAILURE() << "accepted";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 422);
    EXPECT_EQ(e.message(),
              "the server rejected our request due to an error in our request: index out of "
              "range at \"/a/444444444444444444444444\"");
  }
}

TEST(JsonPatch, MoreThanTenThousandOperationsAreTooLarge) {
  bj::array ops;
  for (int i = 0; i < 10001; ++i)
    ops.push_back(bj::parse(R"({"op":"test","path":"/a","value":1})"));
  try {
    json_patch(bj::parse(R"({"a":1})"), ops);
    FAIL() << "accepted 10001 operations";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 413);
    EXPECT_EQ(e.reason(), "RequestEntityTooLarge");
    EXPECT_EQ(e.message(),
              "Request entity too large: The allowed maximum operations in a JSON patch is 10000, "
              "got 10001");
  }
  ops.pop_back();
  EXPECT_EQ(bj::serialize(json_patch(bj::parse(R"({"a":1})"), ops)), R"({"a":1})");
}

TEST(StrategicMergePatch, ListsMergeByKeyWithDirectives) {
  const char* pod =
      R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"}]},{"name":"b","image":"y"}]},"metadata":{"finalizers":["f1","f2"]}})";
  for (
      Case c : std::vector<Case>{
          {pod, R"({"spec":{"containers":[{"name":"b","image":"z"}]}})",
           R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"}]},{"name":"b","image":"z"}]},"metadata":{"finalizers":["f1","f2"]}})"},
          {pod, R"({"spec":{"containers":[{"name":"a","$patch":"delete"}]}})",
           R"({"spec":{"containers":[{"name":"b","image":"y"}]},"metadata":{"finalizers":["f1","f2"]}})"},
          {pod,
           R"({"spec":{"$setElementOrder/containers":[{"name":"b"},{"name":"a"}],"containers":[{"name":"a","env":[{"name":"F","value":"2"}]}]}})",
           R"({"spec":{"containers":[{"name":"b","image":"y"},{"name":"a","image":"x","env":[{"name":"E","value":"1"},{"name":"F","value":"2"}]}]},"metadata":{"finalizers":["f1","f2"]}})"},
          {pod, R"({"metadata":{"$deleteFromPrimitiveList/finalizers":["f1"]}})",
           R"({"spec":{"containers":[{"name":"a","image":"x","env":[{"name":"E","value":"1"}]},{"name":"b","image":"y"}]},"metadata":{"finalizers":["f2"]}})"},
          {R"({"spec":{"a":1,"b":2}})", R"({"spec":{"$retainKeys":["b","c"],"c":3}})",
           R"({"spec":{"b":2,"c":3}})"},
          {R"({"spec":{"a":1,"b":2}})", R"({"spec":{"$patch":"replace","c":3}})",
           R"({"spec":{"c":3}})"},
          // A Service's spec.ports merge by port; a container's ports by containerPort.
          {R"({"spec":{"ports":[{"name":"http","port":80,"targetPort":8080},{"name":"https","port":443}]}})",
           R"({"spec":{"$setElementOrder/ports":[{"port":443},{"port":80}],"ports":[{"port":443,"targetPort":8443}]}})",
           R"({"spec":{"ports":[{"name":"https","port":443,"targetPort":8443},{"name":"http","port":80,"targetPort":8080}]}})"},
          {R"({"spec":{"ports":[{"name":"http","port":80},{"name":"dns","port":53}]}})",
           R"({"spec":{"ports":[{"port":53,"$patch":"delete"}]}})",
           R"({"spec":{"ports":[{"name":"http","port":80}]}})"},
          {R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"web"}]}]}})",
           R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"hostPort":8080}]}]}})",
           R"({"spec":{"containers":[{"name":"a","ports":[{"containerPort":80,"name":"web","hostPort":8080}]}]}})"},
          // A list new to the object: nulls inside its elements mean absent, not null.
          {R"({"status":{}})",
           R"({"status":{"containerStatuses":[{"name":"a","state":{"running":{},"terminated":null}}]}})",
           R"({"status":{"containerStatuses":[{"name":"a","state":{"running":{}}}]}})"},
          {R"({"status":{}})", R"({"status":{"hostIPs":[{"ip":"10.0.0.1","extra":null}]}})",
           R"({"status":{"hostIPs":[{"ip":"10.0.0.1"}]}})"},
      }) {
    EXPECT_EQ(bj::serialize(strategic_merge_patch(bj::parse(c.target), bj::parse(c.patch))), c.want)
        << c.patch;
  }
}

}  // namespace
}  // namespace tailor::embedded
