#include "embedded/server/cluster.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "embedded/api/resources.h"
#include "embedded/auth/bootstrap_policy.h"
#include "embedded/auth/token_claims.h"
#include "embedded/server/features.h"
#include "embedded/server/simulated_nodes.h"
#include "embedded/services/cluster_ips.h"
#include "embedded/storage/object_meta.h"
#include "embedded/storage/status_error.h"
#include "kube/http/base64.h"
#include "kube/http/server.h"
#include "kube/http/tls_certs.h"

namespace tailor::embedded {
namespace {

namespace fs = std::filesystem;

std::string random_token() {
  std::random_device rd;
  std::string t;
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 40; ++i) t += kHex[rd() % 16];
  return t;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write_private_file(const fs::path& p, const std::string& content) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + p.string());
  out << content;
  out.close();
  ::chmod(p.c_str(), 0600);
}

// A kubeconfig holds credentials: only its owner may read it.
void write_config_file(const fs::path& p, const std::string& content) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  write_private_file(p, content);
}

const ResourceInfo& namespaces() { return *find_resource("", "v1", "namespaces"); }

// The address the `kubernetes` Endpoints name: the listening one, loopback when it listens on
// every address (kube-apiserver names its --advertise-address).
std::string endpoint_address(const std::string& listening) {
  return listening == "0.0.0.0" || listening.empty() ? "127.0.0.1" : listening;
}

// The IP SANs of the serving certificate: loopback, the listening address, the service IP.
std::vector<std::string> serving_ips(const std::string& listening, const std::string& service_ip) {
  std::vector<std::string> ips{"127.0.0.1"};
  const std::string address = endpoint_address(listening);
  if (address != "127.0.0.1" && parse_ipv4(address)) ips.push_back(address);
  ips.push_back(service_ip);
  return ips;
}

StoreOptions store_options(const ClusterOptions& o) {
  StoreOptions s = o.store;
  if (o.dir.empty() || s.persistence) return s;
  fs::create_directories(o.dir);
  s.persistence = open_sqlite_persistence((fs::path(o.dir) / "objects.db").string(), o.sync);
  s.resolve = stored_builtin;  // custom resources: adopted as their CRDs are served
  return s;
}

// The namespaces every Kubernetes cluster starts with.
void create_initial_namespaces(ObjectStore& store) {
  for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
    bj::object ns{{"metadata", bj::object{{"name", name}}},
                  {"spec", bj::object{{"finalizers", bj::array{"kubernetes"}}}},
                  {"status", bj::object{{"phase", "Active"}}}};
    create_if_absent(store, namespaces(), std::move(ns));
  }
}

}  // namespace

struct Cluster::Impl {
  ClusterOptions options;
  kube::http::CertificateAndKey ca;
  std::string token;
  std::unique_ptr<SigningKey> signing_key;
  ObjectStore store;
  std::unique_ptr<ApiHandler> handler;
  std::unique_ptr<kube::http::Server> server;
  std::vector<std::unique_ptr<ControlLoop>> control_loops;
  std::unique_ptr<ControlLoop> metrics_scraper;
  std::shared_ptr<ClusterIpAllocator> cluster_ips;

  explicit Impl(ClusterOptions o) : options(std::move(o)), store(store_options(options)) {}

  // CA and token from the state directory when there, else new ones (saved when there is one).
  void load_or_create_identity() {
    fs::path dir = options.dir;
    if (!dir.empty() && fs::exists(dir / "ca.crt") && fs::exists(dir / "ca.key") &&
        fs::exists(dir / "token")) {
      ca = {read_file(dir / "ca.crt"), read_file(dir / "ca.key")};
      token = read_file(dir / "token");
    } else {
      ca = kube::http::make_ca("tailor-cluster-ca", 3650);
      token = options.api.bearer_token.empty() ? random_token() : options.api.bearer_token;
      if (!dir.empty()) {
        fs::create_directories(dir);
        write_private_file(dir / "ca.crt", ca.cert_pem);
        write_private_file(dir / "ca.key", ca.key_pem);
        write_private_file(dir / "token", token);
      }
    }
    if (!options.api.bearer_token.empty()) token = options.api.bearer_token;
    load_or_create_signing_key();
  }

  // The key ServiceAccount tokens are signed with: tokens stay valid across restarts.
  void load_or_create_signing_key() {
    fs::path file = options.dir.empty() ? fs::path() : fs::path(options.dir) / "sa.key";
    if (!file.empty() && fs::exists(file)) {
      signing_key = std::make_unique<SigningKey>(SigningKey::from_pem(read_file(file)));
      return;
    }
    signing_key = std::make_unique<SigningKey>(SigningKey::generate());
    if (!file.empty()) write_private_file(file, signing_key->private_pem());
  }
};

Cluster::Cluster(ClusterOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

Cluster::~Cluster() { stop(); }

void Cluster::start() {
  impl_->load_or_create_identity();
  create_initial_namespaces(impl_->store);
  create_bootstrap_policy(impl_->store);
  if (!impl_->options.nodes_file.empty()) {
    register_simulated_nodes(impl_->store, impl_->options.nodes_file);
  }
  ApiOptions api = impl_->options.api;
  api.bearer_token = impl_->token;
  ObjectStore& store = impl_->store;
  add_pod_resize(api.extensions, store);
  add_pod_logs(api.extensions, impl_->options.pod_log_dir);
  add_quota_and_limit_ranges(api.extensions, store);
  add_protobuf_bodies(api.extensions);
  add_access_reviews(api.extensions);
  add_authentication_and_rbac(api.extensions, store,
                              {.admin_token = impl_->token,
                               .signing_key = impl_->signing_key.get(),
                               .issuer = kServiceAccountIssuer,
                               .audiences = {kServiceAccountIssuer},
                               .clock = api.clock});
  if (!impl_->options.audit_log_path.empty()) {
    add_audit_log(api.extensions, impl_->options.audit_log_path);
  }
  add_eviction_and_binding(api.extensions, store);
  add_custom_resources(api.extensions, store);
  add_mutating_webhooks(api.extensions, store);
  impl_->cluster_ips = add_cluster_ips(api.extensions, store, impl_->options.service_cidr);
  // The `kubernetes` Service's address: pods dial it, and the certificate names it (as
  // kube-apiserver adds its service IP to its serving certificate).
  const std::string kubernetes_ip = format_ipv4(impl_->cluster_ips->range().first());
  impl_->metrics_scraper = add_metrics_api(api.extensions, store, impl_->options.metric_resolution);
  impl_->handler = std::make_unique<ApiHandler>(impl_->store, api);
  kube::http::ServerOptions so;
  so.address = impl_->options.address;
  so.port = impl_->options.port;
  so.idle_timeout = std::chrono::seconds(90);  // kube-apiserver's (secure_serving.go)
  so.max_connections = impl_->options.max_connections;
  so.read_body_timeout = impl_->options.request_body_timeout;
  so.body_timeout_response = {
      504,
      {{"Content-Type", "application/json"}},
      timeout("request did not complete within requested timeout - context deadline exceeded")
          .to_json()};
  if (impl_->options.tls) {
    kube::http::CertificateAndKey serving = kube::http::make_server_certificate(
        impl_->ca, "tailor-cluster",
        {"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc",
         "kubernetes.default.svc.cluster.local"},
        serving_ips(impl_->options.address, kubernetes_ip), 3650);
    so.tls = kube::http::TlsServerConfig{.cert_chain_pem = serving.cert_pem + impl_->ca.cert_pem,
                                         .private_key_pem = serving.key_pem,
                                         .client_ca_pem = impl_->ca.cert_pem,
                                         .require_client_cert = false,
                                         .verify_client_in_handler = true};
  }
  ApiHandler* handler = impl_->handler.get();
  impl_->server = std::make_unique<kube::http::Server>(
      so, [handler](kube::http::Exchange& exchange) { handler->handle(exchange); });
  impl_->server->start();
  if (impl_->options.control_loops)
    impl_->control_loops = make_control_loops(store, api.extensions, impl_->ca.cert_pem,
                                              {.cluster_ip = kubernetes_ip,
                                               .address = endpoint_address(impl_->options.address),
                                               .port = impl_->server->port()});
  for (auto& loop : impl_->control_loops) loop->start();
  impl_->metrics_scraper->start();
}

void Cluster::stop() {
  if (impl_->metrics_scraper) impl_->metrics_scraper->stop();
  for (auto& loop : impl_->control_loops) loop->stop();
  impl_->store.stop_watches();
  if (impl_->server) impl_->server->stop();
}

std::uint16_t Cluster::port() const { return impl_->server->port(); }
std::string Cluster::url() const { return impl_->server->url(); }
const std::string& Cluster::ca_pem() const { return impl_->ca.cert_pem; }
const std::string& Cluster::token() const { return impl_->token; }
const SigningKey& Cluster::service_account_signing_key() const { return *impl_->signing_key; }
ObjectStore& Cluster::store() { return impl_->store; }

// The kubeconfig around one user entry (the lines under `user:`, indented by four spaces).
std::string Cluster::kubeconfig_for(const std::string& user_name,
                                    const std::string& user_fields) const {
  std::ostringstream y;
  y << "apiVersion: v1\nkind: Config\nclusters:\n- name: tailor\n  cluster:\n    server: " << url()
    << "\n";
  if (impl_->options.tls) {
    y << "    certificate-authority-data: " << kube::base64_encode(impl_->ca.cert_pem) << "\n";
  }
  y << "users:\n- name: " << user_name << "\n  user:\n"
    << user_fields
    << "contexts:\n- name: tailor\n  context:\n    cluster: tailor\n    user: " << user_name
    << "\n    namespace: default\ncurrent-context: tailor\n";
  return y.str();
}

std::string Cluster::kubeconfig() const {
  return kubeconfig_for("tailor-admin", "    token: " + impl_->token + "\n");
}

void Cluster::write_kubeconfig(const std::string& path) const {
  write_config_file(path, kubeconfig());
}

std::string Cluster::client_kubeconfig(const std::string& user,
                                       const std::vector<std::string>& groups) const {
  if (!impl_->options.tls) {
    throw std::runtime_error("client certificates need HTTPS (tailor-cluster serves plain HTTP)");
  }
  // Valid as long as the CA (ten years), like the serving certificate.
  kube::http::CertificateAndKey client =
      kube::http::make_client_certificate(impl_->ca, user, groups, 3650);
  return kubeconfig_for(user,
                        "    client-certificate-data: " + kube::base64_encode(client.cert_pem) +
                            "\n    client-key-data: " + kube::base64_encode(client.key_pem) + "\n");
}

void Cluster::write_client_kubeconfig(const std::string& path, const std::string& user,
                                      const std::vector<std::string>& groups) const {
  write_config_file(path, client_kubeconfig(user, groups));
}

}  // namespace tailor::embedded
