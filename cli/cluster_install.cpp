#include "cli/cluster_install.h"

#include <sys/stat.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cli/cluster_install_values.h"
#include "cli/cluster_nodes.h"
#include "cli/cluster_process.h"
#include "cli/source_tree.h"
#include "kube/client/config.h"
#include "kube/client/rest_client.h"

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;
namespace bj = boost::json;
using namespace std::chrono_literals;

constexpr const char* kNamespace = "kube-system";
constexpr const char* kRelease = "tailor";  // objects tailor-controller, tailor-node-agent
constexpr const char* kClientCaConfigMap = kUsageClientCaConfigMap;

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string app_version(const fs::path& chart) {
  std::ifstream in(chart / "Chart.yaml");
  const std::regex line(R"re(^appVersion: *"?([^" ]+)"? *$)re");
  std::smatch match;
  for (std::string text; std::getline(in, text);) {
    if (std::regex_match(text, match, line)) return match[1];
  }
  throw std::runtime_error("no appVersion in " + (chart / "Chart.yaml").string());
}

bool on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (!dir.empty() && ::access((fs::path(dir) / program).c_str(), X_OK) == 0) return true;
  }
  return false;
}

void link(const fs::path& target, const fs::path& at) {
  fs::create_directories(at.parent_path());
  fs::remove(at);
  fs::create_symlink(target, at);
}

std::string kubectl(const fs::path& dir, std::vector<std::string> args) {
  args.insert(args.begin(), {"kubectl", "--kubeconfig", (dir / "kubeconfig").string()});
  return run_command(args);
}

// The tailor-usage-client-ca ConfigMap: the CA of the nodes' usage certificates, which the
// controller trusts for the agents' client certificates (on a kubeadm cluster the cluster CA,
// kube-root-ca.crt, signs the kubelets' own).
std::string client_ca_config_map(const fs::path& dir) {
  const bj::object object{
      {"apiVersion", "v1"},
      {"kind", "ConfigMap"},
      {"metadata", bj::object{{"name", kClientCaConfigMap}, {"namespace", kNamespace}}},
      {"data", bj::object{{"ca.crt", read_file(dir / "usage-tls" / "ca.crt")}}}};
  return bj::serialize(object);
}

std::int64_t number(const bj::value& object, std::initializer_list<const char*> path) {
  const bj::value* v = &object;
  for (const char* key : path) {
    const auto* o = v->if_object();
    if (!o || !o->contains(key)) return 0;
    v = &o->at(key);
  }
  return v->is_int64() ? v->as_int64() : 0;
}

// "" when ready, else what is missing.
std::string not_ready(kube::RestClient& client, int nodes) {
  std::string missing;
  try {
    const bj::value deployment = bj::parse(client.get({.type = kube::resources::kDeployments,
                                                       .namespace_ = kNamespace,
                                                       .name = "tailor-controller"}));
    const std::int64_t want = number(deployment, {"spec", "replicas"});
    const std::int64_t ready = number(deployment, {"status", "readyReplicas"});
    if (ready < want || number(deployment, {"status", "updatedReplicas"}) < want) {
      missing += "Deployment tailor-controller: " + std::to_string(ready) + "/" +
                 std::to_string(want) + " ready; ";
    }
    const bj::value daemonset = bj::parse(client.get({.type = kube::resources::kDaemonSets,
                                                      .namespace_ = kNamespace,
                                                      .name = "tailor-node-agent"}));
    const std::int64_t desired = number(daemonset, {"status", "desiredNumberScheduled"});
    const std::int64_t ready_agents = number(daemonset, {"status", "numberReady"});
    if (desired < nodes || ready_agents < desired) {
      missing += "DaemonSet tailor-node-agent: " + std::to_string(ready_agents) + "/" +
                 std::to_string(nodes) + " ready";
    }
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
    missing += e.what();
  }
  return missing;
}

// What a user would look at: the pods and the last lines of each container's log.
std::string diagnosis(const fs::path& dir) {
  std::string out;
  auto attempt = [&](const std::vector<std::string>& args) {
    try {
      out += kubectl(dir, args);
    } catch (const std::exception& e) {
      out += e.what();
      out += "\n";
    }
  };
  attempt({"get", "pods", "-n", kNamespace, "-o", "wide"});
  // Why a container waits (a volume, the image, its configuration), in the kubelet's words.
  attempt({"get", "pods", "-n", kNamespace, "-l", "app.kubernetes.io/name=tailor", "-o",
           "jsonpath={range .items[*]}{.metadata.name}: "
           "{.status.containerStatuses[*].state.waiting.message}{\"\\n\"}{end}"});
  for (const char* component : {"controller", "node-agent"}) {
    attempt({"logs", "-n", kNamespace, "-l",
             std::string("app.kubernetes.io/component=") + component, "--tail=5", "--prefix"});
  }
  return out;
}

}  // namespace

InstallSources find_install_sources(const fs::path& from, const std::string& image,
                                    const std::string& helm_render) {
  InstallSources s;
  const auto chart = find_above(from, "charts/tailor/Chart.yaml");
  if (!chart) throw std::runtime_error("cannot find charts/tailor above " + from.string());
  s.chart = chart->parent_path();
  const std::string version = app_version(s.chart);
  s.image_name = "docker.io/library/tailor:" + version;
  const fs::path build = from.parent_path();
  s.image = image.empty() ? build / "image" / ("tailor-" + version + ".oci.tar") : fs::path(image);
  if (!fs::is_regular_file(s.image)) {
    throw std::runtime_error("--install-tailor: the image " + s.image.string() +
                             " is missing: build it with `sudo make image` (or pass --image)");
  }
  s.helm_render =
      helm_render.empty() ? build / "tests" / "tools" / "helm-render" : fs::path(helm_render);
  if (::access(s.helm_render.c_str(), X_OK) != 0) {
    throw std::runtime_error(
        "--install-tailor: helm-render (Helm's template engine, which renders the chart) is "
        "missing at " +
        s.helm_render.string() +
        ": build it with `cmake --build build --target helm-render` (needs golang-go and "
        "Debian's sprig, sigs.k8s.io/yaml and gojsonschema packages: scripts/install-deps.sh), "
        "or pass --helm-render");
  }
  if (!on_path("kubectl")) {
    throw std::runtime_error("--install-tailor: kubectl is not on the PATH (it applies the chart)");
  }
  return s;
}

fs::path make_node_host_root(const fs::path& node_dir, const std::string& socket,
                             const fs::path& usage_tls_dir, const std::string& node) {
  const fs::path root = node_dir / "root";
  link(socket, root / "run/containerd/containerd.sock");
  link("/sys/fs/cgroup", root / "sys/fs/cgroup");
  const fs::path pki = root / "var/lib/kubelet/pki";
  fs::create_directories(pki);
  const fs::path pem = pki / "kubelet-client-current.pem";
  {
    std::ofstream out(pem, std::ios::trunc);
    out << read_file(usage_tls_dir / (node + ".crt")) << read_file(usage_tls_dir / (node + ".key"));
  }
  ::chmod(pem.c_str(), 0600);
  fs::create_directories(root / "var/lib/tailor-node-agent");
  return root;
}

void install_tailor(const InstallSources& sources, const fs::path& dir,
                    const std::vector<std::string>& controller_args,
                    const std::vector<std::string>& agent_args, int nodes,
                    const std::vector<fs::path>& watched, std::chrono::seconds timeout,
                    std::ostream& out) {
  const fs::path work = dir / "tailor";
  fs::create_directories(work);
  std::ofstream(work / "values.yaml", std::ios::trunc)
      << install_values(controller_args, agent_args);
  std::ofstream(work / "usage-client-ca.json", std::ios::trunc) << client_ca_config_map(dir);
  const std::string manifest =
      run_command({sources.helm_render.string(), "--namespace", kNamespace, "-f",
                   (work / "values.yaml").string(), kRelease, sources.chart.string()});
  std::ofstream(work / "manifest.yaml", std::ios::trunc) << manifest;
  // As the chart tests apply it: unknown or duplicate fields are errors (server-side).
  kubectl(dir, {"apply", "--validate=strict", "-f", (work / "usage-client-ca.json").string(), "-f",
                (work / "manifest.yaml").string()});
  out << "applied the chart " << sources.chart.string() << " to " << kNamespace << " ("
      << (work / "manifest.yaml").string() << ", values " << (work / "values.yaml").string()
      << ")\n";

  kube::RestConfig config = kube::load_kubeconfig((dir / "kubeconfig").string());
  config.max_retries = 0;
  kube::RestClient client(config);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (std::string missing = not_ready(client, nodes); !missing.empty();
       missing = not_ready(client, nodes)) {
    check_alive(watched);
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("Tailor's pods were not Ready within " +
                               std::to_string(timeout.count()) + " s (" + missing + "):\n" +
                               diagnosis(dir));
    }
    std::this_thread::sleep_for(500ms);
  }
  out << "Tailor runs in " << kNamespace
      << ": Deployment tailor-controller and DaemonSet tailor-node-agent Ready\n";
}

}  // namespace tailor::cli
