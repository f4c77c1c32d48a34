#include "controller/app/controller_process.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "controller/app/pass_loop.h"
#include "controller/usage/metrics_api_poller.h"
#include "controller/usage/streamed_containers.h"
#include "controller/usage/usage_server.h"
#include "controller/webhook/registration.h"
#include "controller/webhook/webhook_server.h"
#include "kube/client/config.h"
#include "kube/client/leader_election_elector.h"
#include "kube/observe/common_options.h"
#include "kube/observe/health.h"
#include "kube/observe/log.h"
#include "kube/observe/metrics.h"

namespace tailor::controller {
namespace {

std::int64_t unix_now_s() {
  return std::chrono::duration_cast<std::chrono::seconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string default_identity() {
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return std::string(host) + "_" + std::to_string(::getpid());
}

// A registration that fails is retried: the API server may still be starting with us.
void register_own_webhook(kube::RestClient& client, const webhook::WebhookServer& server) {
  for (int attempt = 1;; ++attempt) {
    try {
      webhook::register_webhook(client, {.url = server.url(), .ca_pem = server.ca_pem()});
      kube::log::info("Registered the admission webhook", {{"url", server.url()}});
      return;
    } catch (const std::exception& e) {
      if (attempt == 5) throw;
      kube::log::error(e, "Registering the admission webhook failed; retrying");
      std::this_thread::sleep_for(std::chrono::seconds(attempt));
    }
  }
}

// Written to a temporary name and renamed, so a reader never sees half a file.
void write_ports_file(const std::string& path, int usage, int webhook, int metrics) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << "{\"usage\":" << usage << ",\"webhook\":" << webhook << ",\"metrics\":" << metrics
        << "}\n";
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
  }
}

}  // namespace

// The parts in the order they are built: each uses only those above it (but for the passes, which
// start the poller), and teardown() destroys them in reverse, the passes stopped first.
struct ControllerProcess::Impl {
  explicit Impl(ProcessOptions o) : options(std::move(o)) {
    options.controller.state_namespace = options.leader_namespace;
  }

  void start_all();
  void build_controller();
  void start_endpoints();
  void start_usage_server();
  void start_webhook();
  void make_poller();
  void start_elector();
  void stop_in_order();
  void teardown();

  bool metrics_api() const { return options.usage_sources.metrics_source == "metrics-api"; }
  int metrics_port() const { return endpoints.empty() ? 0 : endpoints.front()->port(); }
  void sink(const usage::UsageWindow& w) { controller->on_usage(w); }

  ProcessOptions options;
  std::unique_ptr<kube::RestClient> client;
  std::unique_ptr<Controller> controller;
  std::unique_ptr<PassLoop> passes;
  kube::health::Checks checks;
  std::vector<std::unique_ptr<kube::observe::Endpoint>> endpoints;
  // With metrics-api, what the agents stream, so that the poller does not count it again.
  usage::StreamedContainers streamed;
  std::unique_ptr<usage::UsageServer> usage_server;
  std::unique_ptr<webhook::WebhookServer> webhook_server;
  std::unique_ptr<usage::MetricsApiPoller> metrics_poller;
  std::unique_ptr<kube::LeaderElector> elector;
  bool started = false;
  bool running = false;
};

void ControllerProcess::Impl::start_all() {
  const std::int64_t started_s = unix_now_s();
  build_controller();
  start_endpoints();
  controller->start();
  start_usage_server();
  if (options.webhook_port > 0 || options.webhook_ephemeral_port) start_webhook();
  if (!options.ports_file.empty()) {
    write_ports_file(options.ports_file, usage_server->port(),
                     webhook_server ? webhook_server->port() : 0, metrics_port());
  }
  if (metrics_api()) make_poller();
  if (options.leader_elect) start_elector();
  passes->start(started_s, metrics_poller.get());
}

void ControllerProcess::Impl::build_controller() {
  client = std::make_unique<kube::RestClient>(kube::load_config(options.common.kubeconfig));
  controller = std::make_unique<Controller>(*client, options.controller);
  passes = std::make_unique<PassLoop>(*controller, options);
}

// Ready once the informers have synced: until then a pass would act on a partial view.
void ControllerProcess::Impl::start_endpoints() {
  checks.add_readyz("informers", [this] {
    if (!passes || !passes->synced()) throw std::runtime_error("informers not synced yet");
  });
  endpoints = kube::observe::start_endpoints(options.common, kube::metrics::registry(), checks);
}

// Windows count only for pods the informer has on the agent's node.
void ControllerProcess::Impl::start_usage_server() {
  const ProcessOptions& o = options;
  const char* pod_ip = std::getenv("POD_IP");
  usage_server = std::make_unique<usage::UsageServer>(
      usage::UsageServerOptions{
          .address = usage::usage_bind_address(o.usage_address, pod_ip ? pod_ip : "", o.usage_port),
          .tls = o.usage_tls,
          .insecure = o.usage_insecure,
          .pod_node = [this](const std::string& ns,
                             const std::string& pod) -> std::optional<std::string> {
            auto facts = controller->view().pod(ns, pod);
            if (!facts) return std::nullopt;
            return facts->node_name;
          },
          .windows_per_second = o.usage_windows_per_second,
          .windows_burst = o.usage_windows_burst,
          .streamed = metrics_api() ? &streamed : nullptr,
          .limits = o.usage_limits},
      [this](const usage::UsageWindow& w) { sink(w); });
  usage_server->start();
  if (o.usage_insecure) {
    kube::log::warning("Usage stream is plaintext and unauthenticated (--usage-insecure)", {});
  }
  kube::log::info("Usage stream listening", {{"port", usage_server->port()}});
}

void ControllerProcess::Impl::start_webhook() {
  const ProcessOptions& o = options;
  webhook_server = std::make_unique<webhook::WebhookServer>(
      webhook::WebhookOptions{
          .address = o.webhook_address,
          .port = static_cast<std::uint16_t>(o.webhook_ephemeral_port ? 0 : o.webhook_port),
          .cert_file = o.webhook_cert_file,
          .key_file = o.webhook_key_file},
      [this](const webhook::AdmissionRequest& r) { return controller->admit(r); });
  webhook_server->start();
  if (!o.webhook_ca_out.empty() && !webhook_server->ca_pem().empty()) {
    std::ofstream(o.webhook_ca_out) << webhook_server->ca_pem();
  }
  kube::log::info("Admission webhook listening", {{"url", webhook_server->url()}});
  if (o.webhook_register) register_own_webhook(*client, *webhook_server);
}

// Started by the passes once the informers have synced.
void ControllerProcess::Impl::make_poller() {
  metrics_poller = std::make_unique<usage::MetricsApiPoller>(
      *client,
      usage::MetricsApiPollerOptions{.interval = options.usage_sources.metrics_api_interval,
                                     .streamed = &streamed},
      [this](const usage::UsageWindow& w) { sink(w); });
}

void ControllerProcess::Impl::start_elector() {
  const ProcessOptions& o = options;
  kube::LeaderElectionConfig config{
      .lease_namespace = o.leader_namespace,
      .lease_name = o.leader_name,
      .identity = o.identity.empty() ? default_identity() : o.identity};
  elector = std::make_unique<kube::LeaderElector>(
      std::make_shared<kube::RestLeaseLock>(*client, o.leader_namespace, o.leader_name), config,
      kube::LeaderCallbacks{.on_started_leading = [this] { passes->started_leading(); },
                            .on_stopped_leading = [this] { passes->stopped_leading(); },
                            .on_new_leader = {}});
  elector->start();
}

// The passes first, so that the checkpoints written next are the last ones; then the lease is
// released (a standby takes over without waiting for it to expire) before the servers close.
void ControllerProcess::Impl::stop_in_order() {
  passes->stop();
  try {
    controller->save_checkpoints(kube::TimePoint(std::chrono::system_clock::now()));
  } catch (const std::exception& e) {
    kube::log::error(e, "Saving the checkpoints on exit failed");
  }
  if (elector) elector->stop();
  if (webhook_server) webhook_server->stop();
  if (metrics_poller) metrics_poller->stop();
  usage_server->stop();
  controller->stop();
}

// Each part's destructor stops it; also what cleans up after a start that failed half-way.
void ControllerProcess::Impl::teardown() {
  if (passes) passes->stop();  // it uses the poller and the controller
  elector.reset();
  metrics_poller.reset();
  webhook_server.reset();
  usage_server.reset();
  endpoints.clear();
  passes.reset();
  controller.reset();
  client.reset();
}

ControllerProcess::ControllerProcess(ProcessOptions options)
    : impl_(std::make_unique<Impl>(std::move(options))) {}

ControllerProcess::~ControllerProcess() { stop(); }

void ControllerProcess::start() {
  if (impl_->started) throw std::logic_error("ControllerProcess::start called twice");
  impl_->started = true;
  try {
    impl_->start_all();
  } catch (...) {
    impl_->teardown();
    throw;
  }
  impl_->running = true;
}

void ControllerProcess::stop() {
  if (!impl_->running) return;
  impl_->running = false;
  impl_->stop_in_order();
  impl_->teardown();
}

int ControllerProcess::usage_port() const {
  return impl_->usage_server ? impl_->usage_server->port() : 0;
}

int ControllerProcess::webhook_port() const {
  return impl_->webhook_server ? impl_->webhook_server->port() : 0;
}

int ControllerProcess::metrics_port() const { return impl_->metrics_port(); }

}  // namespace tailor::controller
