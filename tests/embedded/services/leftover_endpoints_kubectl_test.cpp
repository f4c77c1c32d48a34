// Endpoints whose Service is gone, through the real kubectl: as upstream's endpoints controller,
// tailor-cluster deletes the Endpoints named as a deleted Service whoever wrote them, and at start
// those left from a Service deleted while its control loops were not running
// (checkLeftoverEndpoints); a leader-election lock and a selectorless Service's Endpoints stay.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/support/eventually.h"

namespace tailor::embedded::testing {
namespace {

using kube::testing::eventually;

class LeftoverEndpointsTest : public KubectlClusterTest {
 protected:
  // Stops the server and starts it again over the same state, with or without its control loops.
  void restart(bool control_loops) {
    ClusterOptions o = cluster_options();
    o.dir = (dir_ / "state").string();
    o.sync = SyncMode::Normal;
    o.port = cluster_->port();
    o.control_loops = control_loops;
    cluster_.reset();
    cluster_ = std::make_unique<Cluster>(std::move(o));
    cluster_->start();
  }

  std::string service(const std::string& name, bool selector) {
    return write(name + "-svc.yaml", "apiVersion: v1\nkind: Service\nmetadata: {name: " + name +
                                         "}\nspec:\n" +
                                         (selector ? "  selector: {app: " + name + "}\n" : "") +
                                         "  ports: [{port: 80}]\n");
  }

  std::string endpoints(const std::string& name, const std::string& annotations = "{}") {
    return write(name + "-ep.yaml", "apiVersion: v1\nkind: Endpoints\nmetadata: {name: " + name +
                                        ", annotations: " + annotations +
                                        "}\nsubsets:\n- addresses: [{ip: 10.200.9.9}]\n"
                                        "  ports: [{port: 80}]\n");
  }

  bool exists(const std::string& endpoints_name) {
    return kubectl("get endpoints " + endpoints_name).exit_code == 0;
  }
};

TEST_F(LeftoverEndpointsTest, ThoseOfAServiceDeletedWhileTheLoopsWereDownGoAtStart) {
  ASSERT_EQ(kubectl("create -f " + service("web", true)).exit_code, 0);
  ASSERT_TRUE(eventually([&] { return exists("web"); }));

  restart(/*control_loops=*/false);
  ASSERT_EQ(kubectl("delete service web").exit_code, 0);
  ASSERT_TRUE(exists("web")) << "nothing runs to delete it";
  ASSERT_EQ(kubectl("create -f " + endpoints("lone")).exit_code, 0);
  ASSERT_EQ(kubectl("create -f " + endpoints("lock",
                                             "{control-plane.alpha.kubernetes.io/leader: "
                                             "'{\"holderIdentity\":\"a\"}'}"))
                .exit_code,
            0);
  ASSERT_EQ(kubectl("create -f " + service("manual", false)).exit_code, 0);
  ASSERT_EQ(kubectl("create -f " + endpoints("manual")).exit_code, 0);

  restart(/*control_loops=*/true);
  EXPECT_TRUE(eventually([&] { return !exists("web") && !exists("lone"); }))
      << kubectl("get endpoints").out;
  EXPECT_TRUE(exists("lock"));
  EXPECT_TRUE(exists("manual"));
}

TEST_F(LeftoverEndpointsTest, ThoseOfADeletedSelectorlessServiceGoWithIt) {
  ASSERT_EQ(kubectl("create -f " + service("manual", false)).exit_code, 0);
  ASSERT_EQ(kubectl("create -f " + endpoints("manual")).exit_code, 0);
  // Made before their Service: kept while it is created, as upstream keeps them.
  ASSERT_EQ(kubectl("create -f " + endpoints("early")).exit_code, 0);
  ASSERT_EQ(kubectl("create -f " + service("early", false)).exit_code, 0);

  ASSERT_EQ(kubectl("delete service manual").exit_code, 0);
  EXPECT_TRUE(eventually([&] { return !exists("manual"); })) << kubectl("get endpoints").out;
  EXPECT_TRUE(exists("early"));
}

}  // namespace
}  // namespace tailor::embedded::testing
