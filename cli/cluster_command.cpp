#include "cli/cluster_command.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cli/cluster_crds.h"
#include "cli/cluster_dns.h"
#include "cli/cluster_install.h"
#include "cli/cluster_network.h"
#include "cli/cluster_nodes.h"
#include "cli/cluster_process.h"
#include "cli/cluster_proxy.h"
#include "cli/cluster_usage_tls.h"
#include "cli/command_flags.h"
#include "cli/source_tree.h"

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kDefaultAllocatable = "cpu=2,memory=2Gi";

const char* kUsage =
    "Usage:\n"
    "  tailor cluster up --dir DIR [--nodes N] [--node-allocatable cpu=2,memory=2Gi]...\n"
    "                    [--no-controller] [--controller-arg ARG]... [--agent-arg ARG]...\n"
    "                    [--cluster-arg ARG]...\n"
    "                    [--install-tailor [--image FILE] [--helm-render FILE]]\n"
    "                    [--bin-dir DIR] [--scripts-dir DIR] [--crds-dir DIR]\n"
    "  tailor cluster down --dir DIR\n"
    "up starts, in the background, a real containerd per node, tailor-cluster (its objects kept\n"
    "in DIR/cluster), one tailor-node-agent per node (embedded mode: it runs the pods) and\n"
    "tailor-controller, each under a supervisor that starts it again when it dies (backoff 1 s\n"
    "doubling to 30 s; DIR/NAME.pid holds the process, DIR/NAME.supervisor.pid its supervisor),\n"
    "writes DIR/kubeconfig, installs the chart's CRDs (VerticalScalingPolicy, ...; --crds-dir, "
    "else\n"
    "charts/tailor/crds above the binary) and returns when the nodes are Ready. Repeat\n"
    "--node-allocatable to size nodes differently (the last one repeats). The controller\n"
    "listens on loopback ports of its own choosing (DIR/controller.ports), registers its\n"
    "admission webhook, acts on VerticalPodAutoscaler objects too (--watch-vpa=true), and the\n"
    "agents stream usage to it over mutual TLS (each with its node's certificate,\n"
    "DIR/usage-tls); --controller-arg / --agent-arg / --cluster-arg pass extra flags to those\n"
    "processes (e.g. --cluster-arg=--audit-log-path=FILE).\n"
    "--install-tailor runs Tailor as its users do instead: the image (`sudo make image`,\n"
    "build/image/tailor-<appVersion>.oci.tar, or --image) imported into each node's containerd,\n"
    "charts/tailor rendered by Helm's engine (build/tests/tools/helm-render, or --helm-render)\n"
    "into DIR/tailor/manifest.yaml and applied to kube-system with kubectl; up returns once the\n"
    "tailor-controller Deployment and the tailor-node-agent DaemonSet are Ready. The pods\n"
    "authenticate with their ServiceAccounts' tokens; the host agents keep the kubelet's part\n"
    "(node, pods, resizes) and the DaemonSet's agents stream usage; each node's hostPaths are\n"
    "below DIR/node-N/root. --controller-arg / --agent-arg then go to the chart's extraArgs.\n"
    "Container logs go to DIR/pod-logs (kubectl logs reads them through tailor-cluster).\n"
    "Services get cluster IPs from the environment's own range, 10.201.<slot>.0/24, routed to\n"
    "their ready endpoints by iptables NAT chains TLR<slot>-* as kube-proxy's (DIR/proxy.log;\n"
    "removed by down); pods reach tailor-cluster at kubernetes' ClusterIP:443 (it listens on\n"
    "node 1's gateway, 10.200.<slot>.1). Pods resolve Services through the cluster DNS (dnsmasq "
    "on\n"
    "kube-system/kube-dns's ClusterIP, 10.201.<slot>.10, which the host holds on the first\n"
    "node's bridge; zone cluster.local; DIR/dns.log).\n"
    "down stops everything and removes the containers and cgroups it made; logs stay in DIR.\n"
    "Both need root.\n";

int to_int(const std::string& flag, const std::string& value) {
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != value.size() || n < 1) {
    throw std::invalid_argument(flag + ": want a positive number, got \"" + value + "\"");
  }
  return n;
}

// The checkout's scripts/containerd: given, or found above the binary (build/bin/tailor).
fs::path scripts_dir(const ClusterUpOptions& options) {
  if (!options.scripts_dir.empty()) return options.scripts_dir;
  if (auto start = find_above(self_dir(), "scripts/containerd/start.sh")) {
    return start->parent_path();
  }
  throw std::runtime_error("cannot find scripts/containerd above " + self_dir().string() +
                           "; pass --scripts-dir");
}

fs::path binary(const ClusterUpOptions& options, const std::string& name, const char* hint) {
  const fs::path path = (options.bin_dir.empty() ? self_dir() : fs::path(options.bin_dir)) / name;
  if (::access(path.c_str(), X_OK) != 0) {
    throw std::runtime_error(name + " not found at " + path.string() + " (" + hint + ")");
  }
  return path;
}

void wait_for_file(const fs::path& file, const fs::path& pid_file, const fs::path& log) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!fs::exists(file)) {
    if (!running_pid(pid_file)) {
      throw std::runtime_error(pid_file.stem().string() + " exited; " + log.string() + ":\n" +
                               log_tail(log));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error(file.string() + " did not appear within 30 s");
    }
    std::this_thread::sleep_for(50ms);
  }
}

// One port from the controller's ports file ({"usage":N,"webhook":N,"metrics":N}).
int read_port(const fs::path& file, const std::string& name) {
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto key = text.find("\"" + name + "\":");
  if (key == std::string::npos) {
    throw std::runtime_error(file.string() + " has no \"" + name + "\" port: " + text);
  }
  return std::stoi(text.substr(key + name.size() + 3));
}

std::string node_name(int index) { return "tailor-node-" + std::to_string(index); }

std::vector<std::string> node_names(const ClusterUpOptions& options) {
  std::vector<std::string> names;
  for (int i = 1; i <= static_cast<int>(node_sizes(options).size()); ++i) {
    names.push_back(node_name(i));
  }
  return names;
}
fs::path node_dir(const fs::path& dir, int index) {
  return dir / ("node-" + std::to_string(index));
}

// The container logs of every node (the agents write them, tailor-cluster serves them as
// pods/log): one machine, one directory, kept with the other logs by `down`.
fs::path pod_log_dir(const fs::path& dir) { return dir / "pod-logs"; }

struct Started {
  std::vector<std::string> nodes;
  std::vector<fs::path> watched_pid_files;  // must stay up while we wait
};

// The cluster DNS (cli/cluster_dns.h) on kube-dns's ClusterIP, which the host holds on the first
// node's bridge (add_cluster_dns_address): every pod of the environment reaches it through its
// gateway, and no other environment or the host's own resolver listens there.
void start_cluster_dns(const fs::path& dir, const PodNetwork& first, Started& started,
                       std::ostream& out) {
  publish_kube_dns_service(dir / "kubeconfig", first.cluster_dns);
  start_supervised({fs::read_symlink("/proc/self/exe").string(), "cluster-dns", "--kubeconfig",
                    (dir / "kubeconfig").string(), "--dir", (dir / "dns").string(), "--listen",
                    first.cluster_dns, "--zone", kClusterDomain},
                   dir / "dns.log", dir / "dns.pid");
  started.watched_pid_files.push_back(dir / "dns.pid");
  out << "cluster DNS: " << first.cluster_dns << ":53, zone " << kClusterDomain
      << " (kube-system/kube-dns)\n";
}

// The service proxy (cli/cluster_proxy.h): the environment's iptables chains, named after node
// 1's slot, which DIR/proxy/slot keeps for `down`.
void start_cluster_proxy(const fs::path& dir, const PodNetwork& first, Started& started,
                         std::ostream& out) {
  fs::create_directories(dir / "proxy");
  std::ofstream(dir / "proxy" / "slot") << first.slot << "\n";
  start_supervised({fs::read_symlink("/proc/self/exe").string(), "cluster-proxy", "--kubeconfig",
                    (dir / "kubeconfig").string(), "--slot", std::to_string(first.slot), "--dir",
                    (dir / "proxy").string()},
                   dir / "proxy.log", dir / "proxy.pid");
  started.watched_pid_files.push_back(dir / "proxy.pid");
  out << "service proxy: iptables chains " << proxy_chain_prefix(first.slot) << "*\n";
}

// `first`: node 1's network, reserved before tailor-cluster starts (its slot names the
// environment's service range and kube-dns's ClusterIP, the agents' --cluster-dns).
// `install`: Tailor runs as pods (--install-tailor): each node gets the image and a root of its own
// for hostPath volumes, and its agent keeps the kubelet's part only (no usage stream: the
// DaemonSet's agent streams the node's usage).
void start_nodes(const ClusterUpOptions& options, const fs::path& dir, const fs::path& scripts,
                 const PodNetwork& first, const std::string& usage_endpoint,
                 const InstallSources* install, Started& started, std::ostream& out) {
  const fs::path agent = binary(options, "tailor-node-agent", "build the tailor-node-agent target");
  const auto sizes = node_sizes(options);
  for (int i = 1; i <= static_cast<int>(sizes.size()); ++i) {
    const fs::path node = node_dir(dir, i);
    fs::create_directories(node / "agent");
    const PodNetwork network = i == 1 ? first : set_up_pod_network(node / "containerd");
    const std::string socket = start_containerd(scripts, node / "containerd");
    started.watched_pid_files.push_back(node / "containerd" / "containerd.pid");
    out << "node " << node_name(i) << ": containerd at " << socket << ", pods on " << network.subnet
        << " (bridge " << network.bridge << "), allocatable " << sizes[i - 1] << "\n";
    std::vector<std::string> command = {agent.string(),
                                        "--kubeconfig",
                                        (dir / "kubeconfig").string(),
                                        "--node-name",
                                        node_name(i),
                                        "--runtime-endpoint",
                                        "unix://" + socket,
                                        "--checkpoint-dir",
                                        (node / "agent").string(),
                                        "--actuation",
                                        "agent",
                                        "--node-allocatable",
                                        sizes[i - 1],
                                        "--metrics-bind-address",
                                        "127.0.0.1:0",
                                        "--pod-log-dir",
                                        pod_log_dir(dir).string(),
                                        "--cluster-dns=" + first.cluster_dns,
                                        std::string("--cluster-domain=") + kClusterDomain};
    if (!usage_endpoint.empty()) {
      command.push_back("--usage-endpoint=" + usage_endpoint);
      const auto tls = agent_usage_tls_flags(dir, node_name(i));
      command.insert(command.end(), tls.begin(), tls.end());
    }
    if (install) {
      import_node_image(socket, install->image, install->image_name);
      const fs::path root = make_node_host_root(node, socket, dir / "usage-tls", node_name(i));
      command.push_back("--host-path-root=" + root.string());
      out << "node " << node_name(i) << ": imported " << install->image_name << ", hostPaths below "
          << root.string() << "\n";
    } else {
      command.insert(command.end(), options.agent_args.begin(), options.agent_args.end());
    }
    start_supervised(command, node / "agent.log", node / "agent.pid");
    started.nodes.push_back(node_name(i));
    started.watched_pid_files.push_back(node / "agent.pid");
  }
}

// The controller comes first so the agents can be told where its usage stream listens; its
// ports are ephemeral (several environments may run on one machine) and read from its ports file.
std::string start_controller(const ClusterUpOptions& options, const fs::path& controller,
                             const fs::path& dir, Started& started) {
  const fs::path ports = dir / "controller.ports";
  fs::remove(ports);
  std::vector<std::string> command = {
      controller.string(), "--kubeconfig=" + (dir / "kubeconfig").string(),
      "--metrics-bind-address=127.0.0.1:0",
      // Fixed for the cluster's life: agents keep this endpoint
      // across restarts of the controller.
      "--usage-bind-address=127.0.0.1:" + std::to_string(free_port()),
      "--webhook-bind-address=127.0.0.1", "--webhook-ephemeral-port", "--webhook-register",
      // No upstream VPA runs here: VPA objects applied to try Tailor are acted on.
      "--watch-vpa=true", "--ports-file=" + ports.string()};
  const auto tls = controller_usage_tls_flags(dir);
  command.insert(command.end(), tls.begin(), tls.end());
  command.insert(command.end(), options.controller_args.begin(), options.controller_args.end());
  start_supervised(command, dir / "controller.log", dir / "controller.pid");
  started.watched_pid_files.push_back(dir / "controller.pid");
  wait_for_file(ports, dir / "controller.pid", dir / "controller.log");
  return "127.0.0.1:" + std::to_string(read_port(ports, "usage"));
}

void cluster_down(const fs::path& dir, std::ostream& out, std::ostream& err) {
  stop_supervised(dir / "controller.pid");
  if (stop_supervised(dir / "dns.pid")) out << "stopped the cluster DNS\n";
  if (stop_supervised(dir / "proxy.pid")) out << "stopped the service proxy\n";
  if (std::ifstream in(dir / "proxy" / "slot"); in) {
    int slot = -1;
    try {
      if (in >> slot) remove_service_proxy(slot);
      fs::remove(dir / "proxy" / "slot");
    } catch (const std::exception& e) {
      err << "tailor cluster down: service proxy: " << e.what() << "\n";
    }
  }
  for (int i = 1; fs::exists(node_dir(dir, i)); ++i) {
    if (stop_supervised(node_dir(dir, i) / "agent.pid")) out << "stopped agent " << i << "\n";
  }
  for (int i = 1; fs::exists(node_dir(dir, i)); ++i) {
    const fs::path containerd = node_dir(dir, i) / "containerd";
    if (!fs::exists(containerd)) continue;
    try {
      remove_node_pods(containerd / "containerd.sock", dir / "kubeconfig",
                       node_dir(dir, i) / "agent" / "pods");
      stop_containerd(scripts_dir({}), containerd);
      out << "stopped containerd of node " << node_name(i) << "\n";
    } catch (const std::exception& e) {
      err << "tailor cluster down: node " << node_name(i) << ": " << e.what() << "\n";
    }
  }
  if (stop_supervised(dir / "cluster.pid")) out << "stopped tailor-cluster\n";
}

int cluster_up(const ClusterUpOptions& options, std::ostream& out, std::ostream& err) {
  const fs::path dir = fs::absolute(options.dir);
  fs::create_directories(dir);
  if (running_pid(dir / "cluster.pid") || running_pid(supervisor_pid_file(dir / "cluster.pid"))) {
    err << "tailor cluster up: already running in " << dir.string()
        << " (tailor cluster down --dir " << dir.string() << ")\n";
    return 1;
  }
  if (::geteuid() != 0) {
    err << "tailor cluster up: must run as root (containerd needs cgroups and mounts)\n";
    return 1;
  }
  try {
    node_sizes(options);  // bad flags fail before anything starts
    const fs::path scripts = scripts_dir(options);
    const std::vector<std::string> crds =
        chart_crd_files(chart_crds_dir(options.crds_dir, self_dir()));
    const fs::path cluster = binary(options, "tailor-cluster", "build the tailor-cluster target");
    const bool host_controller = options.controller && !options.install_tailor;
    const auto controller =
        host_controller ? binary(options, "tailor-controller", "build it, or pass --no-controller")
                        : fs::path();
    std::optional<InstallSources> install;
    if (options.install_tailor) {
      install = find_install_sources(self_dir(), options.image, options.helm_render);
    }
    run_command({(scripts / "install.sh").string()});
    fs::remove(dir / "kubeconfig");
    const PodNetwork first = set_up_pod_network(node_dir(dir, 1) / "containerd");
    add_cluster_dns_address(first);
    // A port of its own for the cluster's life: a restarted tailor-cluster (same CA, token and
    // objects from DIR/cluster) is where every kubeconfig already points. It listens on node 1's
    // gateway, where the host and every pod of the environment reach it (pods through their own
    // gateway) and nothing outside the machine does: default/kubernetes' Endpoints name that
    // address, its serving certificate covers it and the `kubernetes` ClusterIP, and the service
    // proxy sends that ClusterIP's port 443 there.
    std::vector<std::string> command = {cluster.string(),
                                        "--dir",
                                        (dir / "cluster").string(),
                                        "--address",
                                        first.gateway,
                                        "--port",
                                        std::to_string(free_port()),
                                        "--write-kubeconfig",
                                        (dir / "kubeconfig").string(),
                                        "--pod-log-dir",
                                        pod_log_dir(dir).string(),
                                        "--service-cluster-ip-range",
                                        first.service_cidr};
    // Tailor as pods: who made each request (a pod's ServiceAccount token or the
    // administrator) is in DIR/audit.log.
    if (install) command.push_back("--audit-log-path=" + (dir / "audit.log").string());
    command.insert(command.end(), options.cluster_args.begin(), options.cluster_args.end());
    start_supervised(command, dir / "cluster.log", dir / "cluster.pid");
    wait_for_file(dir / "kubeconfig", dir / "cluster.pid", dir / "cluster.log");
    // Before the controller: its policy and checkpoint informers list these from the start.
    install_chart_crds(dir / "kubeconfig", crds);
    out << "installed " << crds.size() << " CRD(s) from "
        << fs::path(crds[0]).parent_path().string() << "\n";
    Started started;
    started.watched_pid_files.push_back(dir / "cluster.pid");
    if (host_controller || install) write_usage_certificates(dir, node_names(options));
    const std::string usage_endpoint =
        host_controller ? start_controller(options, controller, dir, started) : "";
    out << "services on " << first.service_cidr << "\n";
    start_cluster_proxy(dir, first, started, out);
    start_cluster_dns(dir, first, started, out);
    start_nodes(options, dir, scripts, first, usage_endpoint, install ? &*install : nullptr,
                started, out);
    wait_for_ready_nodes(dir / "kubeconfig", started.nodes, started.watched_pid_files,
                         std::chrono::seconds(options.ready_timeout_seconds));
    if (install) {
      install_tailor(*install, dir, options.controller_args, options.agent_args,
                     static_cast<int>(started.nodes.size()), started.watched_pid_files,
                     std::chrono::seconds(options.install_timeout_seconds), out);
    }
    out << "cluster up: " << started.nodes.size() << " node(s) Ready\n"
        << "  export KUBECONFIG=" << (dir / "kubeconfig").string() << "\n"
        << "  logs: " << dir.string() << "/*.log, " << dir.string() << "/node-*/agent.log\n"
        << "  stop: tailor cluster down --dir " << dir.string() << "\n";
    return 0;
  } catch (const std::exception& e) {
    err << "tailor cluster up: " << e.what() << "\nstopping what was started\n";
    cluster_down(dir, out, err);
    return 1;
  }
}

}  // namespace

ClusterUpOptions parse_cluster_up(const std::vector<std::string>& args) {
  ClusterUpOptions options;
  FlagReader flags(args);
  while (flags.next()) {
    const std::string& flag = flags.flag();
    auto take = [&flags] { return flags.value(); };
    if (flag == "--dir") {
      options.dir = take();
    } else if (flag == "--nodes") {
      options.nodes = to_int(flag, take());
    } else if (flag == "--node-allocatable") {
      const std::string size = take();
      if (size.find('=') == std::string::npos) {
        throw std::invalid_argument("--node-allocatable: want cpu=…,memory=…, got \"" + size +
                                    "\"");
      }
      options.node_allocatable.push_back(size);
    } else if (flag == "--no-controller") {
      options.controller = false;
    } else if (flag == "--controller-arg") {
      options.controller_args.push_back(take());
    } else if (flag == "--agent-arg") {
      options.agent_args.push_back(take());
    } else if (flag == "--cluster-arg") {
      options.cluster_args.push_back(take());
    } else if (flag == "--install-tailor") {
      options.install_tailor = true;
    } else if (flag == "--image") {
      options.image = take();
    } else if (flag == "--helm-render") {
      options.helm_render = take();
    } else if (flag == "--bin-dir") {
      options.bin_dir = take();
    } else if (flag == "--scripts-dir") {
      options.scripts_dir = take();
    } else if (flag == "--crds-dir") {
      options.crds_dir = take();
    } else {
      throw std::invalid_argument("unknown flag " + flag);
    }
  }
  if (options.dir.empty()) throw std::invalid_argument("--dir is required");
  if (!options.install_tailor && (!options.image.empty() || !options.helm_render.empty())) {
    throw std::invalid_argument("--image and --helm-render go with --install-tailor");
  }
  return options;
}

std::vector<std::string> node_sizes(const ClusterUpOptions& options) {
  const int given = static_cast<int>(options.node_allocatable.size());
  const int nodes = options.nodes > 0 ? options.nodes : std::max(given, 1);
  if (given > nodes) {
    throw std::invalid_argument(std::to_string(given) + " --node-allocatable flags for " +
                                std::to_string(nodes) + " node(s)");
  }
  std::vector<std::string> out = options.node_allocatable;
  if (out.empty()) out.push_back(kDefaultAllocatable);
  while (static_cast<int>(out.size()) < nodes) out.push_back(out.back());
  return out;
}

int run_cluster(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  try {
    if (args[0] == "up") return cluster_up(parse_cluster_up(rest), out, err);
    if (args[0] == "down") {
      if (rest.size() != 2 || rest[0] != "--dir") throw std::invalid_argument("want --dir DIR");
      const fs::path dir = fs::absolute(rest[1]);
      if (!fs::exists(dir)) {
        out << "nothing to stop in " << dir.string() << "\n";
        return 0;
      }
      cluster_down(dir, out, err);
      return 0;
    }
  } catch (const std::invalid_argument& e) {
    err << "tailor cluster " << args[0] << ": " << e.what() << "\n" << kUsage;
    return 2;
  }
  err << "tailor cluster: unknown verb '" << args[0] << "'\n" << kUsage;
  return 2;
}

}  // namespace tailor::cli
