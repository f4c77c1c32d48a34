// A number past float64's range through the real kubectl: kubectl's own validation refuses the file
// with encoding/json's message, and sent raw (create --raw), tailor-cluster refuses it with the
// same message in a 400, as kube-apiserver does, and stores nothing.
#include <gtest/gtest.h>

#include <string>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

constexpr const char* kHuge =
    R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"x":1e999})";
constexpr const char* kGoError =
    "json: cannot unmarshal number 1e999 into Go value of type float64";

TEST_F(ApiOnlyKubectlTest, OutOfRangeNumberIsRefusedByKubectlAndByTheServer) {
  const std::string file = write("huge.json", kHuge);
  KubectlResult validated = kubectl("create -f " + file);
  EXPECT_NE(validated.exit_code, 0);
  EXPECT_NE(validated.err.find(kGoError), std::string::npos) << validated.err;

  KubectlResult raw = kubectl("create --raw /api/v1/namespaces/default/configmaps -f " + file);
  EXPECT_NE(raw.exit_code, 0);
  EXPECT_EQ(raw.err, std::string("Error from server (BadRequest): ConfigMap in version \"v1\" "
                                 "cannot be handled as a ConfigMap: ") +
                         kGoError + "\n");
  KubectlResult got = kubectl("get configmap huge");
  EXPECT_NE(got.exit_code, 0);
  EXPECT_NE(got.err.find("NotFound"), std::string::npos) << got.err;
}

}  // namespace
}  // namespace tailor::embedded::testing
