// tailor-cluster: the embedded single-process Kubernetes API server.
#include <csignal>
#include <iostream>

#include "embedded/server/cluster.h"
#include "kube/observe/duration.h"
#include "kube/observe/options.h"

int main(int argc, char** argv) {
  using namespace tailor::kube;
  std::string kubeconfig, client_cert_kubeconfig, dir, nodes_file, address = "127.0.0.1";
  std::string sync = "full", pod_log_dir, audit_log_path, service_cidr = "10.0.0.0/24";
  int port = 6443;
  bool plain_http = false;
  Duration metric_resolution = std::chrono::seconds(15);
  config::Schema schema("tailor-cluster", "Embedded single-process Kubernetes API server.");
  schema.add({.flag = "write-kubeconfig", .help = "Write a kubeconfig for this server to FILE."},
             &kubeconfig);
  schema.add({.flag = "client-cert-kubeconfig",
              .help = "Write a kubeconfig to FILE whose user tailor-admin (group system:masters) "
                      "authenticates with a client certificate signed by this server's CA."},
             &client_cert_kubeconfig);
  schema.add({.flag = "port", .help = "Port to listen on (0: any free port)."}, &port);
  schema.add({.flag = "address", .help = "Address to listen on."}, &address);
  schema.add({.flag = "dir",
              .help = "State directory: CA, token and every object (DIR/objects.db), kept across "
                      "restarts. Without it objects live in memory only."},
             &dir);
  schema.add({.flag = "sync",
              .help = "When a write to DIR/objects.db is answered: full (after fsync: survives "
                      "power loss) or normal (after the write: survives a crash of this process)."},
             &sync);
  schema.add({.flag = "nodes", .help = "YAML file of simulated nodes to register."}, &nodes_file);
  schema.add({.flag = "pod-log-dir",
              .help = "Directory the node agents on this machine write container logs to (their "
                      "--pod-log-dir), served as pods/log. Without it pods/log is refused."},
             &pod_log_dir);
  schema.add({.flag = "metric-resolution",
              .help = "How often the node agents' kubelet endpoints (/metrics/resource) are "
                      "scraped for metrics.k8s.io, as metrics-server's flag."},
             &metric_resolution);
  schema.add({.flag = "audit-log-path",
              .help = "Append every authorization decision to FILE, one audit.k8s.io/v1 Event "
                      "per line (who asked for what, allowed or forbidden, and why)."},
             &audit_log_path);
  schema.add({.flag = "service-cluster-ip-range",
              .help = "IPv4 CIDR Services' cluster IPs are allocated from (its first address is "
                      "the kubernetes Service's), as kube-apiserver's flag."},
             &service_cidr);
  schema.add({.flag = "insecure-http", .help = "Serve plain HTTP instead of HTTPS."}, &plain_http);
  try {
    if (schema.parse(argc, argv) == config::ParseResult::Help) {
      std::cout << schema.usage();
      return 0;
    }
    if (plain_http && !client_cert_kubeconfig.empty()) {
      throw config::ConfigError("--client-cert-kubeconfig: client certificates need HTTPS");
    }
    if (port < 0 || port > 65535) throw config::ConfigError("--port: out of range");
    if (metric_resolution < std::chrono::seconds(1)) {
      throw config::ConfigError("--metric-resolution: must be at least 1s");
    }
    if (sync != "full" && sync != "normal") {
      throw config::ConfigError("--sync: want full or normal, got \"" + sync + "\"");
    }
    sigset_t signals;
    sigemptyset(&signals);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);  // before any thread starts
    tailor::embedded::Cluster cluster(
        {.address = address,
         .port = static_cast<std::uint16_t>(port),
         .dir = dir,
         .sync =
             sync == "full" ? tailor::embedded::SyncMode::Full : tailor::embedded::SyncMode::Normal,
         .tls = !plain_http,
         .nodes_file = nodes_file,
         .pod_log_dir = pod_log_dir,
         .audit_log_path = audit_log_path,
         .service_cidr = service_cidr,
         .metric_resolution =
             std::chrono::duration_cast<std::chrono::milliseconds>(metric_resolution)});
    cluster.start();
    if (!kubeconfig.empty()) cluster.write_kubeconfig(kubeconfig);
    if (!client_cert_kubeconfig.empty()) {
      cluster.write_client_kubeconfig(client_cert_kubeconfig, "tailor-admin", {"system:masters"});
    }
    std::cerr << "tailor-cluster serving on " << cluster.url() << std::endl;
    int received = 0;
    sigwait(&signals, &received);
    cluster.stop();
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "tailor-cluster: " << e.what() << std::endl;
    return 1;
  }
}
