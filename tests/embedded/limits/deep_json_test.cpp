// JSON nesting as kube-apiserver takes it (issue 16 finding 6): a custom object nested 1,000
// levels deep (and at the 10,000-level limit) is created, stored and read back whole; one level
// more is refused with kube-apiserver's message. The body nests under spec.x, which the CRD
// leaves open (x-kubernetes-preserve-unknown-fields), as real CRDs do.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "tests/embedded/limits/deep_tree.h"
#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

constexpr const char* kTrees = "/apis/example.com/v1/namespaces/default/trees";

class DeepJsonTest : public RawHttpClusterTest {
 protected:
  void SetUp() override {
    RawHttpClusterTest::SetUp();
    auto created = send("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
                        "application/json", kTreeCrd);
    ASSERT_EQ(created.status, 201) << created.body;
    auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (send("GET", kTrees, "", "").status != 200) {
      ASSERT_LT(std::chrono::steady_clock::now(), until) << "trees never served";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  void expect_stored_whole(const std::string& name, std::size_t depth) {
    auto created = send("POST", kTrees, "application/json", deep_tree(name, depth));
    ASSERT_EQ(created.status, 201) << created.body.substr(0, 400);
    EXPECT_EQ(depth_of(parse_deep(created.body)), depth);
    auto read = send("GET", std::string(kTrees) + "/" + name, "", "");
    ASSERT_EQ(read.status, 200) << read.body.substr(0, 400);
    EXPECT_EQ(depth_of(parse_deep(read.body)), depth);
    auto list = send("GET", kTrees, "", "");
    ASSERT_EQ(list.status, 200);
    EXPECT_NE(list.body.find(R"("name":")" + name + "\""), std::string::npos);
  }
};

TEST_F(DeepJsonTest, ThousandLevelObjectIsCreatedAndReadBack) {
  expect_stored_whole("thousand", 1000);
}

TEST_F(DeepJsonTest, ObjectAtTheTenThousandLevelLimitIsCreatedAndReadBack) {
  expect_stored_whole("limit", 10000);
}

TEST_F(DeepJsonTest, OneLevelPastTheLimitIsRefusedAsKubeApiserverDoes) {
  auto refused = send("POST", kTrees, "application/json", deep_tree("past", 10001));
  ASSERT_EQ(refused.status, 400);
  EXPECT_EQ(status_message(refused),
            "the object provided is unrecognized (must be of type Tree): couldn't get "
            "version/kind; json parse error: invalid character '{' exceeded max depth "
            R"(({"apiVersion":"example.com/v1" ...))");
  EXPECT_EQ(send("GET", std::string(kTrees) + "/past", "", "").status, 404);
}

TEST_F(DeepJsonTest, DeepMergePatchIsApplied) {
  ASSERT_EQ(send("POST", kTrees, "application/json", deep_tree("patched", 10)).status, 201);
  std::string patch = R"({"spec":)" + nested_x(998) + "}";
  auto patched =
      send("PATCH", std::string(kTrees) + "/patched", "application/merge-patch+json", patch);
  ASSERT_EQ(patched.status, 200) << patched.body.substr(0, 400);
  EXPECT_EQ(depth_of(parse_deep(patched.body)), 1000u);
}

// Server-side apply walks the whole object for its managed fields.
TEST_F(DeepJsonTest, ServerSideApplyAtTheLimitIsApplied) {
  auto applied = send("PATCH", std::string(kTrees) + "/applied?fieldManager=test",
                      "application/apply-patch+yaml", deep_tree("applied", 10000));
  ASSERT_EQ(applied.status, 201) << applied.body.substr(0, 400);
  EXPECT_EQ(depth_of(parse_deep(applied.body)), 10000u);
}

}  // namespace
}  // namespace tailor::embedded::testing
