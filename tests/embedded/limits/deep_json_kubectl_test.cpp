// A 1,000-level custom object through the real kubectl (issue 16 finding 6): created from a file
// and read back whole with -o json. (Past 10,000 levels kubectl's own decoding refuses the file
// before sending it, so that refusal is tested with raw requests, deep_json_test.cpp.)
#include <gtest/gtest.h>

#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/embedded/limits/deep_tree.h"

namespace tailor::embedded::testing {
namespace {

class DeepJsonKubectlTest : public KubectlClusterTest {
 protected:
  void SetUp() override {
    KubectlClusterTest::SetUp();
    create("crd", kTreeCrd);
    KubectlResult wait =
        kubectl("wait --for condition=established --timeout=30s crd/trees.example.com");
    ASSERT_EQ(wait.exit_code, 0) << wait.err;
  }
};

TEST_F(DeepJsonKubectlTest, ThousandLevelObjectIsCreatedAndReadBack) {
  KubectlResult created = kubectl("create -f " + write("deep.json", deep_tree("deep", 1000)));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "tree.example.com/deep created\n");
  KubectlResult got = kubectl("get tree deep -o json");
  ASSERT_EQ(got.exit_code, 0) << got.err;
  EXPECT_EQ(depth_of(parse_deep(got.out)), 1000u);
}

}  // namespace
}  // namespace tailor::embedded::testing
