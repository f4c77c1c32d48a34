// The real kubectl against tailor-cluster: commands a user types, checked on their output.
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <thread>

#include "tests/embedded/kubectl_cluster_test.h"
#include "tests/support/eventually.h"

namespace tailor::embedded::testing {
namespace {

using kube::testing::eventually;
using Result = KubectlResult;

// The API alone: the scheduler's status writes and events would add watch rows and describe
// lines (the control loops have their own kubectl tests in tests/embedded/controllers).
class KubectlTest : public ApiOnlyKubectlTest {
 protected:
  FILE* start(const std::string& args) { return start_kubectl(dir_, kubeconfig_, args); }
  Result finish(FILE* p) { return finish_kubectl(dir_, p); }
};

const char* kPod =
    R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","labels":{"app":"web"}},
 "spec":{"containers":[{"name":"app","image":"nginx:1.25"}]}})";

TEST_F(KubectlTest, GetNamespaces) {
  Result r = kubectl("get ns");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("NAME              STATUS   AGE\ndefault           Active   "))
      << r.out;
  EXPECT_NE(r.out.find("kube-system       Active"), std::string::npos) << r.out;
}

TEST_F(KubectlTest, VersionReportsServer135) {
  Result r = kubectl("version");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Server Version: v1.35.0"), std::string::npos) << r.out;
}

TEST_F(KubectlTest, CreateListDeletePod) {
  write("pod.json", kPod);
  Result created = kubectl("create -f pod.json");
  ASSERT_EQ(created.exit_code, 0) << created.err;
  EXPECT_EQ(created.out, "pod/web created\n");

  Result json = kubectl("get pods -o json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  boost::json::value list = boost::json::parse(json.out);
  EXPECT_EQ(list.at("kind").as_string(), "List");  // kubectl's own wrapper around PodList items
  ASSERT_EQ(list.at("items").as_array().size(), 1u);
  const boost::json::value& pod = list.at("items").at(0);
  EXPECT_EQ(pod.at("metadata").at("name").as_string(), "web");
  EXPECT_EQ(pod.at("metadata").at("generation").as_int64(), 1);
  EXPECT_EQ(pod.at("status").at("phase").as_string(), "Pending");

  Result table = kubectl("get pods");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_TRUE(
      table.out.starts_with("NAME   READY   STATUS    RESTARTS   AGE\n"
                            "web    0/1     Pending   0          "))
      << table.out;

  Result deleted = kubectl("delete pod web");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "pod \"web\" deleted\n");
  Result empty = kubectl("get pods");
  EXPECT_EQ(empty.exit_code, 0);
  EXPECT_EQ(empty.out, "");
  EXPECT_EQ(empty.err, "No resources found in default namespace.\n");
}

TEST_F(KubectlTest, ApplyCreatesThenConfigures) {
  write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"1\"\n");
  Result first = kubectl("apply -f cm.yaml");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "configmap/conf created\n");
  write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"2\"\n");
  Result second = kubectl("apply -f cm.yaml");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "configmap/conf configured\n");
  Result again = kubectl("apply -f cm.yaml");
  EXPECT_EQ(again.out, "configmap/conf unchanged\n");
  EXPECT_EQ(kubectl("get cm conf -o jsonpath={.data.a}").out, "2");
  EXPECT_TRUE(kubectl("get cm").out.starts_with("NAME   DATA   AGE\nconf   1      "));
}

TEST_F(KubectlTest, PatchAndSelectors) {
  write("pod.json", kPod);
  ASSERT_EQ(kubectl("create -f pod.json").exit_code, 0);
  EXPECT_EQ(kubectl("label pod web tier=front").out, "pod/web labeled\n");
  EXPECT_EQ(kubectl("patch pod web -p "
                    "'{\"spec\":{\"containers\":[{\"name\":\"app\",\"image\":\"nginx:1.26\"}]}}'")
                .out,
            "pod/web patched\n");
  EXPECT_EQ(
      kubectl("get pod web -o jsonpath='{.spec.containers[0].image} {.metadata.generation}'").out,
      "nginx:1.26 2");
  EXPECT_EQ(kubectl("get pods -l tier=front -o name").out, "pod/web\n");
  EXPECT_EQ(kubectl("get pods -l 'tier notin (front)' -o name").out, "");
  EXPECT_EQ(kubectl("get pods --field-selector status.phase=Pending -o name").out, "pod/web\n");
  Result bad = kubectl("get pods --field-selector foo=bar");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("field label not supported: foo"), std::string::npos) << bad.err;
}

TEST_F(KubectlTest, ServerErrorsAsKubectlPrintsThem) {
  Result r = kubectl("get pod nope");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Error from server (NotFound): pods \"nope\" not found\n");
  write("pod.json", kPod);
  ASSERT_EQ(kubectl("create -f pod.json").exit_code, 0);
  Result again = kubectl("create -f pod.json");
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err,
            "Error from server (AlreadyExists): error when creating \"pod.json\": pods \"web\" "
            "already exists\n");
}

// The next line kubectl prints, waiting at most 30 s; "" at the end or on timeout.
std::string next_line(FILE* p) {
  std::string line;
  pollfd fd{::fileno(p), POLLIN, 0};
  while (::poll(&fd, 1, 30000) == 1) {
    char c;
    if (::read(fd.fd, &c, 1) != 1 || c == '\n') break;
    line += c;
  }
  return line;
}

TEST_F(KubectlTest, GetWatchStreamsTableRows) {
  // The server's own watches (the ClusterIP allocator's on Services) are there before kubectl's.
  const std::size_t own = cluster_->store().watch_count();
  FILE* watching = start("get pods -w");
  ASSERT_TRUE(eventually([&] { return cluster_->store().watch_count() == own + 1; }));
  kube::RestClient client(rest_config());
  const kube::ObjectRef pods{{.version = "v1", .resource = "pods"}, "default"};
  client.create(pods, kPod);
  std::vector<std::string> got;
  got.push_back(next_line(watching).substr(0, 33));
  got.push_back(next_line(watching).substr(0, 33));
  client.patch({pods.type, "default", "web", "status"}, kube::PatchType::Merge,
               R"({"status":{"phase":"Running"}})");
  got.push_back(next_line(watching).substr(0, 33));
  cluster_->store().stop_watches();  // ends the stream; kubectl then exits 0
  Result r = finish(watching);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(got, (std::vector<std::string>{"NAME   READY   STATUS    RESTARTS",
                                           "web    0/1     Pending   0       ",
                                           "web    0/1     Running   0       "}));
}

TEST_F(KubectlTest, InvalidObjectsGetFieldMessages) {
  write("bad.json",
        R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"Web_1"},"spec":{"containers":[]}})");
  Result r = kubectl("create -f bad.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.err,
      "The Pod \"Web_1\" is invalid: \n"
      "* metadata.name: Invalid value: \"Web_1\": a lowercase RFC 1123 subdomain must consist "
      "of lower case alphanumeric characters, '-' or '.', and must start and end with an "
      "alphanumeric character (e.g. 'example.com', regex used for validation is "
      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')\n"
      "* spec.containers: Required value\n");
}

TEST_F(KubectlTest, TablesForNodesEventsLeases) {
  kube::RestClient client(rest_config());
  client.create({{.version = "v1", .resource = "nodes", .namespaced = false}},
                R"({"metadata":{"name":"n1","labels":{"node-role.kubernetes.io/worker":""}},
                    "status":{"conditions":[{"type":"Ready","status":"True"}],
                              "nodeInfo":{"kubeletVersion":"v1.35.0"}}})");
  client.create({{.version = "v1", .resource = "events"}, "default"},
                R"({"metadata":{"name":"e1"},"type":"Warning","reason":"Failed",
                    "involvedObject":{"kind":"Pod","name":"web","namespace":"default"},
                    "message":"boom"})");
  client.create(
      {{.group = "coordination.k8s.io", .version = "v1", .resource = "leases"}, "default"},
      R"({"metadata":{"name":"l1"},"spec":{"holderIdentity":"me"}})");
  EXPECT_TRUE(kubectl("get nodes")
                  .out.starts_with("NAME   STATUS   ROLES    AGE   VERSION\n"
                                   "n1     Ready    worker   "))
      << kubectl("get nodes").out;
  EXPECT_TRUE(
      kubectl("get events").out.starts_with("LAST SEEN   TYPE      REASON   OBJECT    MESSAGE\n"))
      << kubectl("get events").out;
  EXPECT_NE(kubectl("get events").out.find("Warning   Failed   pod/web   boom"), std::string::npos);
  EXPECT_TRUE(kubectl("get events -o wide")
                  .out.starts_with("LAST SEEN   TYPE      REASON   OBJECT    SUBOBJECT   SOURCE   "
                                   "MESSAGE   FIRST SEEN   COUNT   NAME\n"
                                   "<unknown>   Warning   Failed   pod/web                        "
                                   "boom      <unknown>    1       e1\n"))
      << kubectl("get events -o wide").out;
  EXPECT_TRUE(kubectl("get leases").out.starts_with("NAME   HOLDER   AGE\nl1     me       "))
      << kubectl("get leases").out;
}

TEST_F(KubectlTest, TablesForSecretsServicesServiceAccountsWebhooks) {
  kube::RestClient client(rest_config());
  client.create({{.version = "v1", .resource = "secrets"}, "default"},
                R"({"metadata":{"name":"creds"},"data":{"user":"YQ==","pass":"Yg=="}})");
  client.create({{.version = "v1", .resource = "services"}, "default"},
                R"({"metadata":{"name":"web"},"spec":{"selector":{"app":"web"},
                    "clusterIP":"10.0.0.12","ports":[{"port":80,"protocol":"TCP"}]}})");
  client.create({{.version = "v1", .resource = "serviceaccounts"}, "default"},
                R"({"metadata":{"name":"robot"},"secrets":[{"name":"creds"}]})");
  client.create({{.group = "admissionregistration.k8s.io",
                  .version = "v1",
                  .resource = "mutatingwebhookconfigurations",
                  .namespaced = false}},
                R"({"metadata":{"name":"inject"},"webhooks":[]})");
  EXPECT_TRUE(kubectl("get secrets")
                  .out.starts_with("NAME    TYPE     DATA   AGE\n"
                                   "creds   Opaque   2      "))
      << kubectl("get secrets").out;
  EXPECT_TRUE(
      kubectl("get svc -o wide")
          .out.starts_with("NAME   TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)   AGE   "
                           "SELECTOR\nweb    ClusterIP   10.0.0.12    <none>        80/TCP"))
      << kubectl("get svc -o wide").out;
  EXPECT_TRUE(kubectl("get sa robot").out.starts_with("NAME    SECRETS   AGE\nrobot   1         "))
      << kubectl("get sa robot").out;
  EXPECT_TRUE(kubectl("get mutatingwebhookconfigurations")
                  .out.starts_with("NAME     WEBHOOKS   AGE\ninject   0          "))
      << kubectl("get mutatingwebhookconfigurations").out;
}

// A re-apply sends spec.ports as a strategic merge keyed by port: the changed port is merged in
// place, not added beside the old one.
TEST_F(KubectlTest, ReapplyServiceMergesPortsByPort) {
  const char* svc =
      "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  selector: {app: web}\n"
      "  ports:\n  - {name: http, port: 80, targetPort: %s}\n%s";
  char first[256], second[256];
  std::snprintf(first, sizeof first, svc, "8080", "");
  std::snprintf(second, sizeof second, svc, "9090", "  - {name: https, port: 443}\n");
  write("svc.yaml", first);
  ASSERT_EQ(kubectl("apply -f svc.yaml").exit_code, 0);
  write("svc.yaml", second);
  Result applied = kubectl("apply -f svc.yaml");
  ASSERT_EQ(applied.exit_code, 0) << applied.err;
  // https had no targetPort: SetDefaults_Service makes it the port.
  EXPECT_EQ(kubectl("get svc web -o jsonpath={.spec.ports[*].targetPort}").out, "9090 443");
  EXPECT_EQ(kubectl("get svc web -o jsonpath={.spec.ports[*].port}").out, "80 443");
}

TEST_F(KubectlTest, BoundPodTerminatesGracefully) {
  write("pod.json", R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
    "spec":{"nodeName":"n1","containers":[{"name":"app","image":"nginx:1.25"}]}})");
  ASSERT_EQ(kubectl("create -f pod.json").exit_code, 0);
  Result deleted = kubectl("delete pod web --wait=false");
  ASSERT_EQ(deleted.exit_code, 0) << deleted.err;
  EXPECT_EQ(deleted.out, "pod \"web\" deleted\n");
  Result listed = kubectl("get pods");
  EXPECT_NE(listed.out.find("web    0/1     Terminating   0"), std::string::npos) << listed.out;
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.metadata.deletionGracePeriodSeconds}").out, "30");
  kube::RestClient kubelet(rest_config());  // the node's agent confirms termination
  kubelet.remove({{.version = "v1", .resource = "pods"}, "default", "web"},
                 {.grace_period_seconds = 0});
  EXPECT_EQ(kubectl("get pods -o name").out, "");
}

TEST_F(KubectlTest, ReapplyPodUsesStrategicMerge) {
  auto pod = [](const char* image) {
    return std::string(
               R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[)") +
           R"({"name":"app","image":")" + image + R"(","env":[{"name":"A","value":"1"}]},)" +
           R"({"name":"side","image":"busybox:1"}]}})";
  };
  write("pod.json", pod("nginx:1.25"));
  ASSERT_EQ(kubectl("apply -f pod.json").out, "pod/web created\n");
  write("pod.json", pod("nginx:1.26"));
  Result second = kubectl("apply -f pod.json");
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out, "pod/web configured\n");
  EXPECT_EQ(
      kubectl("get pod web -o jsonpath='{.spec.containers[*].image} {.metadata.generation}'").out,
      "nginx:1.26 busybox:1 2");
}

TEST_F(KubectlTest, ServerSideApplyCreatesThenUpdates) {
  write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"1\"\n");
  Result first = kubectl("apply --server-side -f cm.yaml");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.out, "configmap/conf serverside-applied\n");
  write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: conf\ndata:\n  a: \"2\"\n");
  EXPECT_EQ(kubectl("apply --server-side -f cm.yaml").out, "configmap/conf serverside-applied\n");
  EXPECT_EQ(kubectl("get cm conf -o jsonpath={.data.a}").out, "2");
}

TEST_F(KubectlTest, WaitForPodCondition) {
  write("pod.json", kPod);
  ASSERT_EQ(kubectl("create -f pod.json").exit_code, 0);
  std::size_t watches = cluster_->store().watch_count();
  FILE* waiting = start("wait --for=condition=Ready pod/web --timeout=60s");
  ASSERT_TRUE(eventually([&] { return cluster_->store().watch_count() > watches; }));
  kube::RestClient(rest_config())
      .patch({{.version = "v1", .resource = "pods"}, "default", "web", "status"},
             kube::PatchType::Merge,
             R"({"status":{"conditions":[{"type":"Ready","status":"True"}]}})");
  Result r = finish(waiting);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web condition met\n");
}

TEST_F(KubectlTest, DescribeShowsThePodsEvents) {
  kube::RestClient client(rest_config());
  const kube::ResourceType pods{.version = "v1", .resource = "pods"};
  boost::json::value pod = boost::json::parse(client.create({pods, "default"}, kPod));
  std::string uid(pod.at("metadata").at("uid").as_string());
  auto event = [&](const std::string& name, const std::string& about_uid, const char* reason) {
    client.create(
        {{.version = "v1", .resource = "events"}, "default"},
        R"({"metadata":{"name":")" + name + R"("},"type":"Normal","reason":")" + reason +
            R"(","message":"hello","involvedObject":{"kind":"Pod","name":"web","namespace":"default","uid":")" +
            about_uid + R"("},"source":{"component":"tailor"},"count":1})");
  };
  event("e1", uid, "Scheduled");
  event("e2", "another-uid", "Stale");  // an earlier pod of the same name
  Result r = kubectl("describe pod web");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Aligned under "Service Account:" (every pod runs as one, "default" here).
  EXPECT_NE(r.out.find("Name:             web\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Normal  Scheduled"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Stale"), std::string::npos) << r.out;
}

TEST_F(KubectlTest, PatchStatusSubresource) {
  write("pod.json", kPod);
  ASSERT_EQ(kubectl("create -f pod.json").exit_code, 0);
  Result r = kubectl(
      R"(patch pod web --subresource status --type merge -p '{"status":{"phase":"Running"}}')");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "pod/web patched\n");
  EXPECT_EQ(kubectl("get pod web -o jsonpath={.status.phase}").out, "Running");
  Result same = kubectl(
      R"(patch pod web --subresource status --type merge -p '{"status":{"phase":"Running"}}')");
  EXPECT_EQ(same.out, "pod/web patched (no change)\n");
}

TEST_F(KubectlTest, ApiResourcesFromAggregatedDiscovery) {
  Result r = kubectl("api-resources");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Column widths follow the longest name served; compare with single spaces.
  std::string out = std::regex_replace(r.out, std::regex(" +"), " ");
  EXPECT_NE(out.find("\npods po v1 true Pod\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find("\nleases coordination.k8s.io/v1 true Lease\n"), std::string::npos) << r.out;
  EXPECT_NE(out.find("\ndeployments deploy apps/v1 true Deployment\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace tailor::embedded::testing

namespace tailor::embedded::testing {
namespace {

class KubectlNodesTest : public KubectlTest {
 protected:
  ClusterOptions cluster_options() override {
    write("nodes.yaml",
          "nodes:\n- name: node-1\n  capacity: {cpu: \"4\", memory: 8Gi}\n"
          "- name: node-2\n  capacity: {cpu: \"2\", memory: 4Gi}\n");
    ClusterOptions o;
    o.nodes_file = (dir_ / "nodes.yaml").string();
    return o;
  }
};

TEST_F(KubectlNodesTest, SimulatedNodesAreReady) {
  Result r = kubectl("get nodes");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<std::string> got;
  for (std::string line; std::getline(lines, line);) got.push_back(line.substr(0, 25));
  EXPECT_EQ(got, (std::vector<std::string>{"NAME     STATUS   ROLES  ", "node-1   Ready    <none> ",
                                           "node-2   Ready    <none> "}))
      << r.out;
  EXPECT_EQ(kubectl("get node node-2 -o jsonpath={.status.allocatable.memory}").out, "4Gi");
}

}  // namespace
}  // namespace tailor::embedded::testing
