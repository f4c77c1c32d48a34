#include "tests/e2e/e2e_cluster.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "kube/client/config.h"
#include "kube/client/rest_client.h"
#include "kube/http/client.h"
#include "kube/model/quantity.h"
#include "policy/resources.h"
#include "tests/e2e/service_accounts.h"

namespace tailor::e2e {
namespace {

namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kKubectl = "/usr/bin/kubectl";
const fs::path kCgroupRoot = "/sys/fs/cgroup";

// Arguments of `tailor cluster up` after --dir: the two nodes and the short intervals that keep
// the tests quick.
const std::vector<std::string> kUpArgs = {
    "--node-allocatable",
    "cpu=1,memory=1Gi",  // kSmallNode
    "--node-allocatable",
    "cpu=2,memory=6Gi",                     // kBigNode
    "--controller-arg=--pass-interval=2s",  // kPassInterval
    "--controller-arg=--sample-period=2s",  // a model sample per usage report, as before
    "--agent-arg=--usage-sample-interval=1s",
    "--agent-arg=--usage-report-interval=2s",
};

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs a shell command; stdout is returned, stderr goes through a file of its own (so concurrent
// callers do not mix them).
CommandResult run_shell(const std::string& command, const fs::path& scratch) {
  static std::atomic<int> counter{0};
  const fs::path err_file =
      scratch / ("stderr-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + ".txt");
  const std::string cmd = command + " 2>" + err_file.string();
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return {-1, "", "popen failed for: " + command};
  CommandResult r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, p)) r.out.append(buf, n);
  const int status = ::pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = read_text(err_file);
  std::error_code ignored;
  fs::remove(err_file, ignored);
  return r;
}

const bj::object& empty_object() {
  static const bj::object empty;
  return empty;
}

const bj::object& object_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_object() ? v->as_object() : empty_object();
}

std::string string_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  if (!v) return "";
  if (v->is_string()) return std::string(v->as_string());
  if (v->is_int64()) return std::to_string(v->as_int64());
  return "";
}

std::int64_t int_at(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_int64() ? v->as_int64() : 0;
}

const bj::array& array_at(const bj::object& o, std::string_view key) {
  static const bj::array empty;
  const bj::value* v = o.if_contains(key);
  return v && v->is_array() ? v->as_array() : empty;
}

Resources resources_of(const bj::object& o) {
  Resources out;
  for (const auto& [k, v] : o) {
    if (v.is_string()) out[std::string(k)] = std::string(v.as_string());
  }
  return out;
}

std::vector<ConditionView> conditions_of(const bj::array& conditions) {
  std::vector<ConditionView> out;
  for (const bj::value& v : conditions) {
    if (!v.is_object()) continue;
    const bj::object& c = v.as_object();
    out.push_back({string_at(c, "type"), string_at(c, "status"), string_at(c, "reason"),
                   string_at(c, "message")});
  }
  return out;
}

std::string strip_runtime(const std::string& id) {
  const auto at = id.find("://");
  return at == std::string::npos ? id : id.substr(at + 3);
}

PodView pod_view(const bj::object& pod) {
  const bj::object& meta = object_at(pod, "metadata");
  const bj::object& spec = object_at(pod, "spec");
  const bj::object& status = object_at(pod, "status");
  PodView out{.ns = string_at(meta, "namespace"),
              .name = string_at(meta, "name"),
              .uid = string_at(meta, "uid"),
              .node = string_at(spec, "nodeName"),
              .phase = string_at(status, "phase"),
              .qos_class = string_at(status, "qosClass"),
              .generation = int_at(meta, "generation"),
              .deleting = meta.contains("deletionTimestamp")};
  for (const bj::value& v : array_at(spec, "containers")) {
    const bj::object& c = v.as_object();
    const bj::object& r = object_at(c, "resources");
    out.containers.push_back({.name = string_at(c, "name"),
                              .requests = resources_of(object_at(r, "requests")),
                              .limits = resources_of(object_at(r, "limits"))});
  }
  for (const bj::value& v : array_at(status, "containerStatuses")) {
    const bj::object& s = v.as_object();
    for (ContainerView& c : out.containers) {
      if (c.name != string_at(s, "name")) continue;
      c.container_id = strip_runtime(string_at(s, "containerID"));
      c.allocated = resources_of(object_at(s, "allocatedResources"));
      const bj::object& actual = object_at(s, "resources");
      c.actual_requests = resources_of(object_at(actual, "requests"));
      c.actual_limits = resources_of(object_at(actual, "limits"));
      c.restart_count = static_cast<int>(int_at(s, "restartCount"));
      c.running = object_at(s, "state").contains("running");
      const bj::value* last = object_at(s, "lastState").if_contains("terminated");
      c.last_terminated = last && last->is_object();
      c.last_started = c.last_terminated && !string_at(last->as_object(), "startedAt").empty();
    }
  }
  out.conditions = conditions_of(array_at(status, "conditions"));
  return out;
}

PolicyView policy_view(const bj::object& policy, const std::string& mode_field) {
  PolicyView out;
  out.mode = string_at(object_at(object_at(policy, "spec"), "updatePolicy"), mode_field);
  const bj::object& status = object_at(policy, "status");
  out.conditions = conditions_of(array_at(status, "conditions"));
  for (const bj::value& v :
       array_at(object_at(status, "recommendation"), "containerRecommendations")) {
    const bj::object& r = v.as_object();
    out.recommendations.push_back(
        {string_at(r, "containerName"), resources_of(object_at(r, "target")),
         resources_of(object_at(r, "lowerBound")), resources_of(object_at(r, "upperBound")),
         resources_of(object_at(r, "uncappedTarget"))});
  }
  return out;
}

// A VerticalScalingPolicy or VPA object as a PolicyView (their status is the same); nullopt when
// it does not exist.
std::optional<PolicyView> read_policy(const kube::ObjectRef& ref, const std::string& mode_field) {
  try {
    return policy_view(bj::parse(E2eCluster::get().client().get(ref)).as_object(), mode_field);
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

std::string to_string(const Resources& r) {
  std::string out = "{";
  for (const auto& [k, v] : r) out += (out.size() > 1 ? "," : "") + k + ":" + v;
  return out + "}";
}

std::int64_t read_number(const fs::path& file) {
  std::ifstream in(file);
  std::int64_t n = 0;
  if (!(in >> n)) throw std::runtime_error("cannot read a number from " + file.string());
  return n;
}

fs::path test_bin_dir() {
  if (const char* env = std::getenv("TAILOR_BIN_DIR")) return env;
  std::error_code error;
  const fs::path exe = fs::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot read /proc/self/exe: " + error.message());
  return exe.parent_path().parent_path() / "bin";  // build/tests/e2e_tests -> build/bin
}

class Environment : public ::testing::Environment {
 public:
  void SetUp() override { E2eCluster::get_unchecked().up(); }
  void TearDown() override {
    const bool failed = ::testing::UnitTest::GetInstance()->failed_test_count() > 0 ||
                        ::testing::UnitTest::GetInstance()->ad_hoc_test_result().Failed();
    E2eCluster::get_unchecked().down(failed);
  }
};

// gtest_main runs the tests; the environment joins before it starts.
[[maybe_unused]] ::testing::Environment* const kEnvironment =
    ::testing::AddGlobalTestEnvironment(new Environment);

}  // namespace

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ---- views --------------------------------------------------------------------------------

const ContainerView* PodView::container(const std::string& n) const {
  for (const ContainerView& c : containers) {
    if (c.name == n) return &c;
  }
  return nullptr;
}

const ConditionView* PodView::condition(const std::string& type) const {
  for (const ConditionView& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

bool PodView::ready() const {
  const ConditionView* c = condition("Ready");
  return phase == "Running" && !deleting && c && c->status == "True";
}

std::string PodView::summary() const {
  std::ostringstream s;
  s << ns << "/" << name << " uid=" << uid << " node=" << node << " phase=" << phase
    << " gen=" << generation << (deleting ? " deleting" : "");
  for (const ContainerView& c : containers) {
    s << " [" << c.name << " req=" << to_string(c.requests) << " lim=" << to_string(c.limits)
      << " alloc=" << to_string(c.allocated) << " actual=" << to_string(c.actual_requests) << "/"
      << to_string(c.actual_limits) << " restarts=" << c.restart_count << "]";
  }
  for (const ConditionView& c : conditions) {
    if (c.type.rfind("PodResize", 0) == 0) {
      s << " " << c.type << "=" << c.status << "/" << c.reason << " (" << c.message << ")";
    }
  }
  return s.str();
}

const ConditionView* PolicyView::condition(const std::string& type) const {
  for (const ConditionView& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

const ContainerRecommendationView* PolicyView::recommendation(const std::string& c) const {
  for (const ContainerRecommendationView& r : recommendations) {
    if (r.container == c) return &r;
  }
  return nullptr;
}

std::string PolicyView::summary() const {
  std::ostringstream s;
  s << "mode=" << mode;
  for (const ConditionView& c : conditions) {
    s << " " << c.type << "=" << c.status << "(" << c.reason << ": " << c.message << ")";
  }
  for (const ContainerRecommendationView& r : recommendations) {
    s << " [" << r.container << " target=" << to_string(r.target)
      << " lower=" << to_string(r.lower_bound) << " upper=" << to_string(r.upper_bound) << "]";
  }
  return s.str();
}

std::int64_t milli_cpu(const std::string& quantity) {
  return kube::Quantity::parse(quantity).milli_value();
}

std::int64_t bytes(const std::string& quantity) { return kube::Quantity::parse(quantity).value(); }

// ---- cgroups ------------------------------------------------------------------------------

std::string to_string(const CgroupFiles& f) {
  std::ostringstream s;
  s << "{shares=" << f.cpu_shares << " quota=" << f.cpu_quota << " period=" << f.cpu_period
    << " memory=" << f.memory_limit << "}";
  return s.str();
}

std::filesystem::path container_cgroup_dir(const PodView& pod, const std::string& container,
                                           const std::string& controller) {
  const ContainerView* c = pod.container(container);
  if (!c || c->container_id.empty()) {
    throw std::runtime_error("no started container " + container + " in " + pod.summary());
  }
  fs::path relative = "kubepods";
  if (pod.qos_class == "Burstable") relative /= "burstable";
  if (pod.qos_class == "BestEffort") relative /= "besteffort";
  relative /= "pod" + pod.uid;
  relative /= c->container_id;
  return kCgroupRoot / controller / relative;
}

CgroupFiles read_container_cgroup(const PodView& pod, const std::string& container) {
  const fs::path cpu = container_cgroup_dir(pod, container, "cpu");
  const fs::path memory = container_cgroup_dir(pod, container, "memory");
  return {.cpu_shares = read_number(cpu / "cpu.shares"),
          .cpu_quota = read_number(cpu / "cpu.cfs_quota_us"),
          .cpu_period = read_number(cpu / "cpu.cfs_period_us"),
          .memory_limit = read_number(memory / "memory.limit_in_bytes")};
}

std::vector<int> container_processes(const PodView& pod, const std::string& container) {
  const fs::path procs = container_cgroup_dir(pod, container, "cpu") / "cgroup.procs";
  std::ifstream in(procs);
  if (!in) throw std::runtime_error("cannot read " + procs.string());
  std::vector<int> out;
  for (int pid = 0; in >> pid;) out.push_back(pid);
  return out;
}

CgroupFiles expected_container_cgroup(const Resources& requests, const Resources& limits) {
  // The kernel's "no limit" for memory on v1: the largest multiple of the page size.
  constexpr std::int64_t kUnlimited = 0x7FFFFFFFFFFFF000;
  CgroupFiles out{
      .cpu_shares = 2, .cpu_quota = -1, .cpu_period = 100000, .memory_limit = kUnlimited};
  auto cpu_request = requests.find("cpu");
  auto cpu_limit = limits.find("cpu");
  if (cpu_request != requests.end()) {
    out.cpu_shares = std::max<std::int64_t>(2, milli_cpu(cpu_request->second) * 1024 / 1000);
  } else if (cpu_limit != limits.end()) {
    out.cpu_shares = std::max<std::int64_t>(2, milli_cpu(cpu_limit->second) * 1024 / 1000);
  }
  if (cpu_limit != limits.end()) {
    out.cpu_quota = std::max<std::int64_t>(1000, milli_cpu(cpu_limit->second) * 100);
  }
  if (auto m = limits.find("memory"); m != limits.end()) out.memory_limit = bytes(m->second);
  return out;
}

// ---- the environment ------------------------------------------------------------------------

E2eCluster::E2eCluster() = default;
E2eCluster::~E2eCluster() = default;

E2eCluster& E2eCluster::get_unchecked() {
  static E2eCluster cluster;
  return cluster;
}

E2eCluster& E2eCluster::get() {
  E2eCluster& c = get_unchecked();
  if (!c.up_) throw std::runtime_error("the e2e environment is not up (see the setup failure)");
  return c;
}

kube::RestClient& E2eCluster::client() { return *client_; }

void E2eCluster::up() {
  ASSERT_EQ(::geteuid(), 0u) << "e2e tests run `tailor cluster up`, which needs root";
  ASSERT_EQ(::access(kKubectl, X_OK), 0) << kKubectl << " is missing: e2e tests need kubectl";
  bin_dir_ = test_bin_dir();
  for (const char* b : {"tailor", "tailor-cluster", "tailor-node-agent", "tailor-controller"}) {
    ASSERT_EQ(::access((bin_dir_ / b).c_str(), X_OK), 0) << (bin_dir_ / b) << " is missing";
  }
  if (const char* existing = std::getenv("TAILOR_E2E_ATTACH")) {
    attached_ = true;
    dir_ = existing;
    fs::create_directories(dir_ / "scratch");
    std::cout << "[e2e] attached to the environment in " << dir_.string() << std::endl;
  } else {
    char tmpl[] = "/tmp/tailor-e2e-XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    fs::create_directories(dir_ / "scratch");
    std::cout << "[e2e] environment in " << dir_.string() << std::endl;
    std::vector<std::string> args = {"cluster", "up", "--dir", dir_.string()};
    args.insert(args.end(), kUpArgs.begin(), kUpArgs.end());
    const std::vector<std::string> sa_args = service_account_up_args(dir_);
    args.insert(args.end(), sa_args.begin(), sa_args.end());
    const auto started = std::chrono::steady_clock::now();
    CommandResult r = tailor(args);
    ASSERT_EQ(r.exit_code, 0) << "tailor cluster up failed:\n" << r.out << r.err;
    std::cout << "[e2e] tailor cluster up took "
              << std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count()
              << " ms" << std::endl;
  }
  kube::RestConfig config = kube::load_kubeconfig(kubeconfig());
  config.qps = 0;
  client_ = std::make_unique<kube::RestClient>(config);
  up_ = true;
  if (!attached_) {
    const auto started = std::chrono::steady_clock::now();
    try {
      run_under_chart_service_accounts(*this);
    } catch (const std::exception& e) {
      FAIL() << "the processes under the chart's ServiceAccounts: " << e.what();
    }
    std::cout << "[e2e] controller and agents under the chart's ServiceAccounts after "
              << std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::steady_clock::now() - started)
                     .count()
              << " ms" << std::endl;
  }
  // No CRD to apply: `tailor cluster up` installed the chart's and waited until Established.
}

void E2eCluster::down(bool keep_dir) {
  if (dir_.empty()) return;
  if (attached_ || std::getenv("TAILOR_E2E_KEEP")) {
    std::cout << "[e2e] TAILOR_E2E_KEEP: left running in " << dir_.string() << std::endl;
    return;
  }
  client_.reset();
  up_ = false;
  CommandResult r = tailor({"cluster", "down", "--dir", dir_.string()});
  EXPECT_EQ(r.exit_code, 0) << "tailor cluster down failed:\n" << r.out << r.err;
  if (keep_dir) {
    std::cout << "[e2e] logs kept in " << dir_.string() << std::endl;
    return;
  }
  std::error_code ignored;
  fs::remove_all(dir_, ignored);
}

CommandResult E2eCluster::kubectl(const std::string& args) const {
  const fs::path home = dir_ / "kubectl-home";
  return run_shell("cd " + (dir_ / "scratch").string() + " && env HOME=" + home.string() +
                       " KUBECONFIG=" + kubeconfig() + " " + kKubectl + " " + args,
                   dir_ / "scratch");
}

CommandResult E2eCluster::tailor(const std::vector<std::string>& args) const {
  std::string cmd = shell_quote((bin_dir_ / "tailor").string());
  for (const std::string& a : args) cmd += " " + shell_quote(a);
  return run_shell(cmd, dir_ / "scratch");
}

std::string E2eCluster::controller_metrics() const {
  const bj::value ports = bj::parse(read_text(dir_ / "controller.ports"));
  const std::int64_t port = ports.at("metrics").to_number<std::int64_t>();
  kube::http::Client http({.base_url = "http://127.0.0.1:" + std::to_string(port)});
  kube::http::ClientResponse r = http.send({.target = "/metrics", .timeout = 5s});
  if (r.status != 200) {
    throw std::runtime_error("controller /metrics answered " + std::to_string(r.status));
  }
  return r.body;
}

std::optional<double> E2eCluster::controller_metric(const std::string& series) const {
  std::istringstream text(controller_metrics());
  for (std::string line; std::getline(text, line);) {
    if (line.rfind(series, 0) != 0 || line.size() <= series.size()) continue;
    if (line[series.size()] != ' ') continue;
    return std::stod(line.substr(series.size() + 1));
  }
  return std::nullopt;
}

double E2eCluster::controller_passes() const {
  return controller_metric("tailor_controller_pass_duration_seconds_count").value_or(0);
}

std::string E2eCluster::controller_log_tail(int lines) const {
  std::vector<std::string> all;
  std::ifstream in(dir_ / "controller.log");
  for (std::string line; std::getline(in, line);) all.push_back(line);
  std::string out;
  for (std::size_t i = all.size() > static_cast<std::size_t>(lines) ? all.size() - lines : 0;
       i < all.size(); ++i) {
    out += all[i] + "\n";
  }
  return out;
}

std::vector<PodView> E2eCluster::all_pods() {
  const bj::value list = bj::parse(client_->list({kube::resources::kPods, ""}));
  std::vector<PodView> out;
  for (const bj::value& item : array_at(list.as_object(), "items")) {
    out.push_back(pod_view(item.as_object()));
  }
  return out;
}

Resources E2eCluster::node_allocatable(const std::string& node) {
  const bj::value n = bj::parse(client_->get({kube::resources::kNodes, "", node}));
  return resources_of(object_at(object_at(n.as_object(), "status"), "allocatable"));
}

void E2eCluster::label_node(const std::string& node, const std::string& key,
                            const std::optional<std::string>& value) {
  bj::object labels{{key, value ? bj::value(*value) : bj::value(nullptr)}};
  bj::object patch{{"metadata", bj::object{{"labels", labels}}}};
  client_->patch({kube::resources::kNodes, "", node}, kube::PatchType::Merge, bj::serialize(patch));
}

// ---- namespaces ---------------------------------------------------------------------------

TestNamespace::TestNamespace(std::string name) : name_(std::move(name)) {
  bj::object ns{
      {"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", bj::object{{"name", name_}}}};
  E2eCluster::get().client().create({kube::resources::kNamespaces, "", ""}, bj::serialize(ns));
}

TestNamespace::~TestNamespace() {
  try {
    E2eCluster::get().kubectl("delete namespace " + name_ + " --wait=false");
  } catch (const std::exception&) {
    // the environment is gone already; cluster down removed everything
  }
}

CommandResult TestNamespace::try_apply(const std::string& yaml) const {
  static std::atomic<int> counter{0};
  const fs::path file =
      E2eCluster::get().dir() / "scratch" / (name_ + "-" + std::to_string(counter++) + ".yaml");
  std::ofstream(file) << yaml;
  return kubectl("apply -f " + file.string());
}

bool TestNamespace::apply(const std::string& yaml) const {
  CommandResult r = try_apply(yaml);
  EXPECT_EQ(r.exit_code, 0) << "kubectl apply in " << name_ << ":\n" << r.err << "\n" << yaml;
  return r.exit_code == 0;
}

CommandResult TestNamespace::kubectl(const std::string& args) const {
  return E2eCluster::get().kubectl("-n " + name_ + " " + args);
}

std::optional<PodView> TestNamespace::pod(const std::string& name) const {
  try {
    return pod_view(bj::parse(E2eCluster::get().client().get({kube::resources::kPods, name_, name}))
                        .as_object());
  } catch (const kube::ApiError& e) {
    if (e.is_not_found()) return std::nullopt;
    throw;
  }
}

std::vector<PodView> TestNamespace::pods(const std::string& label_selector) const {
  const bj::value list = bj::parse(E2eCluster::get().client().list(
      {kube::resources::kPods, name_}, {.label_selector = label_selector}));
  std::vector<PodView> out;
  for (const bj::value& item : array_at(list.as_object(), "items")) {
    PodView p = pod_view(item.as_object());
    if (!p.deleting) out.push_back(std::move(p));
  }
  return out;
}

std::optional<PolicyView> TestNamespace::policy(const std::string& name) const {
  return read_policy({policy::resources::kVerticalScalingPolicies, name_, name}, "mode");
}

std::optional<PolicyView> TestNamespace::vpa(const std::string& name) const {
  return read_policy({policy::resources::kVerticalPodAutoscalers, name_, name}, "updateMode");
}

std::vector<EventView> TestNamespace::events() const {
  const bj::value list =
      bj::parse(E2eCluster::get().client().list({kube::resources::kEvents, name_}));
  std::vector<EventView> out;
  for (const bj::value& item : array_at(list.as_object(), "items")) {
    const bj::object& e = item.as_object();
    const bj::object& involved = object_at(e, "involvedObject");
    const std::int64_t count = int_at(e, "count");
    out.push_back({.type = string_at(e, "type"),
                   .reason = string_at(e, "reason"),
                   .message = string_at(e, "message"),
                   .object_kind = string_at(involved, "kind"),
                   .object_name = string_at(involved, "name"),
                   .object_uid = string_at(involved, "uid"),
                   .count = count > 0 ? static_cast<int>(count) : 1});
  }
  return out;
}

// ---- waiting ------------------------------------------------------------------------------

bool wait_until(const std::string& what, std::chrono::seconds timeout,
                const std::function<bool(std::string& seen)>& probe) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string seen;
  while (true) {
    try {
      if (probe(seen)) return true;
    } catch (const std::exception& e) {
      seen = std::string("probe threw: ") + e.what();
    }
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(250ms);
  }
  ADD_FAILURE() << "timed out after " << timeout.count() << " s waiting for " << what
                << "\n  last seen: " << seen;
  return false;
}

// Enough of VPA's CRD for its objects to be stored, listed and watched. Cluster-scoped, it stays
// for the rest of the run (applying it again is a no-op).
bool install_vpa_crd(const TestNamespace& ns) {
  constexpr const char* kVpaCrd = R"(apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: verticalpodautoscalers.autoscaling.k8s.io}
spec:
  group: autoscaling.k8s.io
  scope: Namespaced
  names: {kind: VerticalPodAutoscaler, listKind: VerticalPodAutoscalerList,
          plural: verticalpodautoscalers, singular: verticalpodautoscaler, shortNames: [vpa]}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
)";
  if (!ns.apply(kVpaCrd)) return false;
  CommandResult established = E2eCluster::get().kubectl(
      "wait --for=condition=Established --timeout=30s "
      "crd/verticalpodautoscalers.autoscaling.k8s.io");
  EXPECT_EQ(established.exit_code, 0) << established.err;
  return established.exit_code == 0;
}

std::optional<PodView> only_ready_pod(const TestNamespace& ns, const std::string& selector) {
  std::vector<PodView> pods = ns.pods(selector);
  if (pods.size() != 1 || !pods[0].ready()) return std::nullopt;
  return pods[0];
}

std::vector<PodView> wait_for_ready_pods(const TestNamespace& ns, const std::string& what,
                                         const std::string& selector, std::size_t count,
                                         std::chrono::seconds timeout) {
  std::vector<PodView> pods;
  const bool ready = wait_until(what, timeout, [&](std::string& seen) {
    pods = ns.pods(selector);
    seen = std::to_string(pods.size()) + " pods";
    for (const PodView& p : pods) seen += "\n    " + p.summary();
    return pods.size() == count &&
           std::all_of(pods.begin(), pods.end(), [](const PodView& p) { return p.ready(); });
  });
  return ready ? pods : std::vector<PodView>{};
}

std::optional<PodView> wait_for_ready_pod(const TestNamespace& ns, const std::string& what,
                                          const std::string& name, std::chrono::seconds timeout) {
  std::optional<PodView> pod;
  const bool ready = wait_until(what, timeout, [&](std::string& seen) {
    pod = ns.pod(name);
    seen = pod ? pod->summary() : "no pod";
    return pod && pod->ready();
  });
  return ready ? pod : std::nullopt;
}

std::optional<OomKill> wait_for_oom_kill(const TestNamespace& ns, const std::string& selector,
                                         std::chrono::seconds timeout) {
  OomKill kill;
  const bool killed =
      wait_until("the first OOM kill in the pod status", timeout, [&](std::string& seen) {
        CommandResult r =
            ns.kubectl("get pods -l " + selector +
                       " -o 'jsonpath={.items[0].metadata.uid} "
                       "{.items[0].status.containerStatuses[0].lastState.terminated.reason} "
                       "{.items[0].status.containerStatuses[0].lastState.terminated.finishedAt}'");
        seen = r.out + r.err;
        const std::size_t a = r.out.find(' '), b = r.out.rfind(' ');
        if (r.exit_code != 0 || a == std::string::npos ||
            r.out.substr(a + 1, b - a - 1) != "OOMKilled")
          return false;
        kill = {.pod_uid = r.out.substr(0, a), .finished_at = r.out.substr(b + 1)};
        return true;
      });
  return killed ? std::optional(kill) : std::nullopt;
}

}  // namespace tailor::e2e
