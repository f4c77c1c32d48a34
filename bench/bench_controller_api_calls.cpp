// API requests per in-place resize (issue 6). A tailor-cluster with control loops and two
// simulated nodes (its scheduler and simulated kubelet run the pods and carry out resizes), a
// Deployment of R replicas under one VerticalScalingPolicy, and the controller in process,
// talking to the cluster through a counting proxy (plain HTTP in front of the cluster's HTTPS).
// Counted from the pass that resizes until the pass that sees every resize done: each request by
// verb and resource, and the watch events the informers received meanwhile.
// Usage: bench_controller_api_calls [replicas=20]
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "controller/app/controller.h"
#include "embedded/server/cluster.h"
#include "kube/client/config.h"
#include "kube/client/rest_client.h"
#include "kube/http/client.h"
#include "kube/http/server.h"
#include "kube/model/decode.h"
#include "policy/resources.h"

namespace bj = boost::json;
using namespace tailor;
using namespace tailor::embedded;

namespace {

// "PATCH pods/resize", "POST events", "GET configmaps", "WATCH pods" ...: the verb and the
// resource (with its subresource) of a request path.
std::string request_kind(const kube::http::ServerRequest& r) {
  std::vector<std::string> parts;
  for (std::size_t at = 1; at <= r.path.size();) {
    std::size_t slash = r.path.find('/', at);
    if (slash == std::string::npos) slash = r.path.size();
    parts.push_back(r.path.substr(at, slash - at));
    at = slash + 1;
  }
  // /api/v1/... or /apis/<group>/<version>/...
  std::size_t i = !parts.empty() && parts[0] == "api" ? 2 : 3;
  if (i < parts.size() && parts[i] == "namespaces" && i + 2 < parts.size()) i += 2;
  std::string resource = i < parts.size() ? parts[i] : r.path;
  if (i + 2 < parts.size()) resource += "/" + parts[i + 2];
  std::string verb = r.query_param("watch") == std::optional<std::string>("true")
                         ? "WATCH"
                         : (r.method == "GET" && i + 1 >= parts.size() ? "LIST" : r.method);
  return verb + " " + resource;
}

// Forwards every request to the cluster and counts them; watches are streamed through.
class CountingProxy {
 public:
  explicit CountingProxy(const Cluster& cluster)
      : options_{.base_url = cluster.url(), .tls = {.ca_pem = cluster.ca_pem()}},
        server_({}, [this](kube::http::Exchange& e) { forward(e); }) {
    server_.start();
  }
  ~CountingProxy() { server_.stop(); }

  std::string url() const { return server_.url(); }

  std::map<std::string, long> counts() const {
    std::lock_guard lock(mu_);
    return counts_;
  }
  long watch_events() const {
    std::lock_guard lock(mu_);
    return watch_events_;
  }

 private:
  void forward(kube::http::Exchange& e) {
    const kube::http::ServerRequest& in = e.request();
    std::string kind = request_kind(in);
    {
      std::lock_guard lock(mu_);
      ++counts_[kind];
    }
    kube::http::ClientRequest out{.method = in.method, .target = in.target, .body = in.body};
    for (const char* h : {"Authorization", "Content-Type", "Accept", "User-Agent"}) {
      if (auto v = in.header(h); !v.empty()) out.headers.emplace_back(h, std::string(v));
    }
    if (kind.rfind("WATCH", 0) != 0) {
      kube::http::ClientResponse r = upstream().send(out);
      kube::http::Headers headers;
      if (auto t = r.header("Content-Type"); !t.empty()) headers.emplace_back("Content-Type", t);
      e.respond({.status = r.status, .headers = headers, .body = std::move(r.body)});
      return;
    }
    bool started = false;
    upstream().stream(
        out,
        [&](std::string_view piece) {
          if (!started) e.start_stream(200, {{"Content-Type", "application/json"}});
          started = true;
          long lines = std::count(piece.begin(), piece.end(), '\n');
          {
            std::lock_guard lock(mu_);
            watch_events_ += lines;
          }
          return e.write(piece);
        },
        [&] { return e.closed(); });
    if (started) e.finish();
  }

  // One client per handler thread (the server runs a thread per connection).
  kube::http::Client& upstream() {
    thread_local std::map<const CountingProxy*, std::unique_ptr<kube::http::Client>> clients;
    auto& c = clients[this];
    if (!c) c = std::make_unique<kube::http::Client>(options_);
    return *c;
  }

  kube::http::ClientOptions options_;
  kube::http::Server server_;
  mutable std::mutex mu_;
  std::map<std::string, long> counts_;
  long watch_events_ = 0;
};

constexpr const char* kNodes = R"(nodes:
- name: node-1
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
- name: node-2
  capacity: {cpu: "16", memory: 64Gi, pods: "110"}
)";

std::string deployment_json(int replicas) {
  return R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default"},
 "spec":{"replicas":)" +
         std::to_string(replicas) + R"(,"selector":{"matchLabels":{"app":"web"}},
  "template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app","image":"busybox",
   "resources":{"requests":{"cpu":"100m","memory":"128Mi"},"limits":{"cpu":"200m","memory":"256Mi"}}}]}}}})";
}

constexpr const char* kPolicy = R"({"apiVersion":"autoscaling.tailor.dev/v1alpha1",
 "kind":"VerticalScalingPolicy","metadata":{"name":"web","namespace":"default"},
 "spec":{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},
  "updatePolicy":{"mode":"InPlaceOrRecreate"}}})";

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

// Pods of the Deployment that run with what their spec asks (no resize pending or in progress).
int settled_pods(kube::RestClient& client, int* running) {
  bj::value list = bj::parse(client.list({kube::resources::kPods, "default"}));
  int settled = 0;
  *running = 0;
  for (const bj::value& item : list.at("items").as_array()) {
    kube::Pod pod = kube::decode<kube::Pod>(bj::serialize(item));
    if (pod.status.phase != "Running" || pod.status.container_statuses.empty()) continue;
    ++*running;
    const kube::ContainerStatus& s = pod.status.container_statuses[0];
    if (s.resources && s.resources->requests == pod.spec.containers[0].resources.requests) {
      ++settled;
    }
  }
  return settled;
}

template <class Check>
bool wait_until(Check check, std::chrono::seconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (check()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return false;
}

void feed_usage(controller::Controller& c, kube::RestClient& client) {
  bj::value list = bj::parse(client.list({kube::resources::kPods, "default"}));
  auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
                 .count();
  for (const bj::value& item : list.at("items").as_array()) {
    std::string name(item.at("metadata").at("name").as_string());
    for (std::int64_t end = now - 3600 * 1000; end <= now; end += 60'000) {
      c.on_usage({.node = "node-1",
                  .ns = "default",
                  .pod = name,
                  .container = "app",
                  .start_unix_ms = end - 60'000,
                  .end_unix_ms = end,
                  .samples = 12,
                  .cpu_cores_mean = 0.5,
                  .cpu_cores_max = 0.6,
                  .memory_working_set_max_bytes = 300.0 * 1024 * 1024,
                  .memory_peak_bytes = 300.0 * 1024 * 1024});
    }
  }
}

void print_delta(const std::map<std::string, long>& before,
                 const std::map<std::string, long>& after, long resizes) {
  long total = 0, writes = 0;
  for (const auto& [kind, n] : after) {
    auto it = before.find(kind);
    long d = n - (it == before.end() ? 0 : it->second);
    if (d == 0) continue;
    std::printf("  %-45s %4ld  (%.2f per resize)\n", kind.c_str(), d,
                static_cast<double>(d) / resizes);
    total += d;
    if (kind.rfind("GET", 0) != 0 && kind.rfind("LIST", 0) != 0 && kind.rfind("WATCH", 0) != 0) {
      writes += d;
    }
  }
  std::printf("  total %ld requests (%ld writes) for %ld resizes: %.2f requests per resize\n",
              total, writes, resizes, static_cast<double>(total) / resizes);
}

int run(int replicas) {
  std::string dir = std::filesystem::temp_directory_path() /
                    ("tailor-bench-api-calls-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/nodes.yaml") << kNodes;
  Cluster cluster(ClusterOptions{.nodes_file = dir + "/nodes.yaml"});
  cluster.start();
  cluster.write_kubeconfig(dir + "/kubeconfig");
  install_crd(dir + "/kubeconfig");
  CountingProxy proxy(cluster);

  kube::RestConfig config = kube::load_kubeconfig(dir + "/kubeconfig");
  kube::RestClient direct(config);  // the bench's own reads, not counted
  direct.create({kube::resources::kDeployments, "default"}, deployment_json(replicas));
  direct.create({policy::resources::kVerticalScalingPolicies, "default"}, kPolicy);
  int running = 0;
  if (!wait_until([&] { return settled_pods(direct, &running) == replicas; },
                  std::chrono::seconds(60))) {
    throw std::runtime_error("the Deployment's pods did not come up");
  }

  config.server = proxy.url();
  config.ca_pem.clear();
  kube::RestClient counted(config);
  controller::ControllerOptions options;
  options.view.watch_vpa = false;
  options.update_burst = replicas;  // every pod in one pass
  options.updates_per_second = replicas;
  controller::Controller c(counted, options);
  c.start();
  if (!c.wait_for_sync(std::chrono::seconds(30))) throw std::runtime_error("no sync");
  c.load_state();
  auto now = [] { return kube::TimePoint(std::chrono::system_clock::now()); };
  c.run_pass(now());  // learns the pods' policy
  feed_usage(c, direct);
  std::printf("before the resizing pass (sync, state, first pass):\n");
  print_delta({}, proxy.counts(), 1);

  auto before = proxy.counts();
  long events_before = proxy.watch_events();
  std::size_t actions = c.run_pass(now());
  long resizes = static_cast<long>(c.stats().resizes);
  bool done = wait_until([&] { return settled_pods(direct, &running) == replicas; },
                         std::chrono::seconds(60));
  std::this_thread::sleep_for(std::chrono::seconds(1));  // informers catch up
  std::size_t after_actions = c.run_pass(now());
  std::printf(
      "resizing pass: %zu actions, %ld resizes accepted; all done: %s; next pass: %zu actions\n",
      actions, resizes, done ? "yes" : "NO", after_actions);
  std::printf("requests from the resizing pass to the pass after completion:\n");
  print_delta(before, proxy.counts(), std::max(1L, resizes));
  std::printf("  watch events received meanwhile: %ld (%.2f per resize)\n",
              proxy.watch_events() - events_before,
              static_cast<double>(proxy.watch_events() - events_before) / std::max(1L, resizes));
  c.stop();
  cluster.stop();
  std::filesystem::remove_all(dir);
  return done && resizes == replicas ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  try {
    return run(argc > 1 ? std::atoi(argv[1]) : 20);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_controller_api_calls: %s\n", e.what());
    return 1;
  }
}
