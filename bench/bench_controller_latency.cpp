// Time from a sustained CPU load step to the pod's cgroups holding the new size (issue 6), on
// real containerd through `tailor cluster up` (one node; tailor-controller and the node agent's
// usage stream as `cluster up` wires them). Each repeat: a VerticalScalingPolicy and a one-replica
// Deployment whose busybox container sleeps, then burns CPU; the step is timestamped from the
// container's cpuacct.usage (the first 200 ms in which it burns over 0.1 core), and the container's
// cpu.shares is polled every 100 ms until it grows. The restart count is read back at the end.
// Usage: bench_controller_latency [repeats=5] [extra `tailor cluster up` flags...]
//   e.g. --controller-arg=--pass-interval=5s --agent-arg=--usage-report-interval=5s
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "kube/client/config.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "policy/resources.h"

namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace tailor;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

namespace {

constexpr int kSleepBeforeStep = 45;  // seconds of idle history before the step

fs::path bin_dir() { return fs::read_symlink("/proc/self/exe").parent_path(); }

void run(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
}

std::optional<long long> read_number(const fs::path& file) {
  std::ifstream in(file);
  long long v = 0;
  if (in >> v) return v;
  return std::nullopt;
}

// The container's cgroup below a hierarchy: <root>/kubepods[/burstable|/besteffort]/pod<uid>/<id>.
std::optional<fs::path> container_cgroup(const char* hierarchy, const std::string& pod_uid,
                                         const std::string& container_id) {
  fs::path root = fs::path("/sys/fs/cgroup") / hierarchy / "kubepods";
  for (const fs::path& qos : {root, root / "burstable", root / "besteffort"}) {
    fs::path p = qos / ("pod" + pod_uid) / container_id;
    if (fs::exists(p)) return p;
  }
  return std::nullopt;
}

std::string deployment_json(const std::string& name) {
  std::string script = "sleep " + std::to_string(kSleepBeforeStep) + "; while :; do :; done";
  bj::object container{
      {"name", "burner"},
      {"image", "busybox"},
      {"imagePullPolicy", "IfNotPresent"},
      {"command", bj::array{"sh", "-c", script}},
      {"resources", bj::object{{"requests", bj::object{{"cpu", "50m"}, {"memory", "32Mi"}}},
                               {"limits", bj::object{{"cpu", "500m"}, {"memory", "64Mi"}}}}}};
  bj::object labels{{"app", name}};
  bj::object pod_template{{"metadata", bj::object{{"labels", labels}}},
                          {"spec", bj::object{{"containers", bj::array{container}}}}};
  bj::object spec{{"replicas", 1},
                  {"selector", bj::object{{"matchLabels", labels}}},
                  {"template", pod_template}};
  return bj::serialize(
      bj::object{{"apiVersion", "apps/v1"},
                 {"kind", "Deployment"},
                 {"metadata", bj::object{{"name", name}, {"namespace", "default"}}},
                 {"spec", spec}});
}

std::string policy_json(const std::string& name) {
  return bj::serialize(bj::object{
      {"apiVersion", "autoscaling.tailor.dev/v1alpha1"},
      {"kind", "VerticalScalingPolicy"},
      {"metadata", bj::object{{"name", name}, {"namespace", "default"}}},
      {"spec",
       bj::object{{"targetRef",
                   bj::object{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
                  {"updatePolicy", bj::object{{"mode", "InPlaceOrRecreate"}}}}}});
}

// The Deployment's running pod with its container id, once there is one.
std::optional<kube::Pod> running_pod(kube::RestClient& client, const std::string& app) {
  kube::ListOptions o;
  o.label_selector = "app=" + app;
  bj::value list = bj::parse(client.list({kube::resources::kPods, "default"}, o));
  for (const bj::value& item : list.at("items").as_array()) {
    kube::Pod pod = kube::decode<kube::Pod>(bj::serialize(item));
    if (pod.status.phase == "Running" && !pod.status.container_statuses.empty() &&
        !pod.status.container_statuses[0].container_id.empty()) {
      return pod;
    }
  }
  return std::nullopt;
}

template <class Check>
auto wait_for(Check check, std::chrono::seconds timeout, const char* what) {
  auto deadline = Clock::now() + timeout;
  while (Clock::now() < deadline) {
    if (auto v = check()) return *v;
    std::this_thread::sleep_for(100ms);
  }
  throw std::runtime_error(std::string("timed out waiting for ") + what);
}

struct Sample {
  double latency_s = 0;
  long long shares_before = 0, shares_after = 0, quota_after = 0;
  int restarts = 0;
};

Sample one_step(kube::RestClient& client, int repeat) {
  std::string name = "burn-" + std::to_string(repeat);
  client.create({policy::resources::kVerticalScalingPolicies, "default"}, policy_json(name));
  client.create({kube::resources::kDeployments, "default"}, deployment_json(name));
  kube::Pod pod = wait_for([&] { return running_pod(client, name); }, 120s, "the pod to run");
  std::string id = pod.status.container_statuses[0].container_id;
  id = id.substr(id.find("://") + 3);
  fs::path cpu = wait_for([&] { return container_cgroup("cpu", pod.metadata.uid, id); }, 10s,
                          "the container's cpu cgroup");
  fs::path acct = wait_for([&] { return container_cgroup("cpuacct", pod.metadata.uid, id); }, 10s,
                           "the container's cpuacct cgroup");

  // The step: 200 ms in which the container used over 0.1 core.
  long long last = read_number(acct / "cpuacct.usage").value_or(0);
  auto step = wait_for(
      [&]() -> std::optional<Clock::time_point> {
        std::this_thread::sleep_for(100ms);
        long long now = read_number(acct / "cpuacct.usage").value_or(last);
        bool burning = now - last > 20'000'000;  // ns in 200 ms (with the wait_for sleep)
        last = now;
        return burning ? std::optional(Clock::now()) : std::nullopt;
      },
      std::chrono::seconds(kSleepBeforeStep + 60), "the load step");
  Sample s;
  s.shares_before = read_number(cpu / "cpu.shares").value_or(0);
  auto grown = wait_for(
      [&]() -> std::optional<Clock::time_point> {
        long long shares = read_number(cpu / "cpu.shares").value_or(0);
        if (shares <= s.shares_before) return std::nullopt;
        s.shares_after = shares;
        s.quota_after = read_number(cpu / "cpu.cfs_quota_us").value_or(0);
        return Clock::now();
      },
      600s, "cpu.shares to grow");
  s.latency_s = std::chrono::duration<double>(grown - step).count();
  kube::Pod after =
      kube::decode<kube::Pod>(client.get({kube::resources::kPods, "default", pod.metadata.name}));
  s.restarts = after.status.container_statuses.empty()
                   ? -1
                   : after.status.container_statuses[0].restart_count;
  client.remove({kube::resources::kDeployments, "default", name});
  client.remove({policy::resources::kVerticalScalingPolicies, "default", name});
  return s;
}

int bench(int repeats, const std::vector<std::string>& up_flags) {
  fs::path dir = fs::temp_directory_path() / ("tailor-bench-latency-" + std::to_string(getpid()));
  std::string tailor = (bin_dir() / "tailor").string();
  std::string up = tailor + " cluster up --dir " + dir.string() +
                   " --nodes 1 --node-allocatable cpu=2,memory=4Gi";
  for (const std::string& f : up_flags) up += " '" + f + "'";
  std::printf("%s\n", up.c_str());
  run(up);
  int code = 0;
  try {
    std::string kubeconfig = (dir / "kubeconfig").string();
    run("kubectl --kubeconfig " + kubeconfig +
        " apply -f " TAILOR_SOURCE_DIR "/charts/tailor/crds >/dev/null");
    run("kubectl --kubeconfig " + kubeconfig +
        " wait --for=condition=Established --timeout=30s "
        "crd --all >/dev/null");
    kube::RestClient client(kube::load_kubeconfig(kubeconfig));
    std::vector<double> latencies;
    for (int r = 1; r <= repeats; ++r) {
      Sample s = one_step(client, r);
      latencies.push_back(s.latency_s);
      std::printf(
          "step %d: cgroup resized %.1f s after the load step (cpu.shares %lld -> %lld, "
          "cfs_quota_us %lld), restartCount %d\n",
          r, s.latency_s, s.shares_before, s.shares_after, s.quota_after, s.restarts);
      if (s.restarts != 0) code = 1;
    }
    std::sort(latencies.begin(), latencies.end());
    std::printf("%d steps: p50 %.1f s, max %.1f s\n", repeats, latencies[latencies.size() / 2],
                latencies.back());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_controller_latency: %s (logs in %s)\n", e.what(), dir.c_str());
    code = 1;
  }
  std::system((tailor + " cluster down --dir " + dir.string() + " >/dev/null").c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int repeats = argc > 1 ? std::atoi(argv[1]) : 5;
  std::vector<std::string> flags(argv + std::min(argc, 2), argv + argc);
  try {
    return bench(std::max(1, repeats), flags);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_controller_latency: %s\n", e.what());
    return 1;
  }
}
