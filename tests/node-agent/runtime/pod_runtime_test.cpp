// The embedded pod runtime against a fake CRI, a fake API and a fake cgroup tree: sandbox and
// containers as the kubelet creates them, the status it owns, restarts, image failures, deletion.
#include "node-agent/runtime/pod_runtime.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>

#include "kube/model/decode.h"
#include "node-agent/runtime/pod_runtime_restart.h"
#include "tests/node-agent/cri/fake_cri.h"

namespace tailor::node::runtime {
namespace {
namespace bj = boost::json;
using cri::testing::FakeCri;

constexpr const char* kUid = "0000-1111";

std::string pod_json(const std::string& extra_spec = "", const std::string& metadata = "") {
  return R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web","namespace":"shop","uid":")" +
         std::string(kUid) + R"(","resourceVersion":"7")" + metadata +
         R"(},"spec":{"nodeName":"n1","terminationGracePeriodSeconds":3,)" + extra_spec +
         R"("containers":[{"name":"app","image":"busybox","command":["sleep"],"args":["3600"],
            "env":[{"name":"A","value":"1"},{"name":"B","valueFrom":{"fieldRef":{"fieldPath":"metadata.name"}}}],
            "resources":{"requests":{"cpu":"250m","memory":"64Mi"},
                         "limits":{"cpu":"500m","memory":"128Mi"}}}]},
           "status":{"phase":"Pending","qosClass":"Burstable",
            "containerStatuses":[{"name":"app","allocatedResources":{"cpu":"250m","memory":"64Mi"},
              "ready":false,"restartCount":0,"image":"busybox","imageID":"",
              "state":{"waiting":{"reason":"ContainerCreating"}}}]}})";
}

class FakeApi final : public PodApi {
 public:
  bool patch_pod_status(const kube::Pod& pod, const std::string& patch) override {
    patches.push_back(bj::parse(patch));
    preconditions.push_back(pod.metadata.resource_version);
    if (conflicts > 0) {
      --conflicts;
      return false;
    }
    return true;
  }
  std::optional<kube::Pod> get_pod(const kube::Pod&) override {
    ++gets;
    return fresh;
  }
  void delete_pod(const kube::Pod& pod) override { deleted.push_back(pod.metadata.name); }
  std::optional<std::map<std::string, std::string>> get_data(const std::string& resource,
                                                             const std::string& ns,
                                                             const std::string& name) override {
    const auto it = data.find(resource + "/" + ns + "/" + name);
    if (it == data.end()) return std::nullopt;
    return it->second;
  }
  std::string request_token(const kube::Pod& pod, const std::string& service_account,
                            const std::string& audience, std::int64_t expiration) override {
    tokens.push_back(service_account + "@" + pod.metadata.name + "/" + audience + "/" +
                     std::to_string(expiration));
    return "token-" + std::to_string(tokens.size());
  }

  const bj::object& last_status() const { return patches.back().at("status").as_object(); }
  const bj::object& last_container() const {
    return last_status().at("containerStatuses").as_array().at(0).as_object();
  }

  std::vector<bj::value> patches;
  std::vector<std::string> preconditions;
  std::vector<std::string> deleted;
  int conflicts = 0;
  int gets = 0;
  std::optional<kube::Pod> fresh;
  std::map<std::string, std::map<std::string, std::string>> data;  // "<resource>/<ns>/<name>"
  std::vector<std::string> tokens;
};

class PodRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("tailor-pod-runtime-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    const std::string pod = std::string("kubepods/burstable/pod") + kUid;
    touch(root_ / "cpu" / pod, {"cpu.shares", "cpu.cfs_quota_us", "cpu.cfs_period_us"});
    touch(root_ / "memory" / pod, {"memory.limit_in_bytes", "memory.usage_in_bytes"});
    make_runtime();
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  void make_runtime() {
    runtime_ = std::make_unique<PodRuntime>(
        cri_, cri_, api_,
        PodRuntimeOptions{.node_name = "n1",
                          .host_ip = "10.0.0.5",
                          .cgroups = {root_, cri::CgroupVersion::V1},
                          .log_root = "",
                          .volume_root = (root_ / "pods").string(),
                          .host_path_root = host_path_root_,
                          .api_host = api_host_,
                          .api_port = 6443,
                          .restart_backoff_initial = std::chrono::seconds(10),
                          .restart_backoff_max = std::chrono::seconds(40),
                          .now = [this] { return now_; },
                          .probe_get =
                              [this](const std::string& host, int port, const std::string& path,
                                     std::chrono::seconds) {
                                probes_.push_back(host + ":" + std::to_string(port) + path);
                                return path == "/readyz" ? ready_ok_ : live_ok_;
                              },
                          .probe_dial =
                              [this](const std::string& host, int port, std::chrono::seconds t) {
                                probes_.push_back("tcp " + host + ":" + std::to_string(port) + " " +
                                                  std::to_string(t.count()) + "s");
                                return ready_ok_;
                              },
                          .dns = dns_,
                          .warn =
                              [this](const kube::Pod& pod, const std::string& reason,
                                     const std::string& message) {
                                warnings_.push_back(pod.metadata.name + " " + reason + " " +
                                                    message);
                              }});
  }

  static void touch(const std::filesystem::path& dir, std::initializer_list<const char*> files) {
    std::filesystem::create_directories(dir);
    for (const char* file : files) std::ofstream(dir / file) << "0\n";
  }
  std::string cgroup_file(const std::string& controller, const std::string& file) const {
    std::ifstream in(root_ / controller / (std::string("kubepods/burstable/pod") + kUid) / file);
    std::string value;
    std::getline(in, value);
    return value;
  }

  int count_calls(const std::string& method) const {
    int n = 0;
    for (const auto& call : cri_.calls) n += call.starts_with(method + " ") ? 1 : 0;
    return n;
  }

  void sync(const std::string& json = pod_json()) {
    runtime_->sync_pod(decode_runtime_pod(json), allocation_);
  }

  std::filesystem::path root_;
  std::string host_path_root_;
  std::string api_host_;
  std::vector<std::string> probes_;
  NodeDns dns_{};
  std::vector<std::string> warnings_;  // "pod reason message"
  bool ready_ok_ = false;
  bool live_ok_ = true;
  cri::testing::FakeCri cri_;
  FakeApi api_;
  std::unique_ptr<PodRuntime> runtime_;
  std::chrono::steady_clock::time_point now_{std::chrono::hours(1)};
  PodAllocation allocation_ = {{"app",
                                {.cpu_request_milli = 200,
                                 .cpu_limit_milli = 400,
                                 .memory_request_bytes = 64 << 20,
                                 .memory_limit_bytes = 100 << 20}}};
};

TEST_F(PodRuntimeTest, RunsTheSandboxAndContainerAsTheKubeletWould) {
  sync();
  ASSERT_EQ(cri_.sandboxes.size(), 1u);
  const auto& sandbox = cri_.sandboxes.begin()->second.spec;
  EXPECT_EQ(sandbox.cgroup_parent, std::string("/kubepods/burstable/pod") + kUid);
  // A network namespace of its own (the runtime's CNI plugins), named after the pod.
  EXPECT_EQ(sandbox.network, cri::NamespaceMode::Pod);
  EXPECT_EQ(sandbox.hostname, "web");
  EXPECT_EQ(sandbox.labels.at("io.kubernetes.pod.uid"), kUid);

  const auto& app = cri_.latest("app");
  EXPECT_EQ(app.spec.image, "sha256:feed");  // resolved locally
  EXPECT_EQ(app.spec.command, std::vector<std::string>{"sleep"});
  EXPECT_EQ(app.spec.args, std::vector<std::string>{"3600"});
  // fieldRefs are read from the pod.
  EXPECT_EQ(app.spec.envs,
            (std::vector<std::pair<std::string, std::string>>{{"A", "1"}, {"B", "web"}}));
  // The allocation, not the spec, sizes the container.
  EXPECT_EQ(app.spec.resources.cpu_shares, 204);
  EXPECT_EQ(app.spec.resources.cpu_quota, 40000);
  EXPECT_EQ(app.spec.resources.cpu_period, 100000);
  EXPECT_EQ(app.spec.resources.memory_limit_in_bytes, 100 << 20);
  EXPECT_EQ(app.status.state, cri::ContainerState::Running);

  // The pod cgroup holds the pod-level values before the sandbox starts.
  EXPECT_EQ(cgroup_file("cpu", "cpu.shares"), "204");
  EXPECT_EQ(cgroup_file("cpu", "cpu.cfs_quota_us"), "40000");
  EXPECT_EQ(cgroup_file("memory", "memory.limit_in_bytes"), std::to_string(100 << 20));
}

// What a kubelet gives a pod that the ServiceAccount admission plugin gave a kube-api-access
// volume: the token of its account bound to it, the cluster CA, its namespace; the API server's
// service variables; fieldRefs and $(VAR) in args.
TEST_F(PodRuntimeTest, ServiceAccountVolumeEnvironmentAndMounts) {
  api_host_ = "127.0.0.1";
  make_runtime();
  api_.data["configmaps/shop/kube-root-ca.crt"] = {{"ca.crt", "CA PEM"}};
  api_.data["secrets/shop/tls"] = {{"tls.crt", "Q0VSVA=="}, {"tls.key", "S0VZ"}};
  const std::string spec = R"("serviceAccountName":"bot",
      "volumes":[{"name":"kube-api-access-abcde","projected":{"defaultMode":420,"sources":[
          {"serviceAccountToken":{"expirationSeconds":3607,"path":"token"}},
          {"configMap":{"name":"kube-root-ca.crt","items":[{"key":"ca.crt","path":"ca.crt"}]}},
          {"downwardAPI":{"items":[{"path":"namespace",
              "fieldRef":{"apiVersion":"v1","fieldPath":"metadata.namespace"}}]}}]}},
        {"name":"certs","secret":{"secretName":"tls","items":[{"key":"tls.crt","path":"tls.crt"}]}},
        {"name":"scratch","emptyDir":{}}],)";
  std::string json = pod_json(spec);
  const std::string container = R"("name":"app","image":"busybox",)";
  json.replace(json.find(container), container.size(),
               container + R"("volumeMounts":[{"name":"kube-api-access-abcde","readOnly":true,
                   "mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"},
                   {"name":"certs","mountPath":"/etc/tls","readOnly":true},
                   {"name":"scratch","mountPath":"/tmp"}],)");
  json.replace(json.find(R"("args":["3600"])"), 15, R"x("args":["--who=$(B)","$$(B)","$(NONE)"])x");
  sync(json);

  const auto& app = cri_.latest("app");
  EXPECT_EQ(app.status.state, cri::ContainerState::Running);
  EXPECT_EQ(api_.tokens, std::vector<std::string>{"bot@web//3607"});
  const auto volume = root_ / "pods" / kUid / "volumes";
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto sa = volume / "kube-api-access-abcde";
  EXPECT_EQ(read(sa / "token"), "token-1");
  EXPECT_EQ(read(sa / "ca.crt"), "CA PEM");
  EXPECT_EQ(read(sa / "namespace"), "shop");
  EXPECT_TRUE(std::filesystem::is_symlink(sa / "token")) << "through ..data, swapped whole";
  EXPECT_EQ(std::filesystem::status(sa / "token").permissions() & std::filesystem::perms::all,
            std::filesystem::perms(0644));
  EXPECT_EQ(read(volume / "certs" / "tls.crt"), "CERT");
  EXPECT_FALSE(std::filesystem::exists(volume / "certs" / "tls.key")) << "only the items named";
  ASSERT_EQ(app.spec.mounts.size(), 3u);
  EXPECT_EQ(app.spec.mounts[0].container_path, "/var/run/secrets/kubernetes.io/serviceaccount");
  EXPECT_EQ(app.spec.mounts[0].host_path, sa.string());
  EXPECT_TRUE(app.spec.mounts[0].read_only);
  EXPECT_EQ(app.spec.mounts[2].host_path, (volume / "scratch").string());
  EXPECT_FALSE(app.spec.mounts[2].read_only);

  const std::map<std::string, std::string> env(app.spec.envs.begin(), app.spec.envs.end());
  EXPECT_EQ(env.at("KUBERNETES_SERVICE_HOST"), "127.0.0.1");
  EXPECT_EQ(env.at("KUBERNETES_SERVICE_PORT"), "6443");
  EXPECT_EQ(env.at("KUBERNETES_PORT"), "tcp://127.0.0.1:6443");
  EXPECT_EQ(app.spec.args, (std::vector<std::string>{"--who=web", "$(B)", "$(NONE)"}));

  // Files are written again every minute (new data), the token asked for again at 80 % of its
  // lifetime; the pod's directory goes with the pod.
  api_.data["configmaps/shop/kube-root-ca.crt"] = {{"ca.crt", "NEW CA"}};
  sync(json);
  EXPECT_EQ(read(sa / "ca.crt"), "CA PEM");
  now_ += std::chrono::seconds(61);
  sync(json);
  EXPECT_EQ(read(sa / "ca.crt"), "NEW CA");
  EXPECT_EQ(api_.tokens.size(), 1u);
  now_ += std::chrono::seconds(3607 * 8 / 10);
  sync(json);
  EXPECT_EQ(api_.tokens.size(), 2u);
  EXPECT_EQ(read(sa / "token"), "token-2");
  runtime_->terminate_pod(decode_runtime_pod(json), true);
  EXPECT_FALSE(std::filesystem::exists(root_ / "pods" / kUid));
}

TEST_F(PodRuntimeTest, AMissingConfigMapKeepsTheContainersFromStarting) {
  const std::string spec = R"("volumes":[{"name":"cfg","configMap":{"name":"settings"}}],)";
  sync(pod_json(spec));
  EXPECT_TRUE(cri_.containers.empty());
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("message"),
            "MountVolume.SetUp failed for volume \"cfg\" : configmap \"settings\" not found");
  api_.data["configmaps/shop/settings"] = {{"mode", "fast"}};
  sync(pod_json(spec));
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running);
  std::ifstream in(root_ / "pods" / kUid / "volumes" / "cfg" / "mode");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "fast");
}

TEST_F(PodRuntimeTest, AMountOfNoVolumeIsAConfigError) {
  std::string json = pod_json();
  const std::string container = R"("name":"app","image":"busybox",)";
  json.replace(json.find(container), container.size(),
               container + R"("volumeMounts":[{"name":"nowhere","mountPath":"/x"}],)");
  sync(json);
  EXPECT_TRUE(cri_.containers.empty());
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("reason"),
            "CreateContainerConfigError");
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("message"),
            "unable to find volume \"nowhere\" for container \"app\"");
}

// The chart's probes: readiness on a named port gates the container's ready; liveness failing
// failureThreshold times in a row kills it, and restartPolicy starts a new, unready attempt.
TEST_F(PodRuntimeTest, ProbesGateReadinessAndRestartOnLivenessFailure) {
  std::string json = pod_json();
  const std::string container = R"("name":"app","image":"busybox",)";
  json.replace(json.find(container), container.size(),
               container + R"("ports":[{"name":"health","containerPort":8081}],
      "readinessProbe":{"httpGet":{"path":"/readyz","port":"health"},"periodSeconds":5},
      "livenessProbe":{"httpGet":{"path":"/livez","port":8081},"periodSeconds":10,
                       "failureThreshold":2},)");
  sync(json);
  // At the pod's IP (the sandbox's, not the node's), as the kubelet dials.
  EXPECT_EQ(probes_, (std::vector<std::string>{"10.200.0.1:8081/readyz", "10.200.0.1:8081/livez"}));
  EXPECT_EQ(api_.last_container().at("ready"), false);
  EXPECT_EQ(api_.last_container().at("started"), true);

  ready_ok_ = true;
  sync(json);
  EXPECT_EQ(probes_.size(), 2u) << "not again before the period";
  now_ += std::chrono::seconds(5);
  sync(json);
  EXPECT_EQ(api_.last_container().at("ready"), true);

  live_ok_ = false;
  now_ += std::chrono::seconds(10);
  sync(json);
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running) << "one failure";
  now_ += std::chrono::seconds(10);
  sync(json);
  EXPECT_EQ(cri_.latest("app").status.exit_code, 137) << "killed at the second failure";
  live_ok_ = true;
  ready_ok_ = false;
  sync(json);
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running);
  EXPECT_EQ(api_.last_container().at("restartCount"), 1);
  EXPECT_EQ(api_.last_container().at("ready"), false) << "a new attempt starts unready";
}

// Bad input the node cannot honour: the container does not start, and the status says why in
// the kubelet's words where it has them.
TEST_F(PodRuntimeTest, VolumesAndEnvironmentTheNodeCannotMakeAreReported) {
  // `env`: entries put before the container's own.
  auto waiting_message = [&](const std::string& spec, const std::string& env = "") {
    std::string json = pod_json(spec);
    json.replace(json.find(R"("env":[)"), 7, R"("env":[)" + env);
    sync(json);
    EXPECT_TRUE(cri_.containers.empty());
    return std::string(api_.last_container().at("state").at("waiting").at("message").as_string());
  };
  api_.data["secrets/shop/tls"] = {{"tls.crt", "Q0VSVA=="}};
  EXPECT_EQ(waiting_message(R"("volumes":[{"name":"certs","secret":{"secretName":"tls",
                "items":[{"key":"tls.key","path":"tls.key"}]}}],)"),
            "MountVolume.SetUp failed for volume \"certs\" : secret references non-existent "
            "secret key: tls.key");
  EXPECT_EQ(waiting_message(R"("volumes":[{"name":"up","secret":{"secretName":"tls",
                "items":[{"key":"tls.crt","path":"../escape"}]}}],)"),
            "MountVolume.SetUp failed for volume \"up\" : invalid path in the volume: "
            "\"../escape\"");
  EXPECT_EQ(waiting_message(R"("volumes":[{"name":"share","nfs":{"server":"s","path":"/"}}],)"),
            "MountVolume.SetUp failed for volume \"share\" : volume source \"nfs\" is not "
            "supported by this node");
  const std::string missing = (root_ / "no-such-dir").string();
  EXPECT_EQ(waiting_message(R"("volumes":[{"name":"host","hostPath":{"path":")" + missing +
                            R"(","type":"Directory"}}],)"),
            "MountVolume.SetUp failed for volume \"host\" : hostPath type check failed: " +
                missing + " is not a directory");
  EXPECT_EQ(waiting_message("", R"({"name":"PASSWORD",
                "valueFrom":{"secretKeyRef":{"name":"db","key":"password"}}},)"),
            "environment variable \"PASSWORD\": valueFrom.secretKeyRef is not supported by this "
            "node");
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("reason"),
            "CreateContainerConfigError");
  EXPECT_TRUE(api_.tokens.empty());
}

// Nodes sharing a machine (`tailor cluster up`): a hostPath is looked for below the node's own
// root, links there followed, so each node's DaemonSet pod mounts that node's socket and state.
TEST_F(PodRuntimeTest, HostPathsResolveBelowTheNodesOwnRoot) {
  namespace fs = std::filesystem;
  const fs::path node_root = root_ / "node-1-root", pki = root_ / "node-1-pki";
  fs::create_directories(pki);
  fs::create_directories(node_root / "var/lib/kubelet");
  fs::create_directory_symlink(pki, node_root / "var/lib/kubelet/pki");
  host_path_root_ = node_root.string();
  make_runtime();
  const std::string volumes = R"("volumes":[
      {"name":"state","hostPath":{"path":"/var/lib/tailor-node-agent","type":"DirectoryOrCreate"}},
      {"name":"pki","hostPath":{"path":"/var/lib/kubelet/pki","type":"Directory"}})";
  auto pod = [&](const std::string& more_volumes) {
    std::string json = pod_json(volumes + more_volumes + "],");
    const std::string container = R"("name":"app","image":"busybox",)";
    json.replace(json.find(container), container.size(),
                 container + R"("volumeMounts":[{"name":"state","mountPath":"/state"},
                     {"name":"pki","mountPath":"/pki","readOnly":true}],)");
    return json;
  };
  // No socket below the node's root: the machine's own is not taken instead.
  sync(pod(R"(,{"name":"sock","hostPath":{"path":"/run/containerd/containerd.sock",
                                            "type":"Socket"}})"));
  EXPECT_TRUE(cri_.containers.empty());
  EXPECT_EQ(std::string(api_.last_container().at("state").at("waiting").at("message").as_string()),
            "MountVolume.SetUp failed for volume \"sock\" : hostPath type check failed: " +
                (node_root / "run/containerd/containerd.sock").string() + " is not a socket");
  EXPECT_TRUE(fs::is_directory(node_root / "var/lib/tailor-node-agent")) << "made below the root";

  sync(pod(""));
  const auto& app = cri_.latest("app");
  ASSERT_EQ(app.status.state, cri::ContainerState::Running);
  ASSERT_EQ(app.spec.mounts.size(), 2u);
  EXPECT_EQ(app.spec.mounts[0].host_path, (node_root / "var/lib/tailor-node-agent").string());
  EXPECT_EQ(app.spec.mounts[1].host_path, (node_root / "var/lib/kubelet/pki").string());
  EXPECT_TRUE(app.spec.mounts[1].read_only);
}

TEST_F(PodRuntimeTest, ReportsRunningAndReadyWithoutTouchingTheResizeFields) {
  sync();
  ASSERT_EQ(api_.patches.size(), 1u);
  const auto& status = api_.last_status();
  EXPECT_EQ(status.at("phase"), "Running");
  EXPECT_EQ(status.at("hostIP"), "10.0.0.5");
  EXPECT_EQ(status.at("podIP"), "10.200.0.1");  // PodSandboxStatus's network IP
  EXPECT_EQ(status.at("podIPs"), bj::parse(R"([{"ip":"10.200.0.1"}])"));
  EXPECT_FALSE(status.at("startTime").as_string().empty());
  std::map<std::string, std::string> conditions;
  for (const auto& c : status.at("conditions").as_array()) {
    conditions[std::string(c.at("type").as_string())] = c.at("status").as_string();
  }
  EXPECT_EQ(conditions, (std::map<std::string, std::string>{{"ContainersReady", "True"},
                                                            {"Initialized", "True"},
                                                            {"PodScheduled", "True"},
                                                            {"Ready", "True"}}));
  const auto& app = api_.last_container();
  EXPECT_EQ(app.at("ready"), true);
  EXPECT_EQ(app.at("restartCount"), 0);
  EXPECT_EQ(app.at("image"), "docker.io/library/busybox:latest");
  EXPECT_EQ(app.at("imageID"), "docker.io/library/busybox@sha256:feed");
  EXPECT_EQ(app.at("containerID").as_string(), "containerd://" + cri_.latest("app").status.id);
  EXPECT_TRUE(app.at("state").at("running").is_object());
  EXPECT_TRUE(app.at("state").at("waiting").is_null());  // replaces ContainerCreating
  // The resize writer's field is carried over as read, under the read's resourceVersion.
  EXPECT_EQ(app.at("allocatedResources").at("cpu"), "250m");
  EXPECT_FALSE(app.contains("resources"));
  EXPECT_EQ(api_.patches.back().at("metadata").at("resourceVersion"), "7");
  // Nothing changed: nothing written.
  sync();
  EXPECT_EQ(api_.patches.size(), 1u);
}

// hostNetwork pods keep the node's network and UTS namespaces; their IP is the node's.
TEST_F(PodRuntimeTest, AHostNetworkPodSharesTheNodesNetwork) {
  std::string json = pod_json(R"("hostNetwork":true,)");
  const std::string env = R"({"name":"A","value":"1"})";
  json.replace(json.find(env), env.size(),
               R"({"name":"A","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}})");
  sync(json);
  const auto& sandbox = cri_.sandboxes.begin()->second.spec;
  EXPECT_EQ(sandbox.network, cri::NamespaceMode::Node);
  EXPECT_EQ(sandbox.hostname, "");
  EXPECT_EQ(api_.last_status().at("podIP"), "10.0.0.5");
  EXPECT_EQ(cri_.latest("app").spec.envs.front(),
            (std::pair<std::string, std::string>{"A", "10.0.0.5"}));
}

// The pod's resolv.conf goes to the runtime as the sandbox's DNSConfig; what forming it cut is a
// warning event on the pod, as the kubelet records it.
TEST_F(PodRuntimeTest, TheSandboxCarriesThePodsDnsAndItsWarningsAreEvents) {
  dns_ = {.cluster_dns = {"10.200.0.1"}, .cluster_domain = "cluster.local"};
  make_runtime();
  sync(pod_json(R"("dnsConfig":{"nameservers":["192.0.2.1","192.0.2.2","192.0.2.3"]},)"));
  const auto& sandbox = cri_.sandboxes.begin()->second.spec;
  ASSERT_TRUE(sandbox.dns);
  EXPECT_EQ(sandbox.dns->servers,
            (std::vector<std::string>{"10.200.0.1", "192.0.2.1", "192.0.2.2"}));
  EXPECT_EQ(
      sandbox.dns->searches,
      (std::vector<std::string>{"shop.svc.cluster.local", "svc.cluster.local", "cluster.local"}));
  EXPECT_EQ(sandbox.dns->options, std::vector<std::string>{"ndots:5"});
  EXPECT_EQ(warnings_, std::vector<std::string>{
                           "web DNSConfigForming Nameserver limits were exceeded, some nameservers "
                           "have been omitted, the applied nameserver line is: 10.200.0.1 "
                           "192.0.2.1 192.0.2.2"});
}

// The downward API's status.podIP and status.hostIP: the sandbox's IP and the node's.
TEST_F(PodRuntimeTest, DownwardApiPodIpIsTheSandboxsAndHostIpTheNodes) {
  std::string json = pod_json();
  const std::string env = R"({"name":"A","value":"1"})";
  json.replace(json.find(env), env.size(),
               R"({"name":"POD","valueFrom":{"fieldRef":{"fieldPath":"status.podIP"}}},
                  {"name":"HOST","valueFrom":{"fieldRef":{"fieldPath":"status.hostIP"}}})");
  sync(json);
  const auto& envs = cri_.latest("app").spec.envs;
  EXPECT_EQ(envs.at(0), (std::pair<std::string, std::string>{"POD", "10.200.0.1"}));
  EXPECT_EQ(envs.at(1), (std::pair<std::string, std::string>{"HOST", "10.0.0.5"}));
}

// tcpSocket: a connection to the pod's IP within timeoutSeconds (default 1); exec: ExecSync with
// the probe's timeout, exit 0 a success, a timeout a failure, a runtime error no result at all.
TEST_F(PodRuntimeTest, TcpSocketAndExecProbesAsTheKubeletRunsThem) {
  std::string json = pod_json();
  const std::string container = R"("name":"app","image":"busybox",)";
  json.replace(json.find(container), container.size(),
               container + R"("ports":[{"name":"db","containerPort":5432}],
      "readinessProbe":{"tcpSocket":{"port":"db"},"periodSeconds":1},
      "livenessProbe":{"exec":{"command":["cat","/tmp/healthy"]},"timeoutSeconds":2,
                       "periodSeconds":1,"failureThreshold":2},)");
  int exit_code = 0;
  bool timeout = false, broken = false;
  cri_.exec = [&](const std::string& command) -> std::int32_t {
    EXPECT_EQ(command, "cat /tmp/healthy");
    if (timeout) throw cri::CriError(cri::CriErrorKind::Timeout, "ExecSync", "deadline");
    if (broken) throw cri::CriError(cri::CriErrorKind::Other, "ExecSync", "no such process");
    return exit_code;
  };
  ready_ok_ = true;
  sync(json);
  EXPECT_EQ(probes_, std::vector<std::string>{"tcp 10.200.0.1:5432 1s"});
  EXPECT_EQ(count_calls("ExecSync"), 1);
  EXPECT_NE(std::find(cri_.calls.begin(), cri_.calls.end(), "ExecSync cat /tmp/healthy 2s"),
            cri_.calls.end());
  EXPECT_EQ(api_.last_container().at("ready"), true);

  // Runtime errors are no result: the container is not killed however many there are.
  broken = true;
  for (int i = 0; i < 3; ++i) {
    now_ += std::chrono::seconds(1);
    sync(json);
  }
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running);
  // A timeout and a non-zero exit are failures: the second in a row kills the container.
  broken = false;
  timeout = true;
  now_ += std::chrono::seconds(1);
  sync(json);
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running) << "one failure";
  timeout = false;
  exit_code = 1;
  now_ += std::chrono::seconds(1);
  sync(json);
  EXPECT_EQ(cri_.latest("app").status.exit_code, 137);

  // A refused connection makes the new attempt unready.
  exit_code = 0;
  ready_ok_ = false;
  now_ += std::chrono::seconds(1);
  sync(json);
  EXPECT_EQ(api_.last_container().at("ready"), false);
}

TEST(PodRunSpec, AnExecProbeNeedsACommand) {
  const std::string json =
      R"({"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox",
          "livenessProbe":{"exec":{"command":[]}}}]}})";
  try {
    decode_pod_run_spec(json);
    FAIL() << "decoded";
  } catch (const kube::DecodeError& e) {
    EXPECT_NE(std::string(e.what()).find("spec.containers[0].livenessProbe.exec.command"),
              std::string::npos)
        << e.what();
  }
}

// httpGet.host, when given, is dialled instead of the pod's IP.
TEST_F(PodRuntimeTest, AProbesHostIsDialledWhenGiven) {
  std::string json = pod_json();
  const std::string container = R"("name":"app","image":"busybox",)";
  json.replace(
      json.find(container), container.size(),
      container +
          R"("readinessProbe":{"httpGet":{"host":"192.0.2.9","path":"/readyz","port":80}},)");
  sync(json);
  EXPECT_EQ(probes_, std::vector<std::string>{"192.0.2.9:80/readyz"});
}

TEST_F(PodRuntimeTest, RereadsThePodAndRebuildsOnConflict) {
  api_.conflicts = 1;
  kube::Pod fresh = kube::decode<kube::Pod>(kube::JsonInput(pod_json()));
  fresh.metadata.resource_version = "9";
  fresh.status.container_statuses[0].allocated_resources = {{"cpu", kube::Quantity::parse("300m")}};
  api_.fresh = fresh;
  sync();
  ASSERT_EQ(api_.patches.size(), 2u);
  EXPECT_EQ(api_.gets, 1);
  EXPECT_EQ(api_.patches.back().at("metadata").at("resourceVersion"), "9");
  EXPECT_EQ(api_.last_container().at("allocatedResources").at("cpu"), "300m");
}

TEST_F(PodRuntimeTest, MissingImageIsAPullFailureNeverAPull) {
  cri_.images.clear();
  sync();
  EXPECT_TRUE(cri_.containers.empty());
  EXPECT_EQ(api_.last_status().at("phase"), "Pending");
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("reason"), "ErrImagePull");
  sync();
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("reason"), "ImagePullBackOff");
  EXPECT_EQ(api_.last_status().at("conditions").as_array().at(3).at("reason"),
            "ContainersNotReady");
}

TEST_F(PodRuntimeTest, RestartsByPolicyWithCrashLoopBackOff) {
  sync();
  const std::string first = cri_.latest("app").status.id;
  cri_.exit(first, 1, "Error");
  sync();  // the first restart is immediate
  EXPECT_EQ(cri_.latest("app").spec.attempt, 1u);
  EXPECT_EQ(api_.last_container().at("restartCount"), 1);
  EXPECT_EQ(api_.last_container().at("lastState").at("terminated").at("exitCode"), 1);
  EXPECT_EQ(api_.last_status().at("phase"), "Running");

  cri_.exit(cri_.latest("app").status.id, 137, "OOMKilled");
  sync();  // within the back-off: waits
  EXPECT_EQ(cri_.latest("app").spec.attempt, 1u);
  const auto& waiting = api_.last_container().at("state").at("waiting");
  EXPECT_EQ(waiting.at("reason"), "CrashLoopBackOff");
  EXPECT_EQ(waiting.at("message").as_string(),
            std::string("back-off 10s restarting failed container=app pod=web_shop(") + kUid + ")");
  EXPECT_EQ(api_.last_container().at("lastState").at("terminated").at("reason"), "OOMKilled");
  EXPECT_EQ(api_.last_container().at("ready"), false);

  now_ += std::chrono::seconds(10);
  sync();
  EXPECT_EQ(cri_.latest("app").spec.attempt, 2u);
  EXPECT_EQ(api_.last_container().at("restartCount"), 2);
  // The kubelet keeps one dead container for lastState; older ones are removed.
  EXPECT_FALSE(cri_.containers.contains(first));
  EXPECT_EQ(cri_.containers.size(), 2u);
}

// containerd killed while a container was being stopped or started loads it back in state
// UNKNOWN (its task lost). As the kubelet does, such a container is always restarted, stopped
// first so that two never run; left alone it stayed ContainerStatusUnknown and its pod Pending
// for good (the fault campaign: seed 1601, containerd killed 190 ms into a RestartContainer
// resize).
TEST_F(PodRuntimeTest, AContainerInUnknownStateIsStoppedAndStartedAgain) {
  sync();
  const std::string lost = cri_.latest("app").status.id;
  cri_.containers.at(lost).status.state = cri::ContainerState::Unknown;
  sync();
  EXPECT_EQ(cri_.latest("app").spec.attempt, 1u);
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running);
  EXPECT_NE(std::find(cri_.calls.begin(), cri_.calls.end(), "StopContainer " + lost + " 3"),
            cri_.calls.end());
  EXPECT_EQ(api_.last_container().at("restartCount"), 1);
  EXPECT_EQ(api_.last_status().at("phase"), "Running");
}

TEST_F(PodRuntimeTest, TerminalPhasesFollowTheRestartPolicy) {
  struct Case {
    const char* policy;
    int exit_code;
    const char* phase;
    const char* reason;
  };
  for (const Case& c :
       {Case{"Never", 1, "Failed", "Error"}, Case{"OnFailure", 0, "Succeeded", "Completed"},
        Case{"Never", 0, "Succeeded", "Completed"}}) {
    SCOPED_TRACE(c.policy + std::string(" ") + std::to_string(c.exit_code));
    cri_.containers.clear();
    cri_.sandboxes.clear();
    make_runtime();
    const std::string json = pod_json(std::string("\"restartPolicy\":\"") + c.policy + "\",");
    sync(json);
    cri_.exit(cri_.latest("app").status.id, c.exit_code, "");
    sync(json);
    EXPECT_EQ(cri_.containers.size(), 1u);               // not restarted
    EXPECT_FALSE(cri_.sandboxes.begin()->second.ready);  // a finished pod's sandbox is stopped
    EXPECT_EQ(api_.last_status().at("phase"), c.phase);
    EXPECT_EQ(api_.last_container().at("state").at("terminated").at("reason"), c.reason);
  }
}

TEST_F(PodRuntimeTest, DeletionStopsRemovesAndDeletesWithGraceZero) {
  sync();
  const std::string id = cri_.latest("app").status.id;
  const std::string deleting =
      pod_json("", R"(,"deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":2)");
  sync(deleting);
  EXPECT_TRUE(cri_.containers.empty());
  EXPECT_TRUE(cri_.sandboxes.empty());
  EXPECT_NE(std::find(cri_.calls.begin(), cri_.calls.end(), "StopContainer " + id + " 2"),
            cri_.calls.end());
  EXPECT_EQ(api_.deleted, std::vector<std::string>{"web"});
  // (The pod cgroup is removed on the real tree, see the containerd tests: a fake one holds files.)
  // A late event of the deleted pod does not start it again.
  sync();
  EXPECT_TRUE(cri_.sandboxes.empty());
  EXPECT_FALSE(runtime_->running_pod(kUid));
}

TEST_F(PodRuntimeTest, RestartContainerStartsANewAttemptWithNewResources) {
  sync();
  const std::string old = cri_.latest("app").status.id;
  runtime_->restart_container(decode_runtime_pod(pod_json()), "app",
                              {.cpu_request_milli = 500, .cpu_limit_milli = 1000});
  EXPECT_EQ(cri_.containers.at(old).stop_grace, 3);  // the pod's grace period
  EXPECT_EQ(cri_.latest("app").spec.attempt, 1u);
  EXPECT_EQ(cri_.latest("app").spec.resources.cpu_quota, 100000);
  sync();
  EXPECT_EQ(api_.last_container().at("restartCount"), 1);
  EXPECT_THROW(runtime_->restart_container(decode_runtime_pod(pod_json()), "nope", {}),
               std::invalid_argument);
}

// The resize path's two halves: stop with the grace period of the last sync's run spec, then the
// next attempt with the new resources; the restart count follows.
TEST_F(PodRuntimeTest, RestartForAResizeInTwoHalves) {
  const kube::Pod pod = decode_runtime_pod(pod_json()).pod;
  EXPECT_THROW(runtime_->stop_for_restart(pod, "app"), std::runtime_error);  // never synced
  sync();
  const std::string old = cri_.latest("app").status.id;
  runtime_->stop_for_restart(pod, "app");
  EXPECT_EQ(cri_.containers.at(old).stop_grace, 3);
  EXPECT_EQ(cri_.containers.at(old).status.state, cri::ContainerState::Exited);
  runtime_->start_after_restart(pod, "app", {.memory_limit_bytes = 64 << 20});
  EXPECT_EQ(cri_.latest("app").spec.attempt, 1u);
  EXPECT_EQ(cri_.latest("app").status.state, cri::ContainerState::Running);
  EXPECT_EQ(cri_.latest("app").spec.resources.memory_limit_in_bytes, 64 << 20);
  sync();
  EXPECT_EQ(api_.last_container().at("restartCount"), 1);
  EXPECT_THROW(runtime_->stop_for_restart(pod, "nope"), std::invalid_argument);
}

TEST_F(PodRuntimeTest, AnAgentRestartAdoptsWhatRuns) {
  sync();
  make_runtime();
  runtime_->recover();
  sync();
  EXPECT_EQ(cri_.sandboxes.size(), 1u);
  EXPECT_EQ(cri_.containers.size(), 1u);
  const auto running = runtime_->running_pod(kUid);
  ASSERT_TRUE(running);
  EXPECT_EQ(running->containers.size(), 1u);
  EXPECT_EQ(running->cgroup_path, std::string("/kubepods/burstable/pod") + kUid);
  EXPECT_EQ(running->ns, "shop");
  // The adopted sandbox's IP is read back from the runtime: the status keeps it.
  EXPECT_EQ(api_.last_status().at("podIP"), "10.200.0.1");
}

TEST_F(PodRuntimeTest, OrphansAreRemoved) {
  sync();
  runtime_->remove_orphans({"some-other-uid"});
  EXPECT_TRUE(cri_.containers.empty());
  EXPECT_TRUE(cri_.sandboxes.empty());
}

TEST_F(PodRuntimeTest, SandboxFailureIsReportedAndRetriedAfterTheBackoff) {
  cri_.fail_sandbox = true;
  sync();
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("reason"), "ContainerCreating");
  EXPECT_FALSE(api_.last_status().contains("podIP")) << "no sandbox, no IP";
  EXPECT_NE(std::string(api_.last_container().at("state").at("waiting").at("message").as_string())
                .find("no shim"),
            std::string::npos);
  cri_.fail_sandbox = false;
  sync();  // within the back-off: the runtime is not asked
  EXPECT_EQ(count_calls("RunPodSandbox"), 1);
  EXPECT_EQ(api_.last_container().at("state").at("waiting").at("reason"), "ContainerCreating");
  now_ += std::chrono::seconds(10);
  sync();
  EXPECT_EQ(count_calls("RunPodSandbox"), 2);
  EXPECT_EQ(api_.last_status().at("phase"), "Running");
  // The failed sandbox (kept by the runtime, holding the name) was removed first.
  EXPECT_EQ(cri_.sandboxes.size(), 1u);
  EXPECT_EQ(count_calls("RemovePodSandbox"), 1);
}

// A sandbox that never starts, synced every second for 100 s: tried at 0, 10, 30 and 70 s (the
// fixture's back-off is 10 s doubling to 40 s), never on every sync.
TEST_F(PodRuntimeTest, FailingSandboxIsTriedAtTheBackoffsPace) {
  cri_.fail_sandbox = true;
  for (int second = 0; second < 100; ++second) {
    sync();
    now_ += std::chrono::seconds(1);
  }
  EXPECT_EQ(count_calls("RunPodSandbox"), 4);
  for (int second = 0; second < 100; ++second) {  // capped at 40 s: 110, 150, 190
    sync();
    now_ += std::chrono::seconds(1);
  }
  EXPECT_EQ(count_calls("RunPodSandbox"), 7);
  EXPECT_NE(std::string(api_.last_container().at("state").at("waiting").at("message").as_string())
                .find("Failed to create pod sandbox"),
            std::string::npos);
}

TEST_F(PodRuntimeTest, FailingContainerCreateIsTriedAtTheBackoffsPace) {
  cri_.errors.emplace("CreateContainer", cri::CriError(cri::CriErrorKind::Other, "CreateContainer",
                                                       "memory limit too low"));
  for (int second = 0; second < 100; ++second) {
    sync();
    now_ += std::chrono::seconds(1);
  }
  EXPECT_EQ(count_calls("CreateContainer"), 4);  // at 0, 10, 30 and 70 s
  EXPECT_EQ(count_calls("RunPodSandbox"), 1);
  const auto& waiting = api_.last_container().at("state").at("waiting");
  EXPECT_EQ(waiting.at("reason"), "CreateContainerError");
  EXPECT_NE(std::string(waiting.at("message").as_string()).find("memory limit too low"),
            std::string::npos);
  cri_.errors.clear();
  now_ += std::chrono::seconds(40);
  sync();
  EXPECT_EQ(api_.last_status().at("phase"), "Running");
}

TEST(FailedStep, WaitsTenSecondsDoublingToTheMaximumAndStartsOverAfterALongQuiet) {
  using namespace std::chrono_literals;
  FailedStep step{RestartBackoff(10s, 300s)};
  const RestartBackoff::Clock::time_point t0{std::chrono::hours(1)};
  EXPECT_TRUE(step.due(t0));  // never failed
  std::vector<long> delays;
  auto t = t0;
  for (int i = 0; i < 8; ++i) {
    step.failed(t, "CreateContainerError", "boom");
    delays.push_back(static_cast<long>(step.backoff.delay() / 1s));
    EXPECT_FALSE(step.due(t + step.backoff.delay() - 1ms));
    t += step.backoff.delay();
    EXPECT_TRUE(step.due(t));
  }
  EXPECT_EQ(delays, (std::vector<long>{10, 20, 40, 80, 160, 300, 300, 300}));
  EXPECT_EQ(step.reason, "CreateContainerError");
  t += 601s;  // quiet for longer than 2 × max: the kubelet's back-off starts over
  step.failed(t, "RunContainerError", "again");
  EXPECT_EQ(step.backoff.delay(), 10s);
  EXPECT_EQ(step.message, "again");
}

TEST(PodRunSpec, BadInputNamesThePath) {
  EXPECT_THROW(decode_pod_run_spec("{"), kube::DecodeError);
  try {
    decode_pod_run_spec(R"({"spec":{"containers":[{"name":"a","command":[1]}]}})");
    FAIL();
  } catch (const kube::DecodeError& e) {
    EXPECT_EQ(e.path(), "spec.containers[0].command[0]");
  }
  EXPECT_THROW(decode_pod_run_spec(R"({"spec":{"terminationGracePeriodSeconds":-1}})"),
               kube::DecodeError);
}

}  // namespace
}  // namespace tailor::node::runtime
