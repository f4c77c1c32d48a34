// tailor-controller at scale (issue 6): a tailor-cluster holding P VerticalScalingPolicy objects,
// each targeting its own Deployment (Deployment -> ReplicaSet -> N pods, owner references with
// the stored uids), pods from bench/pod_list_generator (realistic 12 KB pods with 2-4 containers,
// Running on 500 simulated nodes; no containers). The controller runs in a child process (this
// binary with --controller) so that its RSS and CPU time are its own: it syncs its informers,
// runs a pass, is fed usage windows for every container, then runs more passes; last, its
// /metrics text is rendered once (the per-workload series' count and size, issue 19).
// With scrapes > 0, that many more renders follow, each on a thread of its own as the HTTP server
// serves a connection, and the RSS after them is reported (what malloc_trim after a scrape keeps).
// Usage: bench_controller_scale [policies=10000] [pods_per_policy=10] [rounds=8] [scrapes=0]
//        bench_controller_scale --pod-heap   (heap per pod as the pod informer keeps it)
#include <malloc.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench/pod_list_generator.h"
#include "controller/app/compact_pod.h"
#include "controller/app/controller.h"
#include "controller/app/malloc_arenas.h"
#include "embedded/api/resources.h"
#include "embedded/server/cluster.h"
#include "kube/client/config.h"
#include "kube/client/rest_client.h"
#include "kube/client/store_meta.h"
#include "kube/model/decode.h"
#include "kube/observe/metrics.h"
#include "policy/resources.h"

namespace bj = boost::json;
using namespace tailor;
using namespace tailor::embedded;
using Clock = std::chrono::steady_clock;

extern char** environ;

namespace {

long rss_mib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::atol(line.c_str() + 6) / 1024;
  }
  return 0;
}

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto s = [](timeval t) { return t.tv_sec + t.tv_usec / 1e6; };
  return s(u.ru_utime) + s(u.ru_stime);
}

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

const ResourceInfo& resource(const char* group, const char* name) {
  const ResourceInfo* r = find_resource(group, "v1", name);
  if (!r) throw std::runtime_error(std::string("tailor-cluster does not serve ") + name);
  return *r;
}

// ---------------------------------------------------------------- the cluster (parent)

std::vector<bj::object> pod_templates() {
  bj::value list = bj::parse(bench::generate_pod_list({.pods = 1000}));
  std::vector<bj::object> pods;
  for (bj::value& item : list.at("items").as_array()) {
    bj::object pod = std::move(item.as_object());
    bj::object& meta = pod["metadata"].as_object();
    meta.erase("uid");
    meta.erase("resourceVersion");
    meta.erase("creationTimestamp");
    pods.push_back(std::move(pod));
  }
  return pods;
}

std::string uid_of(const ObjectPtr& o) {
  return std::string(o->at("metadata").at("uid").as_string());
}

bj::object owner_ref(const char* kind, const std::string& name, const std::string& uid) {
  return {{"apiVersion", "apps/v1"},
          {"kind", kind},
          {"name", name},
          {"uid", uid},
          {"controller", true},
          {"blockOwnerDeletion", true}};
}

void create_namespaces(ObjectStore& store, const std::vector<bj::object>& pods) {
  const ResourceInfo& namespaces = resource("", "namespaces");
  for (const bj::object& pod : pods) {
    std::string ns(pod.at("metadata").at("namespace").as_string());
    try {
      store.get(namespaces, "", ns);
      continue;
    } catch (const std::exception&) {  // not found: create it
    }
    store.create(namespaces, bj::object{{"apiVersion", "v1"},
                                        {"kind", "Namespace"},
                                        {"metadata", bj::object{{"name", ns}}}});
  }
}

// The generator places pods on node-0 .. node-499.
void create_nodes(ObjectStore& store) {
  const ResourceInfo& nodes = resource("", "nodes");
  bj::object resources{{"cpu", "32"}, {"memory", "128Gi"}, {"pods", "250"}};
  for (int i = 0; i < 500; ++i) {
    store.create(
        nodes, bj::object{{"apiVersion", "v1"},
                          {"kind", "Node"},
                          {"metadata", bj::object{{"name", "node-" + std::to_string(i)}}},
                          {"status",
                           bj::object{{"capacity", resources},
                                      {"allocatable", resources},
                                      {"conditions", bj::array{bj::object{{"type", "Ready"},
                                                                          {"status", "True"}}}}}}});
  }
}

// Pod <j> of workload <i> from its template: named after, labelled as and owned by ReplicaSet
// app-<i>-h<1000000+i> (rs_uid).
bj::object replica_pod(const bj::object& tmpl, int i, int j, const std::string& rs_uid) {
  const std::string app = "app-" + std::to_string(i);
  const std::string hash = "h" + std::to_string(1000000 + i);
  bj::object pod = tmpl;
  bj::object& meta = pod["metadata"].as_object();
  meta["name"] = app + "-" + hash + "-" + std::to_string(j);
  meta["labels"].as_object()["app"] = app;
  meta["labels"].as_object()["pod-template-hash"] = hash;
  meta["ownerReferences"] = bj::array{owner_ref("ReplicaSet", app + "-" + hash, rs_uid)};
  return pod;
}

// Deployment app-<i> -> ReplicaSet app-<i>-<hash> -> pods, all from one pod template (the pods of
// one workload share their containers, as a real ReplicaSet's do).
void create_workload(ObjectStore& store, int i, const bj::object& tmpl, int pods) {
  static const ResourceInfo& deployments = resource("apps", "deployments");
  static const ResourceInfo& replicasets = resource("apps", "replicasets");
  static const ResourceInfo& pod_info = resource("", "pods");
  std::string ns(tmpl.at("metadata").at("namespace").as_string());
  std::string name = "app-" + std::to_string(i);
  std::string hash = "h" + std::to_string(1000000 + i);
  bj::object labels{{"app", name}};
  bj::object selector{{"matchLabels", labels}};
  bj::object template_spec{{"metadata", bj::object{{"labels", labels}}}, {"spec", tmpl.at("spec")}};
  ObjectPtr deployment = store.create(
      deployments, bj::object{{"apiVersion", "apps/v1"},
                              {"kind", "Deployment"},
                              {"metadata", bj::object{{"name", name}, {"namespace", ns}}},
                              {"spec", bj::object{{"replicas", pods},
                                                  {"selector", selector},
                                                  {"template", template_spec}}}});
  bj::object rs_labels = labels;
  rs_labels["pod-template-hash"] = hash;
  ObjectPtr rs = store.create(
      replicasets,
      bj::object{
          {"apiVersion", "apps/v1"},
          {"kind", "ReplicaSet"},
          {"metadata", bj::object{{"name", name + "-" + hash},
                                  {"namespace", ns},
                                  {"labels", rs_labels},
                                  {"ownerReferences",
                                   bj::array{owner_ref("Deployment", name, uid_of(deployment))}}}},
          {"spec", bj::object{{"replicas", pods}, {"selector", selector}}}});
  for (int j = 0; j < pods; ++j) {
    bj::object pod = replica_pod(tmpl, i, j, uid_of(rs));
    pod["metadata"].as_object()["generateName"] = name + "-" + hash + "-";
    store.create(pod_info, std::move(pod));
  }
}

std::string policy_json(const std::string& ns, const std::string& name) {
  return bj::serialize(bj::object{
      {"apiVersion", "autoscaling.tailor.dev/v1alpha1"},
      {"kind", "VerticalScalingPolicy"},
      {"metadata", bj::object{{"name", name}, {"namespace", ns}}},
      {"spec",
       bj::object{{"targetRef",
                   bj::object{{"apiVersion", "apps/v1"}, {"kind", "Deployment"}, {"name", name}}},
                  {"updatePolicy", bj::object{{"mode", "InPlaceOrRecreate"}}}}}});
}

// Policies go through the API (CRD schema defaults and validation apply), from 4 threads.
void create_policies(const std::string& kubeconfig, const std::vector<std::string>& namespaces) {
  std::vector<std::thread> threads;
  const int n = static_cast<int>(namespaces.size());
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      kube::RestConfig config = kube::load_kubeconfig(kubeconfig);
      config.qps = 0;
      kube::RestClient client(config);
      for (int i = t; i < n; i += 4) {
        client.create({policy::resources::kVerticalScalingPolicies, namespaces[i]},
                      policy_json(namespaces[i], "app-" + std::to_string(i)));
      }
    });
  }
  for (std::thread& t : threads) t.join();
}

void install_crd(const std::string& kubeconfig) {
  std::string k = "kubectl --kubeconfig " + kubeconfig;
  std::string apply = k + " apply -f " TAILOR_SOURCE_DIR "/charts/tailor/crds >/dev/null";
  std::string wait = k +
                     " wait --for=condition=Established --timeout=30s "
                     "crd --all >/dev/null";
  if (std::system(apply.c_str()) != 0 || std::system(wait.c_str()) != 0) {
    throw std::runtime_error("kubectl could not install the chart's CRDs");
  }
}

int run_child(const char* self, const std::string& kubeconfig, int rounds, int scrapes) {
  std::string r = std::to_string(rounds), n = std::to_string(scrapes);
  std::vector<char*> args{const_cast<char*>(self),
                          const_cast<char*>("--controller"),
                          const_cast<char*>(kubeconfig.c_str()),
                          r.data(),
                          n.data(),
                          nullptr};
  pid_t pid = 0;
  if (posix_spawn(&pid, self, nullptr, nullptr, args.data(), environ) != 0) {
    throw std::runtime_error("cannot start the controller process");
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int run_cluster(const char* self, int policies, int pods_per_policy, int rounds, int scrapes) {
  Cluster cluster(ClusterOptions{.control_loops = false});
  cluster.start();
  std::string dir = std::filesystem::temp_directory_path() /
                    ("tailor-bench-controller-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string kubeconfig = dir + "/kubeconfig";
  cluster.write_kubeconfig(kubeconfig);
  install_crd(kubeconfig);

  auto start = Clock::now();
  const std::vector<bj::object> templates = pod_templates();
  create_namespaces(cluster.store(), templates);
  create_nodes(cluster.store());
  std::vector<std::string> namespaces;
  for (int i = 0; i < policies; ++i) {
    const bj::object& tmpl = templates[i % templates.size()];
    create_workload(cluster.store(), i, tmpl, pods_per_policy);
    namespaces.emplace_back(tmpl.at("metadata").at("namespace").as_string());
  }
  double workloads = seconds_since(start);
  start = Clock::now();
  create_policies(kubeconfig, namespaces);
  std::printf(
      "cluster: %d Deployments + ReplicaSets, %d pods (store) in %.1f s; %d policies (HTTPS "
      "POST, 4 threads) in %.1f s; cluster RSS %ld MiB\n",
      policies, policies * pods_per_policy, workloads, policies, seconds_since(start), rss_mib());
  int code = run_child(self, kubeconfig, rounds, scrapes);
  cluster.stop();
  std::filesystem::remove_all(dir);
  return code;
}

// ---------------------------------------------------------------- the controller (child)

// RSS next to the heap bytes malloc has handed out and not had back (the rest of the heap's
// share of RSS is freed memory malloc keeps).
void report(const char* what, double wall, double cpu) {
  struct mallinfo2 heap = mallinfo2();
  std::printf("controller: %-34s %8.2f s wall %8.2f s CPU   RSS %5ld MiB (heap in use %5zu MiB)\n",
              what, wall, cpu, rss_mib(), (heap.uordblks + heap.hblkhd) >> 20);
}

// One usage window for every container of every pod the controller knows: CPU at 30-130 % of
// the request, memory at 40-100 % (by container, so each policy's containers differ).
std::size_t feed_round(controller::Controller& c, std::int64_t end_ms, int round) {
  // Only the pods are held while feeding: an agent's stream holds no snapshot, and the rest of
  // one (10,000 policies copied) alive among the models' allocations would pin their pages.
  const auto pods = c.view().snapshot(kube::TimePoint(std::chrono::system_clock::now())).pods;
  std::size_t windows = 0;
  for (const auto& pod : pods) {
    int k = 0;
    for (const kube::Container& container : pod->containers()) {
      double cpu = 0.1, memory = 64.0 * 1024 * 1024;
      const kube::ResourceList& requests = container.resources.requests;
      if (requests.contains("cpu")) cpu = requests.at("cpu").as_double();
      if (requests.contains("memory")) memory = requests.at("memory").as_double();
      double f = 0.3 + 0.1 * ((k + round) % 11);
      // No node: the controller does not read it (its pods do not keep their node name).
      c.on_usage({.ns = pod->namespace_(),
                  .pod = pod->name,
                  .pod_uid = pod->uid,
                  .container = container.name,
                  .start_unix_ms = end_ms - 15000,
                  .end_unix_ms = end_ms,
                  .samples = 3,
                  .cpu_cores_mean = cpu * f,
                  .cpu_cores_max = cpu * f * 1.2,
                  .memory_working_set_max_bytes = memory * (0.4 + 0.06 * (k % 11)),
                  .memory_peak_bytes = memory * (0.4 + 0.06 * (k % 11))});
      ++windows;
      ++k;
    }
  }
  return windows;
}

// What a scrape of /metrics costs at this scale: the per-workload series (issue 19) and the
// whole exposition's size, and the time and CPU to render it.
void report_scrape() {
  auto start = Clock::now();
  double cpu = cpu_seconds();
  const std::string text = kube::metrics::registry().serialize();
  const double wall = seconds_since(start), used = cpu_seconds() - cpu;
  std::size_t workload_series = 0, workload_bytes = 0, all_series = 0, containers = 0;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (text[at] != '#') {
      ++all_series;
      if (text.compare(at, 16, "tailor_workload_") == 0) {
        ++workload_series;
        if (text.compare(at, 21, "tailor_workload_pods{") == 0) ++containers;
        workload_bytes += end - at + 1;
      }
    }
    at = end + 1;
  }
  std::printf(
      "scrape:     %zu workload containers; %zu tailor_workload_* series (%.1f MiB) of %zu "
      "series, %.1f MiB in all; rendered in %.2f s wall %.2f s CPU\n",
      containers, workload_series, workload_bytes / 1048576.0, all_series, text.size() / 1048576.0,
      wall, used);
}

void timed_pass(controller::Controller& c, const char* label) {
  controller::ControllerStats before = c.stats();
  auto start = Clock::now();
  double cpu = cpu_seconds();
  std::size_t actions = c.run_pass(kube::TimePoint(std::chrono::system_clock::now()));
  double wall = seconds_since(start);
  controller::ControllerStats after = c.stats();
  report(label, wall, cpu_seconds() - cpu);
  std::printf("            %zu actions (%lu resizes), %lu policy status writes\n", actions,
              static_cast<unsigned long>(after.resizes - before.resizes),
              static_cast<unsigned long>(after.status_updates - before.status_updates));
}

int run_controller(const std::string& kubeconfig, int rounds, int scrapes) {
  kube::RestConfig config = kube::load_kubeconfig(kubeconfig);
  config.qps = 0;  // the first passes write every policy's status; see RESULTS.md
  kube::RestClient client(config);
  controller::ControllerOptions options;
  options.view.watch_vpa = false;
  controller::Controller c(client, options);
  report("started", 0, cpu_seconds());
  auto start = Clock::now();
  double cpu = cpu_seconds();
  c.start();
  if (!c.wait_for_sync(std::chrono::minutes(20))) {
    std::printf("controller: informers did not sync\n");
    return 1;
  }
  report("initial sync (all informers)", seconds_since(start), cpu_seconds() - cpu);
  c.load_state();
  timed_pass(c, "pass 1 (no usage yet)");

  std::int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
  start = Clock::now();
  cpu = cpu_seconds();
  std::size_t windows = 0;
  for (int r = 0; r < rounds; ++r) windows += feed_round(c, now_ms - (rounds - 1 - r) * 15000, r);
  double wall = seconds_since(start);
  report("usage windows fed", wall, cpu_seconds() - cpu);
  std::printf("            %zu windows (%d rounds), %.0f windows/s, %lu matched\n", windows, rounds,
              windows / wall, static_cast<unsigned long>(c.stats().windows));

  timed_pass(c, "pass 2 (first recommendations)");
  for (int p = 3; p <= 5; ++p) {
    std::string label = "pass " + std::to_string(p) + " (steady)";
    timed_pass(c, label.c_str());
  }
  report_scrape();
  report("after the scrape", 0, cpu_seconds());
  if (scrapes > 0) {
    cpu = cpu_seconds();
    long peak = 0;
    for (int i = 0; i < scrapes; ++i) {
      std::thread([] { (void)kube::metrics::registry().serialize(); }).join();
      peak = std::max(peak, rss_mib());
    }
    const std::string label = "after " + std::to_string(scrapes) + " more scrapes";
    report(label.c_str(), 0, cpu_seconds() - cpu);
    std::printf("            RSS after each scrape at most %ld MiB\n", peak);
  }
  c.stop();
  return 0;
}

// ---------------------------------------------------------------- heap per pod (--pod-heap)

std::size_t heap_in_use() {
  struct mallinfo2 heap = mallinfo2();
  return heap.uordblks + heap.hblkhd;
}

// The pods run_cluster creates (1,000 generated templates, 10 replicas each with their own
// name, uid and resourceVersion, the labels and owner of their ReplicaSet), as JSON.
std::vector<std::string> replica_pods() {
  std::vector<std::string> out;
  int i = 0;
  for (const bj::object& tmpl : pod_templates()) {
    for (int j = 0; j < 10; ++j) {
      bj::object pod = replica_pod(tmpl, i, j, "3f1b7c1e-0000-4000-9000-" + std::to_string(i));
      bj::object& meta = pod["metadata"].as_object();
      meta["uid"] = "3f1b7c1e-0000-4000-8000-" + std::to_string(100000000000 + i * 10 + j);
      meta["resourceVersion"] = std::to_string(200000 + i * 10 + j);
      out.push_back(bj::serialize(pod));
    }
    ++i;
  }
  return out;
}

// What the pod informer holds per pod, apart from the store's own key and map node: the
// compacted pod (controller/app/compact_pod) and the store's MetaInfo; a whole decoded
// kube::Pod for comparison.
int measure_pod_heap() {
  const std::vector<std::string> pods = replica_pods();
  const double n = static_cast<double>(pods.size());
  std::size_t start = heap_in_use();
  {
    std::vector<kube::Pod> full;
    full.reserve(pods.size());
    for (const std::string& json : pods) full.push_back(kube::decode<kube::Pod>(json));
    std::printf("kube::Pod, decoded:        %6.0f bytes of heap per pod\n",
                (heap_in_use() - start) / n);
  }
  start = heap_in_use();
  controller::PodInterner interner;
  std::vector<std::shared_ptr<const actuator::PodFacts>> facts;
  facts.reserve(pods.size());
  for (const std::string& json : pods) {
    facts.push_back(std::make_shared<const actuator::PodFacts>(
        interner.compact(kube::decode<kube::Pod>(json))));
  }
  std::printf("PodFacts, interned:        %6.0f bytes of heap per pod (%zu pods, %zu specs)\n",
              (heap_in_use() - start) / n, facts.size(), interner.distinct_specs());
  start = heap_in_use();
  std::vector<kube::cache::MetaInfo> metas;
  metas.reserve(pods.size());
  for (const std::string& json : pods) metas.push_back(kube::cache::parse_meta(json));
  std::printf("store MetaInfo:            %6.0f bytes of heap per pod\n",
              (heap_in_use() - start) / n);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    if (argc > 1 && std::string(argv[1]) == "--pod-heap") return measure_pod_heap();
    if (argc > 2 && std::string(argv[1]) == "--controller") {
      controller::limit_malloc_arenas();  // as tailor-controller's main() does
      return run_controller(argv[2], argc > 3 ? std::atoi(argv[3]) : 8,
                            argc > 4 ? std::atoi(argv[4]) : 0);
    }
    const int policies = argc > 1 ? std::atoi(argv[1]) : 10000;
    const int pods_per_policy = argc > 2 ? std::atoi(argv[2]) : 10;
    const int rounds = argc > 3 ? std::atoi(argv[3]) : 8;
    const int scrapes = argc > 4 ? std::atoi(argv[4]) : 0;
    return run_cluster(argv[0], policies, pods_per_policy, rounds, scrapes);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_controller_scale: %s\n", e.what());
    return 1;
  }
}
