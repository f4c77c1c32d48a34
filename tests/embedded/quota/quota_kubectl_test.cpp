// ResourceQuota and LimitRange enforced by tailor-cluster as kubectl shows them: create and
// resize rejected with Kubernetes' messages, quota status and printer columns, LimitRange
// defaults in the stored pod.
#include <boost/json.hpp>

#include "tests/embedded/kubectl_cluster_test.h"

namespace tailor::embedded::testing {
namespace {

std::string pod(const std::string& name, const std::string& cpu) {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":")" + name +
         R"("},"spec":{"containers":[{"name":"app","image":"nginx:1.25","resources":{
           "requests":{"cpu":")" +
         cpu + R"("},"limits":{"cpu":"2"}}}]}})";
}

const char* kQuota = R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"compute"},
  "spec":{"hard":{"requests.cpu":"1","pods":"5"}}})";

const char* kLimitRange = R"({"apiVersion":"v1","kind":"LimitRange","metadata":{"name":"limits"},
  "spec":{"limits":[{"type":"Container","max":{"cpu":"2"},
    "default":{"cpu":"500m","memory":"256Mi"},"defaultRequest":{"cpu":"100m","memory":"64Mi"}}]}})";

class QuotaKubectlTest : public ApiOnlyKubectlTest {
 protected:
  std::string jsonpath(const std::string& what, const std::string& path) {
    KubectlResult r = kubectl("get " + what + " -o jsonpath='{" + path + "}'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
};

TEST_F(QuotaKubectlTest, CreateBeyondQuotaIsForbidden) {
  create("quota", kQuota);
  create("p1", pod("p1", "600m"));
  KubectlResult r = kubectl("create -f " + write("p2.json", pod("p2", "600m")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): error when creating \"p2.json\": pods \"p2\" is "
            "forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: "
            "requests.cpu=600m, limited: requests.cpu=1\n");
  EXPECT_EQ(jsonpath("quota compute", ".status.used"), R"({"pods":"1","requests.cpu":"600m"})");
  EXPECT_EQ(jsonpath("quota compute", ".status.hard"), R"({"pods":"5","requests.cpu":"1"})");
}

TEST_F(QuotaKubectlTest, QuotaOnLimitsRequiresThem) {
  create("quota", R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"compute"},
    "spec":{"hard":{"limits.cpu":"4"}}})");
  KubectlResult r =
      kubectl("create -f " +
              write("bare.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"bare"},
    "spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}})"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): error when creating \"bare.json\": pods \"bare\" is "
            "forbidden: failed quota: compute: must specify limits.cpu for: app\n");
}

TEST_F(QuotaKubectlTest, ResizeBeyondQuotaIsForbidden) {
  create("quota", kQuota);
  create("p1", pod("p1", "600m"));
  KubectlResult r = kubectl(
      R"(patch pod p1 --subresource resize -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"1500m"}}}]}}')");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): pods \"p1\" is forbidden: exceeded quota: compute, "
            "requested: requests.cpu=900m, used: requests.cpu=600m, limited: requests.cpu=1\n");
  // Within quota it goes through, and the quota follows.
  r = kubectl(
      R"(patch pod p1 --subresource resize -p '{"spec":{"containers":[{"name":"app","resources":{"requests":{"cpu":"800m"}}}]}}')");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(jsonpath("quota compute", ".status.used.requests\\.cpu"), "800m");
}

TEST_F(QuotaKubectlTest, ScopedQuotaCountsOnlyItsPods) {
  create("quota", R"({"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"best-effort"},
    "spec":{"hard":{"pods":"1"},"scopes":["BestEffort"]}})");
  create("p1", pod("p1", "100m"));  // Burstable: not counted
  create("b1", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b1"},
    "spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}})");
  KubectlResult r = kubectl(
      "create -f " + write("b2.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"b2"},
    "spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}})"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): error when creating \"b2.json\": pods \"b2\" is "
            "forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: "
            "pods=1\n");
}

TEST_F(QuotaKubectlTest, QuotaTableColumns) {
  create("quota", kQuota);
  create("p1", pod("p1", "250m"));
  KubectlResult r = kubectl("get quota");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      r.out.starts_with("NAME      AGE   REQUEST                           LIMIT\n"
                        "compute   "))
      << r.out;
  EXPECT_NE(r.out.find("pods: 1/5, requests.cpu: 250m/1   \n"), std::string::npos) << r.out;
}

TEST_F(QuotaKubectlTest, LimitRangeDefaultsAreStored) {
  create("limits", kLimitRange);
  create("plain", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"plain"},
    "spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}})");
  KubectlResult r = kubectl("get pod plain -o json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  boost::json::object p = boost::json::parse(r.out).as_object();
  const boost::json::value& c = p["spec"].as_object()["containers"].as_array()[0];
  EXPECT_EQ(
      boost::json::serialize(c.at("resources")),
      R"({"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"64Mi"}})");
  EXPECT_EQ(p["metadata"].at("annotations").at("kubernetes.io/limit-ranger").as_string(),
            "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit "
            "for container app");
  EXPECT_EQ(p["status"].at("qosClass").as_string(), "Burstable");
  // The LimitRange itself was defaulted as the API does (defaultRequest kept, max listed).
  EXPECT_EQ(jsonpath("limits limits", ".spec.limits[0].default.cpu"), "500m");
}

TEST_F(QuotaKubectlTest, LimitRangeMaxOnCreateAndResize) {
  create("limits", kLimitRange);
  KubectlResult r = kubectl(
      "create -f " + write("big.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"big"},
    "spec":{"containers":[{"name":"app","image":"nginx:1.25","resources":{"limits":{"cpu":"3"}}}]}})"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): error when creating \"big.json\": pods \"big\" is "
            "forbidden: maximum cpu usage per Container is 2, but limit is 3\n");
  create("p1", pod("p1", "600m"));
  r = kubectl(
      R"(patch pod p1 --subresource resize -p '{"spec":{"containers":[{"name":"app","resources":{"limits":{"cpu":"4"}}}]}}')");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error from server (Forbidden): pods \"p1\" is forbidden: maximum cpu usage per "
            "Container is 2, but limit is 4\n");
}

TEST_F(QuotaKubectlTest, LimitRangeTableColumns) {
  create("limits", kLimitRange);
  KubectlResult r = kubectl("get limits");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("NAME     CREATED AT\nlimits   20")) << r.out;
}

// With the control loops running: the quota controller gives a deleted pod's usage back.
class QuotaControllerKubectlTest : public KubectlClusterTest {};

TEST_F(QuotaControllerKubectlTest, DeletedPodsLeaveStatusUsed) {
  create("quota", kQuota);
  create("p1", pod("p1", "600m"));
  create("p2", pod("p2", "300m"));
  KubectlResult used = kubectl("get quota compute -o jsonpath='{.status.used}'");
  EXPECT_EQ(used.out, R"({"pods":"2","requests.cpu":"900m"})") << used.err;
  KubectlResult deleted = kubectl("delete pod p1");  // unscheduled: deleted at once
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  KubectlResult waited =
      kubectl("wait --for=jsonpath='{.status.used.pods}'=1 resourcequota/compute --timeout=30s");
  EXPECT_EQ(waited.exit_code, 0) << waited.err;
  used = kubectl("get quota compute -o jsonpath='{.status.used}'");
  EXPECT_EQ(used.out, R"({"pods":"1","requests.cpu":"300m"})") << used.err;
  // Room again for what did not fit before.
  create("p3", pod("p3", "600m"));
}

}  // namespace
}  // namespace tailor::embedded::testing
