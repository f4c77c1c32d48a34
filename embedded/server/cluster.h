// Cluster: tailor-cluster's API server process in one object — the store, the REST handler, an
// HTTPS server with a generated CA and serving certificate, a bearer token, and the kubeconfig
// that kubectl and Tailor's processes use. With a state directory the CA and token survive
// restarts (kubeconfigs stay valid), and so does every object: they are kept in DIR/objects.db
// (SQLite, see storage/sqlite_persistence.h), each write committed before it is answered.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "embedded/api/api_handler.h"
#include "embedded/auth/jwt.h"
#include "embedded/storage/object_store.h"
#include "embedded/storage/sqlite_persistence.h"

namespace tailor::embedded {

struct ClusterOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;          // 0: any free port
  std::string dir{};               // state directory ("" : keep everything in memory)
  SyncMode sync = SyncMode::Full;  // how DIR/objects.db commits reach the disk
  bool tls = true;
  std::string nodes_file{};  // simulated nodes (see simulated_nodes.h); "" : none
  // Where the node agents on this machine write container logs (their --pod-log-dir): served
  // as pods/log. "" : pods/log answers that logs are not served.
  std::string pod_log_dir{};
  // kube-apiserver's --audit-log-path: every authorization decision appended there as an
  // audit.k8s.io/v1 Event (auth/audit_log.h). "" : none recorded.
  std::string audit_log_path{};
  // kube-apiserver's --service-cluster-ip-range (its default): Services' cluster IPs come from
  // it (services/cluster_ips.h).
  std::string service_cidr = "10.0.0.0/24";
  bool control_loops = true;  // scheduler, workload controllers, garbage collector
  // How often the kubelet endpoints the Nodes name are scraped for metrics.k8s.io
  // (metrics-server's --metric-resolution).
  std::chrono::milliseconds metric_resolution{std::chrono::seconds(15)};
  ApiOptions api{};  // api.bearer_token "" : one is generated
  StoreOptions store{};
  // Connections served at once (the rest wait in the listen backlog), and how long a request's
  // body may take: kube-apiserver's --request-timeout (60 s), answered as it does, 504 Timeout.
  std::size_t max_connections = 512;
  std::chrono::milliseconds request_body_timeout{std::chrono::seconds(60)};
};

class Cluster {
 public:
  // Loads the objects of the state directory; throws std::runtime_error when its database cannot
  // be read (never starts empty over it).
  explicit Cluster(ClusterOptions options);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  void start();  // throws std::runtime_error when it cannot listen or read its state
  void stop();
  std::uint16_t port() const;
  std::string url() const;
  const std::string& ca_pem() const;
  const std::string& token() const;  // the administrator's (user tailor-admin, system:masters)
  // Signs ServiceAccount tokens (DIR/sa.key with a state directory); after start().
  const SigningKey& service_account_signing_key() const;
  ObjectStore& store();
  // A kubeconfig (YAML) with the CA, the URL and the token; context "tailor".
  std::string kubeconfig() const;
  void write_kubeconfig(const std::string& path) const;
  // A kubeconfig (YAML) whose user authenticates with a client certificate signed by the
  // cluster's CA: subject CN = user, O = each group (how kube-apiserver reads user and groups).
  // Context "tailor", user named after `user`. Needs TLS.
  std::string client_kubeconfig(const std::string& user,
                                const std::vector<std::string>& groups) const;
  void write_client_kubeconfig(const std::string& path, const std::string& user,
                               const std::vector<std::string>& groups) const;

 private:
  std::string kubeconfig_for(const std::string& user_name, const std::string& user_fields) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::embedded
