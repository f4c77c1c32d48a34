// The real kubectl against tailor-cluster's control loops on simulated nodes: Deployments roll,
// scale and replace pods, StatefulSets name theirs, DaemonSets cover every node, unschedulable
// pods say why, and drains honour PodDisruptionBudgets.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "embedded/api/resources.h"
#include "embedded/controllers/conditions.h"
#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/support/eventually.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

using kube::testing::eventually;  // the controllers are asynchronous
using Result = KubectlResult;

class WorkloadsTest : public KubectlClusterTest {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/tailor-nodes-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    nodes_dir_ = tmpl;
    std::ofstream(nodes_dir_ + "/nodes.yaml")
        << "nodes:\n"
           "- name: n1\n  capacity: {cpu: \"2\", memory: 4Gi, pods: \"110\"}\n"
           "- name: n2\n  capacity: {cpu: \"2\", memory: 4Gi, pods: \"110\"}\n";
    KubectlClusterTest::SetUp();
  }

  void TearDown() override {
    KubectlClusterTest::TearDown();
    std::filesystem::remove_all(nodes_dir_);
  }

  ClusterOptions cluster_options() override {
    ClusterOptions o;
    o.nodes_file = nodes_dir_ + "/nodes.yaml";
    return o;
  }

  Result apply(const std::string& name, const std::string& yaml) {
    std::ofstream(dir_ / name) << yaml;
    return kubectl("apply -f " + name);
  }

  // The pods of the default namespace, straight from the store.
  std::vector<bj::object> pods(const std::string& label = "") {
    const ResourceInfo& r = *find_resource("", "v1", "pods");
    std::vector<bj::object> out;
    for (const auto& p : cluster_->store().list_objects(r, "default")) {
      const bj::value* labels = p->at("metadata").as_object().if_contains("labels");
      if (!label.empty() &&
          !(labels && labels->as_object().contains(label.substr(0, label.find('='))) &&
            labels->at(label.substr(0, label.find('='))).as_string() ==
                label.substr(label.find('=') + 1))) {
        continue;
      }
      out.push_back(*p);
    }
    return out;
  }

  static bool running(const bj::object& pod) {
    const bj::object& status = pod.at("status").as_object();
    return status.at("phase") == "Running" &&
           !pod.at("metadata").as_object().contains("deletionTimestamp");
  }

  bool running_pods(const std::string& label, std::size_t n) {
    bool ok = eventually([&] {
      std::vector<bj::object> ps = pods(label);
      return ps.size() == n && std::all_of(ps.begin(), ps.end(), running);
    });
    if (!ok) {  // what the controllers left, for the failure message
      ADD_FAILURE() << kubectl("get all,events -o wide").out << kubectl("get pods -o yaml").out;
    }
    return ok;
  }

  static std::string label_of(const bj::object& pod, const std::string& key) {
    return std::string(pod.at("metadata").at("labels").at(key).as_string());
  }

  std::string nodes_dir_;
};

std::string deployment(const std::string& image, int replicas = 3) {
  return "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: " +
         std::to_string(replicas) +
         "\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: "
         "{app: web}\n    spec:\n      containers:\n      - name: app\n        image: " +
         image + "\n        resources: {requests: {cpu: 100m, memory: 64Mi}}\n";
}

TEST_F(WorkloadsTest, ApplyRunsADeploymentAndASecondApplyRollsIt) {
  Result created = apply("web.yaml", deployment("nginx:1.25"));
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "deployment.apps/web created\n");
  Result status = kubectl("rollout status deployment/web --timeout=20s");
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("deployment \"web\" successfully rolled out"), std::string::npos)
      << status.out;
  ASSERT_TRUE(running_pods("app=web", 3));
  std::string first_hash = label_of(pods("app=web")[0], "pod-template-hash");
  Result rs = kubectl("get rs");
  EXPECT_TRUE(rs.out.starts_with("NAME             DESIRED   CURRENT   READY   AGE\nweb-" +
                                 first_hash + "   3         3         3       "))
      << rs.out;

  Result second = apply("web.yaml", deployment("nginx:1.26"));
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "deployment.apps/web configured\n");
  status = kubectl("rollout status deployment/web --timeout=20s");
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("successfully rolled out"), std::string::npos) << status.out;
  ASSERT_TRUE(running_pods("app=web", 3));
  for (const bj::object& p : pods("app=web")) {
    EXPECT_NE(label_of(p, "pod-template-hash"), first_hash);
    EXPECT_EQ(p.at("spec").at("containers").at(0).at("image").as_string(), "nginx:1.26");
  }
  Result get = kubectl("get deploy web");
  ASSERT_EQ(get.exit_code, 0) << get.err;
  EXPECT_TRUE(
      get.out.starts_with("NAME   READY   UP-TO-DATE   AVAILABLE   AGE\n"
                          "web    3/3     3            3           "))
      << get.out;
  EXPECT_EQ(kubectl("get deploy web -o "
                    "jsonpath='{.metadata.annotations.deployment\\.kubernetes\\.io/revision}'")
                .out,
            "2");
  EXPECT_EQ(kubectl("get rs web-" + first_hash + " -o jsonpath={.spec.replicas}").out, "0");
}

TEST_F(WorkloadsTest, ScaleAndReplaceDeletedPods) {
  ASSERT_EQ(apply("web.yaml", deployment("nginx:1.25", 2)).exit_code, 0);
  ASSERT_TRUE(running_pods("app=web", 2));
  Result scaled = kubectl("scale deployment web --replicas=4");
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  EXPECT_EQ(scaled.out, "deployment.apps/web scaled\n");
  ASSERT_TRUE(running_pods("app=web", 4));

  std::string victim(pods("app=web")[0].at("metadata").at("name").as_string());
  Result deleted = kubectl("delete pod " + victim);
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  ASSERT_TRUE(eventually([&] {
    std::vector<bj::object> ps = pods("app=web");
    return ps.size() == 4 && std::all_of(ps.begin(), ps.end(), running) &&
           std::none_of(ps.begin(), ps.end(), [&](const bj::object& p) {
             return p.at("metadata").at("name").as_string() == victim;
           });
  }));
  EXPECT_EQ(kubectl("get deploy web -o jsonpath={.status.availableReplicas}").out, "4");
}

// The EndpointSlice and endpoints controllers: a Service's slice and Endpoints list its ready pods
// (a pod replaced is replaced there), and both go with the Service.
TEST_F(WorkloadsTest, AServicesEndpointSliceAndEndpointsFollowItsPods) {
  ASSERT_EQ(apply("web.yaml", deployment("nginx:1.25", 2)).exit_code, 0);
  ASSERT_TRUE(running_pods("app=web", 2));
  Result svc = kubectl("create service clusterip web --tcp=80:8080");
  ASSERT_EQ(svc.exit_code, 0) << svc.err;
  auto pod_ips = [&] {
    std::set<std::string> ips;
    for (const bj::object& p : pods("app=web")) {
      if (running(p)) ips.insert(std::string(p.at("status").at("podIP").as_string()));
    }
    return ips;
  };
  auto slice_ips = [&] {
    const std::string out = kubectl(
                                "get endpointslices -l kubernetes.io/service-name=web -o "
                                "jsonpath='{range .items[*].endpoints[?(@.conditions.ready==true)]}"
                                "{.addresses[0]} {end}'")
                                .out;
    std::set<std::string> ips;
    std::istringstream in(out);
    for (std::string ip; in >> ip;) ips.insert(ip);
    return ips;
  };
  ASSERT_TRUE(eventually([&] { return slice_ips() == pod_ips() && pod_ips().size() == 2; }))
      << kubectl("get endpointslices -o yaml").out;
  EXPECT_EQ(kubectl("get endpointslices -l kubernetes.io/service-name=web -o "
                    "jsonpath='{.items[0].ports[0].port} {.items[0].metadata.labels."
                    "endpointslice\\.kubernetes\\.io/managed-by}'")
                .out,
            "8080 endpointslice-controller.k8s.io");
  const std::set<std::string> before = pod_ips();
  ASSERT_TRUE(eventually([&] {
    const std::string out =
        kubectl("get endpoints web -o jsonpath='{.subsets[0].addresses[*].ip}'").out;
    return std::count(out.begin(), out.end(), ' ') == 1;
  })) << kubectl("get endpoints web -o yaml").out;

  // Settled: passes of the controller (every second at the latest) rewrite nothing.
  auto versions = [&] {
    return kubectl(
               "get endpointslices -l kubernetes.io/service-name=web -o "
               "jsonpath='{.items[*].metadata.resourceVersion}'")
               .out +
           " " + kubectl("get endpoints web -o jsonpath='{.metadata.resourceVersion}'").out;
  };
  // A pass already under way when the addresses showed may still write once: settled is the same
  // versions over one pass, and then nothing changes for two more.
  std::string settled;
  ASSERT_TRUE(eventually([&] {
    settled = versions();
    std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    return versions() == settled;
  }));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  EXPECT_EQ(versions(), settled);

  std::string victim(pods("app=web")[0].at("metadata").at("name").as_string());
  ASSERT_EQ(kubectl("delete pod " + victim).exit_code, 0);
  ASSERT_TRUE(eventually([&] {
    const auto now = pod_ips();
    return now.size() == 2 && now != before && slice_ips() == now;
  })) << kubectl("get endpointslices -o yaml").out;

  ASSERT_EQ(kubectl("delete service web").exit_code, 0);
  ASSERT_TRUE(eventually([&] {
    return kubectl("get endpointslices -l kubernetes.io/service-name=web -o name").out.empty() &&
           kubectl("get endpoints web").exit_code != 0;
  }));
}

// propagationPolicy=Orphan: the Deployment goes, its ReplicaSet stays (no longer owned) and
// keeps its pods.
TEST_F(WorkloadsTest, DeleteWithCascadeOrphanKeepsTheReplicaSet) {
  ASSERT_EQ(apply("web.yaml", deployment("nginx:1.25", 2)).exit_code, 0);
  ASSERT_TRUE(running_pods("app=web", 2));
  Result deleted = kubectl("delete deployment web --cascade=orphan --timeout=20s");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "deployment.apps \"web\" deleted\n");
  EXPECT_EQ(kubectl("get deployments").err, "No resources found in default namespace.\n");
  Result rs = kubectl(
      "get rs -o jsonpath='{range .items[*]}{.metadata.name} "
      "[{.metadata.ownerReferences}]{\"\\n\"}{end}'");
  EXPECT_TRUE(rs.out.starts_with("web-") && rs.out.ends_with(" []\n") &&
              std::count(rs.out.begin(), rs.out.end(), '\n') == 1)
      << rs.out << rs.err;
  EXPECT_TRUE(running_pods("app=web", 2));
}

// propagationPolicy=Foreground: kubectl returns once the Deployment is gone, and the
// foregroundDeletion finalizer holds it until its ReplicaSet (itself deleted in the foreground,
// so after its pods) is gone.
TEST_F(WorkloadsTest, DeleteWithCascadeForegroundGoesAfterItsDependents) {
  ASSERT_EQ(apply("web.yaml", deployment("nginx:1.25", 2)).exit_code, 0);
  ASSERT_TRUE(running_pods("app=web", 2));
  Result deleted = kubectl("delete deployment web --cascade=foreground --timeout=30s");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "deployment.apps \"web\" deleted\n");
  EXPECT_TRUE(pods("app=web").empty());
  EXPECT_EQ(kubectl("get deployments,replicasets,pods").err,
            "No resources found in default namespace.\n");
}

// A StatefulSet whose pods wait for a readiness gate the test opens: the simulated kubelet runs
// them at once, so only the gate decides when each is Ready.
std::string gated_statefulset(const std::string& policy) {
  return "apiVersion: apps/v1\nkind: StatefulSet\nmetadata:\n  name: db\nspec:\n"
         "  replicas: 3\n  serviceName: db\n  podManagementPolicy: " +
         policy +
         "\n  selector:\n    matchLabels: {app: db}\n"
         "  template:\n    metadata:\n      labels: {app: db}\n    spec:\n"
         "      readinessGates:\n      - conditionType: example.com/warmed-up\n"
         "      containers:\n      - name: db\n        image: postgres:16\n";
}

// OrderedReady: pod N+1 is created only once pod N runs and is Ready, so every state of the pods
// the store went through (each watch event) has at most one pod that is not Ready.
TEST_F(WorkloadsTest, StatefulSetPodsHaveOrdinalNames) {
  const ResourceInfo& pods_info = *find_resource("", "v1", "pods");
  auto watch = cluster_->store().watch(pods_info, "default", cluster_->store().resource_version());
  ASSERT_EQ(apply("db.yaml", gated_statefulset("OrderedReady")).exit_code, 0);
  for (int i = 0; i < 3; ++i) {
    const std::string pod = "db-" + std::to_string(i);
    const std::string gate_message =
        "corresponding condition of pod readiness gate \"example.com/warmed-up\" does not exist.";
    ASSERT_TRUE(eventually([&] {
      return kubectl("get pod " + pod +
                     " -o jsonpath='{.status.conditions[?(@.type==\"Ready\")].message}'")
                 .out == gate_message;
    })) << kubectl("get pods -o yaml").out;
    Result opened = kubectl("patch pod " + pod +
                            " --subresource=status -p "
                            "'{\"status\":{\"conditions\":[{\"type\":\"example.com/"
                            "warmed-up\",\"status\":\"True\"}]}}'");
    ASSERT_EQ(opened.exit_code, 0) << opened.err;
  }
  ASSERT_TRUE(
      eventually([&] { return kubectl("get sts db").out.find("3/3") != std::string::npos; }));
  Result names = kubectl("get pods -l app=db -o name");
  EXPECT_EQ(names.out, "pod/db-0\npod/db-1\npod/db-2\n");

  std::map<std::string, bool> ready;  // the pods as each event left them
  std::vector<std::uint64_t> created;
  std::vector<StoredEvent> events;
  for (auto batch = watch->next(std::chrono::steady_clock::now()); !batch.empty();
       batch = watch->next(std::chrono::steady_clock::now())) {
    events.insert(events.end(), batch.begin(), batch.end());
  }
  for (const StoredEvent& e : events) {
    bj::object pod = e.object->object();
    const std::string name = e.object->name();
    if (e.type == EventType::Added) {
      if (!created.empty()) {
        EXPECT_TRUE(ready["db-" + std::to_string(created.size() - 1)]) << name << " came early";
      }
      EXPECT_EQ(name, "db-" + std::to_string(created.size()));
      created.push_back(e.object->resource_version());
    }
    ready[name] = condition_status(pod, "Ready") == "True";
    EXPECT_LE(std::count_if(ready.begin(), ready.end(), [](const auto& p) { return !p.second; }), 1)
        << "at resourceVersion " << e.resource_version;
  }
  ASSERT_EQ(created.size(), 3u);
  EXPECT_TRUE(std::is_sorted(created.begin(), created.end()));
  Result get = kubectl("get sts db");
  EXPECT_TRUE(get.out.starts_with("NAME   READY   AGE\ndb     3/3     ")) << get.out;
}

// Parallel: all pods at once, without waiting for any to be Ready.
TEST_F(WorkloadsTest, ParallelStatefulSetCreatesItsPodsAtOnce) {
  ASSERT_EQ(apply("db.yaml", gated_statefulset("Parallel")).exit_code, 0);
  ASSERT_TRUE(running_pods("app=db", 3));
  for (const bj::object& p : pods("app=db")) EXPECT_NE(condition_status(p, "Ready"), "True");
  ASSERT_TRUE(
      eventually([&] { return kubectl("get sts db").out.find("0/3") != std::string::npos; }));
}

TEST_F(WorkloadsTest, DaemonSetRunsOnePodPerNode) {
  Result r = apply("agent.yaml",
                   "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n"
                   "  selector:\n    matchLabels: {app: agent}\n  template:\n    metadata:\n"
                   "      labels: {app: agent}\n    spec:\n      containers:\n"
                   "      - name: agent\n        image: busybox:1.36\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(running_pods("app=agent", 2));
  std::set<std::string> nodes;
  for (const bj::object& p : pods("app=agent")) {
    nodes.insert(std::string(p.at("spec").at("nodeName").as_string()));
  }
  EXPECT_EQ(nodes, (std::set<std::string>{"n1", "n2"}));
  ASSERT_TRUE(eventually(
      [&] { return kubectl("get ds agent -o jsonpath={.status.numberReady}").out == "2"; }));
  Result get = kubectl("get ds agent");
  EXPECT_TRUE(get.out.starts_with(
      "NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   NODE SELECTOR   AGE\n"
      "agent   2         2         2       2            2           <none>          "))
      << get.out;
}

TEST_F(WorkloadsTest, DescribeShowsWhyAPodIsUnschedulable) {
  Result r =
      apply("big.yaml",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: big\nspec:\n  containers:\n"
            "  - name: app\n    image: nginx:1.25\n    resources: {requests: {cpu: \"3\"}}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string message =
      "0/2 nodes are available: 2 Insufficient cpu. preemption: 0/2 nodes are available: 2 No "
      "preemption victims found for incoming pod..";
  ASSERT_TRUE(eventually([&] {
    return kubectl("get pod big -o jsonpath={.status.conditions[0].message}").out == message;
  }));
  Result describe = kubectl("describe pod big");
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_NE(describe.out.find("PodScheduled   False"), std::string::npos) << describe.out;
  EXPECT_NE(describe.out.find("Warning  FailedScheduling"), std::string::npos) << describe.out;
  EXPECT_NE(describe.out.find("default-scheduler  " + message), std::string::npos) << describe.out;
}

TEST_F(WorkloadsTest, DrainIsBlockedByADisruptionBudgetAndAllowedWithout) {
  ASSERT_EQ(apply("web.yaml", deployment("nginx:1.25", 2)).exit_code, 0);
  ASSERT_TRUE(running_pods("app=web", 2));
  Result pdb = apply("pdb.yaml",
                     "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\n"
                     "spec:\n  minAvailable: 2\n  selector:\n    matchLabels: {app: web}\n");
  ASSERT_EQ(pdb.exit_code, 0) << pdb.err;
  ASSERT_TRUE(eventually([&] {
    return kubectl("get pdb web -o jsonpath={.status.currentHealthy}/{.status.disruptionsAllowed}")
               .out == "2/0";
  }));
  EXPECT_TRUE(kubectl("get pdb").out.starts_with(
      "NAME   MIN AVAILABLE   MAX UNAVAILABLE   ALLOWED DISRUPTIONS   AGE\n"
      "web    2               N/A               0                     "));
  std::string node(pods("app=web")[0].at("spec").at("nodeName").as_string());

  Result blocked = kubectl("drain " + node + " --pod-selector app=web --timeout=5s");
  EXPECT_NE(blocked.exit_code, 0);
  EXPECT_NE(blocked.err.find("Cannot evict pod as it would violate the pod's disruption budget."),
            std::string::npos)
      << blocked.err;
  EXPECT_TRUE(running_pods("app=web", 2));

  ASSERT_EQ(kubectl("delete pdb web").exit_code, 0);
  Result drained = kubectl("drain " + node + " --pod-selector app=web --timeout=15s");
  ASSERT_EQ(drained.exit_code, 0) << drained.err;
  EXPECT_NE(drained.out.find(" evicted\n"), std::string::npos) << drained.out;
  EXPECT_NE(drained.out.find("node/" + node + " drained"), std::string::npos) << drained.out;
  // The ReplicaSet replaces the evicted pods on the node that is still schedulable.
  ASSERT_TRUE(running_pods("app=web", 2));
  for (const bj::object& p : pods("app=web"))
    EXPECT_NE(p.at("spec").at("nodeName").as_string(), node);
}

}  // namespace
}  // namespace tailor::embedded::testing
