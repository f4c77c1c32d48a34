// metadata.generation of a pod (KEP-5067, GA in 1.35): bumped by spec updates and /resize, not by
// pods/binding (which writes spec.nodeName past the pod strategy), status or metadata writes.
#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

class PodGenerationTest : public ApiOnlyKubectlTest {};

TEST_F(PodGenerationTest, OnlySpecUpdatesAndResizesBumpIt) {
  create("web",
         R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[)"
         R"({"name":"app","image":"nginx:1.25","resources":{"requests":{"cpu":"100m",)"
         R"("memory":"64Mi"},"limits":{"cpu":"200m","memory":"64Mi"}}}]}})");
  write("binding.json", R"({"apiVersion":"v1","kind":"Binding","metadata":{"name":"web"},)"
                        R"("target":{"apiVersion":"v1","kind":"Node","name":"node-1"}})");
  struct Step {
    std::string what;
    std::string kubectl;
    std::string generation;
  };
  const Step steps[] = {
      {"label", "label pod web tier=front", "1"},
      {"status",
       R"(patch pod web --subresource status --type merge -p '{"status":{"phase":"Pending"}}')",
       "1"},
      {"binding", "create --raw /api/v1/namespaces/default/pods/web/binding -f binding.json", "1"},
      {"spec update", R"(patch pod web --type merge -p '{"spec":{"activeDeadlineSeconds":600}}')",
       "2"},
      {"unchanged spec",
       R"(patch pod web --type merge -p '{"spec":{"activeDeadlineSeconds":600}}')", "2"},
      {"resize",
       R"(patch pod web --subresource resize -p )"
       R"('{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"300m"}}}]}}')",
       "3"},
  };
  for (const Step& s : steps) {
    KubectlResult r = kubectl(s.kubectl);
    ASSERT_EQ(r.exit_code, 0) << s.what << ": " << r.err;
    EXPECT_EQ(kubectl("get pod web -o jsonpath={.metadata.generation}").out, s.generation)
        << s.what;
  }
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.spec.nodeName}").out, "node-1");
}

}  // namespace
}  // namespace tailor::embedded::testing
