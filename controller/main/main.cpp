// tailor-controller: the Deployment in kube-system. Feeds the recommender from the node agents'
// usage stream, writes recommendations to policy status, resizes pods in place through
// pods/{name}/resize (recreating them when that cannot work), and sizes new pods through the
// mutating admission webhook. Only the elected leader writes; standbys keep their models fed.
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "controller/app/controller.h"
#include "controller/app/malloc_arenas.h"
#include "controller/usage/metrics_api_poller.h"
#include "controller/usage/prometheus_bootstrap.h"
#include "controller/usage/usage_server.h"
#include "controller/usage/usage_source_options.h"
#include "controller/webhook/registration.h"
#include "controller/webhook/webhook_server.h"
#include "kube/client/config.h"
#include "kube/client/leader_election_elector.h"
#include "kube/observe/common_options.h"
#include "kube/observe/log.h"
#include "kube/observe/metrics.h"

namespace tailor::controller {
namespace {

using kube::config::Schema;

struct MainOptions {
  kube::observe::CommonOptions common;
  ControllerOptions controller;
  kube::Duration pass_interval = std::chrono::seconds(10);
  bool leader_elect = true;
  std::string leader_namespace = "kube-system";
  std::string leader_name = "tailor-controller";
  std::string identity;
  std::string usage_address = "0.0.0.0:9443";
  std::string webhook_address = "0.0.0.0";
  int webhook_port = 8443;
  std::string webhook_cert_file, webhook_key_file;
  std::string webhook_ca_out;  // where to write a generated CA (for the caBundle)
  bool webhook_ephemeral_port = false;
  bool webhook_register = false;
  std::string ports_file;
  usage::UsageSourceOptions usage_sources;  // Prometheus history, metrics.k8s.io
};

void add_options(Schema& s, MainOptions& o) {
  kube::observe::add_common_options(s, o.common);
  s.add({.flag = "strategy",
         .yaml_key = "recommender.strategy",
         .help = "Recommender strategy: default (Tailor's ensemble) or vpa."},
        &o.controller.strategy);
  s.add({.flag = "pass-interval",
         .yaml_key = "passInterval",
         .help = "How often recommendations and updates are computed."},
        &o.pass_interval);
  s.add({.flag = "checkpoint-interval",
         .yaml_key = "recommender.checkpointInterval",
         .help = "How often the models are saved as VerticalScalingCheckpoints (and on exit)."},
        &o.controller.checkpoint_interval);
  s.add({.flag = "updates-per-second",
         .yaml_key = "updater.updatesPerSecond",
         .help = "Global rate limit of resizes and recreations."},
        &o.controller.updates_per_second);
  s.add({.flag = "eviction-tolerance",
         .yaml_key = "updater.evictionTolerance",
         .help = "Fraction of a workload's replicas that may be disrupted at once."},
        &o.controller.eviction_tolerance);
  s.add({.flag = "leader-elect",
         .yaml_key = "leaderElection.leaderElect",
         .help = "Elect a leader through a Lease; only the leader writes."},
        &o.leader_elect);
  s.add({.flag = "leader-elect-resource-namespace",
         .yaml_key = "leaderElection.resourceNamespace",
         .help = "Namespace of the leader Lease and of the state ConfigMap."},
        &o.leader_namespace);
  s.add({.flag = "leader-elect-resource-name",
         .yaml_key = "leaderElection.resourceName",
         .help = "Name of the leader Lease."},
        &o.leader_name);
  s.add({.flag = "identity",
         .yaml_key = "leaderElection.identity",
         .help = "This candidate's identity (default: hostname_pid)."},
        &o.identity);
  s.add({.flag = "usage-bind-address",
         .yaml_key = "usage.bindAddress",
         .help = "host:port of the gRPC usage stream from node agents."},
        &o.usage_address);
  s.add({.flag = "webhook-bind-address",
         .yaml_key = "webhook.bindAddress",
         .help = "Address of the admission webhook (HTTPS)."},
        &o.webhook_address);
  s.add({.flag = "webhook-port",
         .yaml_key = "webhook.port",
         .help = "Port of the admission webhook; 0 disables it."},
        &o.webhook_port, 0);
  s.add({.flag = "webhook-cert-file",
         .yaml_key = "webhook.certFile",
         .help = "Serving certificate (PEM), reloaded when it changes; empty: generated."},
        &o.webhook_cert_file);
  s.add({.flag = "webhook-key-file",
         .yaml_key = "webhook.keyFile",
         .help = "Private key of the serving certificate (PEM)."},
        &o.webhook_key_file);
  s.add({.flag = "webhook-ca-out",
         .yaml_key = "webhook.caOut",
         .help = "Write the generated webhook CA here (for a caBundle)."},
        &o.webhook_ca_out);
  s.add({.flag = "webhook-ephemeral-port",
         .yaml_key = "webhook.ephemeralPort",
         .help = "Listen on a free port the kernel picks instead of --webhook-port (local "
                 "clusters; the port is in --ports-file)."},
        &o.webhook_ephemeral_port);
  s.add({.flag = "webhook-register",
         .yaml_key = "webhook.register",
         .help = "Create or update the MutatingWebhookConfiguration tailor-controller to point "
                 "at this process (when no chart registers the webhook)."},
        &o.webhook_register);
  s.add({.flag = "ports-file",
         .yaml_key = "portsFile",
         .help = "Write the ports listened on as JSON {\"usage\",\"webhook\",\"metrics\"} "
                 "once all are listening (for ephemeral ports)."},
        &o.ports_file);
  s.add({.flag = "watch-vpa",
         .yaml_key = "vpa.watch",
         .help = "Also act on autoscaling.k8s.io/v1 VerticalPodAutoscaler objects."},
        &o.controller.view.watch_vpa);
  s.add({.flag = "upstream-vpa-running",
         .yaml_key = "vpa.upstreamRunning",
         .help = "The upstream VPA recommender runs in this cluster: leave it the VPA objects "
                 "without spec.recommenders (Tailor then takes only those naming \"tailor\")."},
        &o.controller.view.upstream_vpa_running);
  usage::add_usage_source_options(s, o.usage_sources);
}

sigset_t block_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
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

// Before the first pass (after a refresh: which pods belong to which policy, so that the history
// finds its models). Pods that no longer exist match no policy: their windows are
// counted as unmatched (VPA maps them through pod labels scraped into Prometheus; Tailor's
// checkpoints already keep what the models learnt from them).
void bootstrap_history(Controller& controller, const MainOptions& o, std::int64_t until_s,
                       const std::atomic<bool>& stopping) {
  const ControllerStats before = controller.stats();
  usage::bootstrap_from_prometheus(
      o.usage_sources.prometheus, until_s,
      [&](const usage::UsageWindow& w) { controller.on_usage(w); },
      [&] { return stopping.load(); });
  const ControllerStats after = controller.stats();
  kube::log::info("Usage history folded into the models",
                  {{"windows", after.windows - before.windows},
                   {"unmatched", after.windows_unmatched - before.windows_unmatched}});
}

int metrics_port(const std::vector<std::unique_ptr<kube::observe::Endpoint>>& endpoints) {
  return endpoints.empty() ? 0 : endpoints.front()->port();
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

int run(MainOptions& o, sigset_t signals) {
  const std::int64_t started_s = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count();
  kube::RestClient client(kube::load_config(o.common.kubeconfig));
  o.controller.state_namespace = o.leader_namespace;
  Controller controller(client, o.controller);
  kube::health::Checks checks;
  std::atomic<bool> synced{false};
  checks.add_readyz("informers", [&] {
    if (!synced) throw std::runtime_error("informers not synced yet");
  });
  auto endpoints = kube::observe::start_endpoints(o.common, kube::metrics::registry(), checks);
  controller.start();

  // With metrics-api, what the agents stream, so that the poller does not count it again.
  const bool metrics_api = o.usage_sources.metrics_source == "metrics-api";
  usage::StreamedContainers streamed;
  usage::UsageServer usage_server(
      {.address = o.usage_address, .streamed = metrics_api ? &streamed : nullptr},
      [&](const usage::UsageWindow& w) { controller.on_usage(w); });
  usage_server.start();
  kube::log::info("Usage stream listening", {{"port", usage_server.port()}});

  std::unique_ptr<webhook::WebhookServer> webhook_server;
  if (o.webhook_port > 0 || o.webhook_ephemeral_port) {
    webhook_server = std::make_unique<webhook::WebhookServer>(
        webhook::WebhookOptions{
            .address = o.webhook_address,
            .port = static_cast<std::uint16_t>(o.webhook_ephemeral_port ? 0 : o.webhook_port),
            .cert_file = o.webhook_cert_file,
            .key_file = o.webhook_key_file},
        [&](const webhook::AdmissionRequest& r) { return controller.admit(r); });
    webhook_server->start();
    if (!o.webhook_ca_out.empty() && !webhook_server->ca_pem().empty()) {
      std::ofstream(o.webhook_ca_out) << webhook_server->ca_pem();
    }
    kube::log::info("Admission webhook listening", {{"url", webhook_server->url()}});
    if (o.webhook_register) register_own_webhook(client, *webhook_server);
  }
  if (!o.ports_file.empty()) {
    write_ports_file(o.ports_file, usage_server.port(), webhook_server ? webhook_server->port() : 0,
                     metrics_port(endpoints));
  }

  std::unique_ptr<usage::MetricsApiPoller> metrics_poller;
  if (metrics_api) {
    metrics_poller = std::make_unique<usage::MetricsApiPoller>(
        client,
        usage::MetricsApiPollerOptions{.interval = o.usage_sources.metrics_api_interval,
                                       .streamed = &streamed},
        [&](const usage::UsageWindow& w) { controller.on_usage(w); });
  }

  std::atomic<bool> leading{!o.leader_elect};
  std::atomic<bool> state_loaded{false};
  std::unique_ptr<kube::LeaderElector> elector;
  if (o.leader_elect) {
    kube::LeaderElectionConfig config{
        .lease_namespace = o.leader_namespace,
        .lease_name = o.leader_name,
        .identity = o.identity.empty() ? default_identity() : o.identity};
    elector = std::make_unique<kube::LeaderElector>(
        std::make_shared<kube::RestLeaseLock>(client, o.leader_namespace, o.leader_name), config,
        kube::LeaderCallbacks{.on_started_leading = [&] { leading = true; },
                              .on_stopped_leading =
                                  [&] {
                                    leading = false;
                                    state_loaded = false;
                                  },
                              .on_new_leader = {}});
    elector->start();
  }

  std::atomic<bool> stopping{false};
  std::thread passes([&] {
    while (!controller.wait_for_sync(std::chrono::seconds(1))) {
      if (stopping) return;
    }
    synced = true;
    if (o.usage_sources.storage == "prometheus" || metrics_poller) {
      // Which pods belong to which policy, so that the first windows find their models.
      controller.refresh(kube::TimePoint(std::chrono::system_clock::now()));
    }
    if (o.usage_sources.storage == "prometheus")
      bootstrap_history(controller, o, started_s, stopping);
    if (metrics_poller) metrics_poller->start();
    while (!stopping) {
      auto now = kube::TimePoint(std::chrono::system_clock::now());
      try {
        if (leading) {
          if (!state_loaded) {
            controller.load_state();
            state_loaded = true;
          }
          controller.run_pass(now);
        } else {
          controller.refresh(now);
        }
      } catch (const std::exception& e) {
        kube::log::error(e, "Pass failed; retried at the next interval");
      }
      auto until = std::chrono::steady_clock::now() +
                   std::chrono::duration_cast<std::chrono::steady_clock::duration>(o.pass_interval);
      while (!stopping && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
  });

  int received = 0;
  sigwait(&signals, &received);
  kube::log::info("Shutting down", {{"signal", received}});
  stopping = true;
  passes.join();
  try {
    controller.save_checkpoints(kube::TimePoint(std::chrono::system_clock::now()));
  } catch (const std::exception& e) {
    kube::log::error(e, "Saving the checkpoints on exit failed");
  }
  if (elector) elector->stop();
  if (webhook_server) webhook_server->stop();
  if (metrics_poller) metrics_poller->stop();
  usage_server.stop();
  controller.stop();
  return 0;
}

}  // namespace
}  // namespace tailor::controller

int main(int argc, char** argv) {
  using namespace tailor;
  controller::limit_malloc_arenas();  // before any thread starts
  sigset_t signals = controller::block_signals();
  controller::MainOptions options;
  kube::config::Schema schema("tailor-controller",
                              "Tailor's controller: recommendations and in-place resizes.");
  controller::add_options(schema, options);
  if (auto code =
          kube::observe::init_process(schema, options.common, argc, argv, std::cout, std::cerr)) {
    return *code;
  }
  try {
    return controller::run(options, signals);
  } catch (const std::exception& e) {
    kube::log::error(e, "tailor-controller cannot run");
    return 1;
  }
}
