// The node agent's resize latency on a real containerd (issue 4): a private containerd
// (scripts/containerd/start.sh), an in-process tailor-cluster and the real tailor-node-agent in
// embedded mode (--actuation=agent). Measures, per resize of a one-container pod:
//   watch: the resize PATCH answered → the pod's new generation seen by a watch (as the agent's
//          informer sees it);
//   agent: that watch event → the container's cgroup file holding the new CPU quota, split at
//          the agent's checkpoint rename (seen as a new inode);
// and, for a Deferred resize, the other pod's DELETED watch event → the cgroup holding the
// resize. Beside them, in the same run and on the same container: a raw CRI
// UpdateContainerResources (start → its cgroup file holds the value, and → the call returns) and
// the checkpoint's atomic write (fsync) on the same file system; then the agent's own metrics.
// Usage (as root): bench_node_agent_latency [resizes=60] [deferred=20]
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cluster_network.h"
#include "embedded/server/cluster.h"
#include "kube/client/informer.h"
#include "kube/client/list_watch.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "kube/model/encode.h"
#include "node-agent/allocation/checkpoint.h"
#include "node-agent/allocation/resize_manager_cri.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/cri/pod_cgroup.h"

namespace tailor::bench {
namespace {

namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

std::string run(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) throw std::runtime_error("cannot run: " + command);
  std::string out;
  char buffer[4096];
  while (std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) out.append(buffer, n);
  if (::pclose(pipe) != 0) throw std::runtime_error(command + " failed:\n" + out);
  return out;
}

void wait_until(const std::string& what, Clock::duration timeout, const std::function<bool()>& done,
                Clock::duration step = 20ms) {
  for (const auto deadline = Clock::now() + timeout; !done(); std::this_thread::sleep_for(step)) {
    if (Clock::now() > deadline) throw std::runtime_error("timed out waiting until " + what);
  }
}

// p50 / p99 / max / mean of a series, in ms.
struct Summary {
  double p50, p99, max, mean;
};
Summary summarize(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const auto at = [&v](double q) {
    const std::size_t rank = static_cast<std::size_t>(std::ceil(q * v.size()));
    return v[std::clamp<std::size_t>(rank, 1, v.size()) - 1];
  };
  double sum = 0;
  for (double x : v) sum += x;
  return {at(0.50), at(0.99), v.back(), sum / v.size()};
}
void print(const std::string& name, const std::vector<double>& v) {
  const Summary s = summarize(v);
  std::printf("%-58s n=%3zu  p50 %7.2f  p99 %7.2f  max %7.2f  mean %7.2f ms\n", name.c_str(),
              v.size(), s.p50, s.p99, s.max, s.mean);
}

// A private containerd under `dir` with a pod network of its own (as `tailor cluster up` gives a
// node), stopped (containers, cgroups, mounts, bridge removed) at the end.
class Containerd {
 public:
  explicit Containerd(fs::path dir) : dir_(std::move(dir)) {
    cli::set_up_pod_network(dir_);
    run(scripts() + "/start.sh " + dir_.string());
    socket_ = (dir_ / "containerd.sock").string();
    auto images = node::cri::connect_image_service({socket_, 5s, 5s});
    for (const char* image : {"docker.io/library/busybox:latest", "tailor.local/pause:1"}) {
      wait_until(std::string("the CRI lists ") + image, 10s,
                 [&] { return images->image_status(image).has_value(); });
    }
  }
  ~Containerd() {
    try {
      run(scripts() + "/stop.sh " + dir_.string());
    } catch (const std::exception& e) {
      std::cerr << e.what() << "\n";
    }
  }
  const std::string& socket() const { return socket_; }

 private:
  static std::string scripts() { return std::string(TAILOR_SOURCE_DIR) + "/scripts/containerd"; }
  fs::path dir_;
  std::string socket_;
};

// The tailor-node-agent binary beside this one, stopped with SIGTERM at the end.
class Agent {
 public:
  Agent(const fs::path& dir, const std::string& kubeconfig, const std::string& socket) {
    const fs::path binary = fs::read_symlink("/proc/self/exe").parent_path() / "tailor-node-agent";
    log_ = dir / "agent.log";
    fs::create_directories(dir / "checkpoint");  // the agent does not create it
    const std::string command =
        binary.string() + " --kubeconfig " + kubeconfig +
        " --node-name bench-node --runtime-endpoint unix://" + socket + " --checkpoint-dir " +
        (dir / "checkpoint").string() + " --actuation agent --node-allocatable cpu=2,memory=2Gi" +
        " --metrics-bind-address 127.0.0.1:0 >" + log_.string() + " 2>&1 & echo $!";
    pid_ = std::stoi(run(command));
    wait_until("the agent serves metrics", 30s, [&] { return !metrics_url().empty(); });
  }
  ~Agent() {
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 200 && ::kill(pid_, 0) == 0; ++i) std::this_thread::sleep_for(50ms);
  }
  std::string metrics_url() const {
    std::ifstream in(log_);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    std::smatch m;
    if (!std::regex_search(text, m, std::regex(R"((http://127\.0\.0\.1:[0-9]+))"))) return "";
    return m[1];
  }

 private:
  fs::path log_;
  int pid_ = 0;
};

// Watch arrival times: pods' generations, and deletions.
class PodWatch {
 public:
  explicit PodWatch(kube::RestClient& client)
      : informer_(
            std::make_shared<kube::cache::RestListerWatcher>(client, kube::resources::kPods,
                                                             "default"),
            [](std::string_view json) { return kube::decode_pod(std::string(json)); },
            kube::cache::InformerOptions{.name = "bench-pods"}) {
    informer_.add_handlers({.on_add = [this](const auto& p) { seen(*p); },
                            .on_update = [this](const auto&, const auto& p) { seen(*p); },
                            .on_delete =
                                [this](const auto& p, bool) {
                                  std::lock_guard lock(mutex_);
                                  deleted_[p->metadata.uid] = Clock::now();
                                  changed_.notify_all();
                                }});
    informer_.start();
    informer_.wait_for_sync(30s);
  }
  ~PodWatch() { informer_.stop(); }

  Clock::time_point generation_seen(const std::string& uid, std::int64_t generation) {
    return wait_for(generations_, uid + "/" + std::to_string(generation));
  }
  Clock::time_point deletion_seen(const std::string& uid) { return wait_for(deleted_, uid); }
  std::shared_ptr<const kube::Pod> get(const std::string& name) {
    return informer_.store().get("default", name);
  }

 private:
  void seen(const kube::Pod& pod) {
    std::lock_guard lock(mutex_);
    generations_.emplace(pod.metadata.uid + "/" + std::to_string(pod.metadata.generation),
                         Clock::now());
    changed_.notify_all();
  }
  Clock::time_point wait_for(std::map<std::string, Clock::time_point>& map,
                             const std::string& key) {
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, 30s, [&] { return map.contains(key); })) {
      throw std::runtime_error("no watch event for " + key);
    }
    return map.at(key);
  }

  kube::cache::Informer<kube::Pod> informer_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::string, Clock::time_point> generations_, deleted_;
};

struct Bench {
  Bench(kube::RestClient& client, node::cri::RuntimeService& cri, PodWatch& watch)
      : client(client), cri(cri), watch(watch) {}

  kube::ObjectRef ref(const std::string& name, std::string subresource = "") {
    return kube::ObjectRef{kube::resources::kPods, "default", name, std::move(subresource)};
  }

  kube::Pod create(const std::string& name, const std::string& cpu) {
    const bj::object amounts{{"cpu", cpu}, {"memory", "64Mi"}};
    const bj::object pod{{"apiVersion", "v1"},
                         {"kind", "Pod"},
                         {"metadata", {{"name", name}}},
                         {"spec",
                          {{"nodeName", "bench-node"},
                           {"terminationGracePeriodSeconds", 1},
                           {"containers",
                            {{{"name", "c"},
                              {"image", "busybox"},
                              {"command", {"sleep", "3600"}},
                              {"resources", {{"requests", amounts}, {"limits", amounts}}}}}}}}};
    client.create(ref(""), bj::serialize(pod));
    kube::Pod out;
    wait_until("pod " + name + " runs", 60s, [&] {
      out = kube::decode_pod(client.get(ref(name)));
      return !out.status.container_statuses.empty() &&
             out.status.container_statuses[0].state.running.has_value() &&
             out.status.container_statuses[0].resources.has_value();
    });
    return out;
  }

  // PATCH pods/{name}/resize; returns the new generation.
  std::int64_t resize(const std::string& name, const std::string& cpu) {
    const kube::ResourceList list{{"cpu", kube::Quantity::parse(cpu)},
                                  {"memory", kube::Quantity::parse("64Mi")}};
    kube::ResizePatch patch;
    patch.containers.push_back({"c", {.limits = list, .requests = list}});
    return kube::decode_pod(client.patch(ref(name, "resize"), kube::PatchType::StrategicMerge,
                                         kube::resize_patch(patch)))
        .metadata.generation;
  }

  // Polls the container's cpu.cfs_quota_us until it holds `quota`: the time it first did, and
  // the time the agent's checkpoint file was first replaced (a new inode after its rename).
  struct Reached {
    Clock::time_point applied, checkpointed;
  };
  Reached quota_reached(const fs::path& file, std::int64_t quota) const {
    const auto deadline = Clock::now() + 60s;
    const ino_t before = checkpoint_inode();
    std::optional<Clock::time_point> checkpointed;
    for (;;) {
      std::ifstream in(file);
      std::int64_t value = 0;
      in >> value;
      const auto now = Clock::now();
      if (!checkpointed && checkpoint_inode() != before) checkpointed = now;
      if (value == quota) return {now, checkpointed.value_or(now)};
      if (now > deadline)
        throw std::runtime_error(file.string() + " never held " + std::to_string(quota));
      std::this_thread::sleep_for(100us);
    }
  }
  ino_t checkpoint_inode() const {
    struct stat st {};
    return ::stat(checkpoint_file.c_str(), &st) == 0 ? st.st_ino : 0;
  }

  // The agent reports it done: no resize condition, actual = spec.
  void wait_done(const std::string& name, const std::string& cpu) {
    wait_until("the agent reports the resize of " + name + " done", 30s, [&] {
      const auto pod = watch.get(name);
      if (!pod || kube::find_condition(pod->status, kube::kPodResizeInProgress) ||
          kube::find_condition(pod->status, kube::kPodResizePending) ||
          pod->status.container_statuses.empty())
        return false;
      const auto& actual = pod->status.container_statuses[0].resources;
      return actual && actual->limits.at("cpu") == kube::Quantity::parse(cpu);
    });
  }

  // A raw CRI UpdateContainerResources on the container (quota − 1000 µs, then back, so the
  // agent's allocation holds again): the call → its cgroup file holding the value, and → the
  // call's return.
  void raw_cri_update(const std::string& id, const fs::path& file) {
    const node::cri::LinuxResources current = *cri.container_status(id).resources;
    node::cri::LinuxResources changed = current;
    changed.cpu_quota -= 1000;  // a rise above the pod's quota is refused (v1)
    const auto start = Clock::now();
    auto call = std::async(std::launch::async, [&] {
      cri.update_container_resources(id, changed);
      return Clock::now();
    });
    const Clock::time_point visible = quota_reached(file, changed.cpu_quota).applied;
    const Clock::time_point returned = call.get();
    cri_visible.push_back(ms(visible - start));
    cri_calls.push_back(ms(returned - start));
    cri.update_container_resources(id, current);
  }

  // The agent's atomic checkpoint write, timed on a scratch copy in the same file system.
  void checkpoint_write() {
    const fs::path dir = checkpoint_file.parent_path().parent_path() / "scratch";
    fs::create_directories(dir);
    const node::allocation::CheckpointStore scratch(dir);
    const node::allocation::Checkpoint checkpoint =
        *node::allocation::CheckpointStore(checkpoint_file.parent_path()).load();
    const auto start = Clock::now();
    scratch.save(checkpoint);
    checkpoint_writes.push_back(ms(Clock::now() - start));
  }

  kube::RestClient& client;
  node::cri::RuntimeService& cri;
  PodWatch& watch;
  fs::path checkpoint_file;
  std::vector<double> watch_delay, agent, to_checkpoint, checkpoint_to_cgroup, end_to_end;
  std::vector<double> deferred, deferred_to_checkpoint;
  std::vector<double> cri_visible, cri_calls, checkpoint_writes;
};

std::int64_t quota_of(const std::string& cpu) {
  return kube::Quantity::parse(cpu).milli_value() * 100;
}

fs::path quota_file(const kube::Pod& pod) {
  std::string id = pod.status.container_statuses.at(0).container_id;
  id = id.substr(id.find("://") + 3);
  return fs::path("/sys/fs/cgroup/cpu") /
         node::cri::container_cgroup_path(
             node::allocation::pod_cgroup_path_of(pod, node::cri::CgroupDriver::Cgroupfs), id,
             node::cri::CgroupDriver::Cgroupfs)
             .substr(1) /
         "cpu.cfs_quota_us";
}

std::string container_id(const kube::Pod& pod) {
  const std::string id = pod.status.container_statuses.at(0).container_id;
  return id.substr(id.find("://") + 3);
}

void resizes(Bench& b, int count) {
  const kube::Pod pod = b.create("bench", "200m");
  const fs::path file = quota_file(pod);
  const std::string id = container_id(pod);
  for (int i = 0; i < count; ++i) {
    const std::string cpu = i % 2 == 0 ? "300m" : "200m";
    const std::int64_t generation = b.resize("bench", cpu);
    const auto answered = Clock::now();
    const auto [applied, checkpointed] = b.quota_reached(file, quota_of(cpu));
    const auto seen = b.watch.generation_seen(pod.metadata.uid, generation);
    b.watch_delay.push_back(ms(seen - answered));
    b.agent.push_back(ms(applied - seen));
    b.to_checkpoint.push_back(ms(checkpointed - seen));
    b.checkpoint_to_cgroup.push_back(ms(applied - checkpointed));
    b.end_to_end.push_back(ms(applied - answered));
    b.wait_done("bench", cpu);
    std::this_thread::sleep_for(200ms);  // the agent's follow-up status writes settle
    b.raw_cri_update(id, file);
    b.checkpoint_write();
  }
}

// "bench" at 200m; a 1200m pod makes its resize to 1 CPU Deferred (allocatable 2); deleting
// that pod frees the capacity.
void deferred_resizes(Bench& b, int count) {
  const kube::Pod pod = kube::decode_pod(b.client.get(b.ref("bench")));
  const fs::path file = quota_file(pod);
  const std::string id = container_id(pod);
  for (int i = 0; i < count; ++i) {
    const kube::Pod filler = b.create("filler", "1200m");
    b.resize("bench", "1");
    wait_until("the resize is Deferred", 30s, [&] {
      const auto p = b.watch.get("bench");
      const kube::PodCondition* c =
          p ? kube::find_condition(p->status, kube::kPodResizePending) : nullptr;
      return c && c->reason == "Deferred";
    });
    b.client.remove(b.ref("filler"));
    const auto [applied, checkpointed] = b.quota_reached(file, quota_of("1"));
    const auto freed = b.watch.deletion_seen(filler.metadata.uid);
    b.deferred.push_back(ms(applied - freed));
    b.deferred_to_checkpoint.push_back(ms(checkpointed - freed));
    b.wait_done("bench", "1");
    b.resize("bench", "200m");
    b.quota_reached(file, quota_of("200m"));
    b.wait_done("bench", "200m");
    std::this_thread::sleep_for(200ms);
  }
}

void print_agent_metrics(const std::string& url) {
  const std::string text = run("curl -s " + url + "/metrics");
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("tailor_node_cri_operation_duration_seconds_sum", 0) == 0 ||
        line.rfind("tailor_node_cri_operation_duration_seconds_count", 0) == 0 ||
        line.rfind("tailor_node_pod_resize_duration_milliseconds_sum", 0) == 0 ||
        line.rfind("tailor_node_pod_resize_duration_milliseconds_count", 0) == 0) {
      std::cout << "  " << line << "\n";
    }
  }
}

int run_bench(int count, int deferred_count) {
  if (::geteuid() != 0) throw std::runtime_error("must run as root (containerd)");
  char tmpl[] = "/tmp/tailor-bench-agent-XXXXXX";
  const fs::path dir = ::mkdtemp(tmpl);
  {
    Containerd containerd(dir / "containerd");
    embedded::ClusterOptions options;
    options.control_loops = false;
    embedded::Cluster cluster(options);
    cluster.start();
    cluster.write_kubeconfig((dir / "kubeconfig").string());
    kube::RestClient client(kube::RestConfig{.server = cluster.url(),
                                             .ca_pem = cluster.ca_pem(),
                                             .bearer_token = cluster.token(),
                                             .qps = 0});
    auto cri = node::cri::connect_runtime_service({containerd.socket(), 10s, 60s});
    Agent agent(dir, (dir / "kubeconfig").string(), containerd.socket());
    PodWatch watch(client);
    Bench b(client, *cri, watch);
    b.checkpoint_file = dir / "checkpoint" / "allocation_checkpoint";
    resizes(b, count);
    deferred_resizes(b, deferred_count);
    std::printf("one-container pod, CPU limit 200m <-> 300m, %d resizes:\n", count);
    print("resize PATCH answered -> watch event", b.watch_delay);
    print("watch event -> cgroup holds the new quota (agent)", b.agent);
    print("  of which: watch event -> checkpoint renamed", b.to_checkpoint);
    print("  of which: checkpoint renamed -> cgroup holds the quota", b.checkpoint_to_cgroup);
    print("resize PATCH answered -> cgroup holds the new quota", b.end_to_end);
    std::printf("Deferred resize to 1 CPU, %d times:\n", deferred_count);
    print("other pod's DELETED event -> cgroup holds the resize", b.deferred);
    print("  of which: DELETED event -> first checkpoint rename", b.deferred_to_checkpoint);
    std::printf("beside them, in the same run (after each resize above):\n");
    print("raw CRI UpdateContainerResources -> cgroup holds it", b.cri_visible);
    print("raw CRI UpdateContainerResources -> call returns", b.cri_calls);
    print("checkpoint write (fsync, rename, dir fsync)", b.checkpoint_writes);
    std::printf("the agent's own metrics:\n");
    print_agent_metrics(agent.metrics_url());
    client.remove(b.ref("bench"));
    wait_until("bench is deleted", 30s, [&] { return !watch.get("bench"); });
  }
  fs::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace tailor::bench

int main(int argc, char** argv) {
  try {
    return tailor::bench::run_bench(argc > 1 ? std::atoi(argv[1]) : 60,
                                    argc > 2 ? std::atoi(argv[2]) : 20);
  } catch (const std::exception& e) {
    std::cerr << "bench_node_agent_latency: " << e.what() << "\n";
    return 1;
  }
}
