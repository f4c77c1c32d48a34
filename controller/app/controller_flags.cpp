#include "controller/app/controller_flags.h"

#include "controller/usage/usage_source_options.h"
#include "kube/observe/common_options.h"

namespace tailor::controller {
namespace {

using kube::config::Schema;

// What the usage stream's server may take (the rest of UsageLimits is fixed, with reasons).
void add_usage_limit_options(Schema& s, usage::UsageLimits& l) {
  s.add({.flag = "usage-max-connections",
         .yaml_key = "usage.maxConnections",
         .help = "Connections the usage port holds at once, silent or streaming: above the number "
                 "of nodes (past it a client waits in the kernel's backlog until one closes; 0: "
                 "no cap)."},
        &l.max_connections, 0);
  s.add({.flag = "usage-max-threads",
         .yaml_key = "usage.maxThreads",
         .help = "Threads of the usage stream's server, one per open agent stream: above the "
                 "number of nodes (past it a new stream gets RESOURCE_EXHAUSTED and retries)."},
        &l.max_threads, 2);
  s.add({.flag = "usage-max-memory-mib",
         .yaml_key = "usage.maxMemoryMiB",
         .help = "Memory (MiB) of all the usage stream's connections together."},
        &l.max_memory_mib, 1);
  s.add({.flag = "usage-handshake-timeout",
         .yaml_key = "usage.handshakeTimeout",
         .help = "A usage connection that has sent nothing by then is closed, and one that has "
                 "not finished its TLS handshake within as long again."},
        &l.handshake_timeout);
  s.add({.flag = "usage-idle-timeout",
         .yaml_key = "usage.idleTimeout",
         .help = "A usage connection with no open stream for this long is closed (GOAWAY)."},
        &l.idle_timeout);
  s.add({.flag = "usage-stall-timeout",
         .yaml_key = "usage.stallTimeout",
         .help = "A usage stream that delivers no whole report for this long is cancelled (keep "
                 "above the agents' --usage-report-interval; 0: never)."},
        &l.stall_timeout);
}

// The usage stream moves pods: only node agents with a certificate from the usage CA may use it.
void add_usage_stream_options(Schema& s, ProcessOptions& o) {
  s.add({.flag = "usage-bind-address",
         .yaml_key = "usage.bindAddress",
         .help = "host:port of the gRPC usage stream from node agents (default: "
                 "$POD_IP:--usage-port, else 127.0.0.1:--usage-port; never every address unless "
                 "given)."},
        &o.usage_address);
  s.add({.flag = "usage-port",
         .yaml_key = "usage.port",
         .help = "Port of the usage stream when --usage-bind-address is not given."},
        &o.usage_port, 1);
  s.add({.flag = "usage-tls-cert-file",
         .yaml_key = "usage.tls.certFile",
         .help = "Serving certificate of the usage stream (PEM)."},
        &o.usage_tls.cert_file);
  s.add({.flag = "usage-tls-key-file",
         .yaml_key = "usage.tls.keyFile",
         .help = "Private key of the usage stream's serving certificate (PEM)."},
        &o.usage_tls.key_file);
  s.add({.flag = "usage-client-ca-file",
         .yaml_key = "usage.tls.clientCAFile",
         .help = "CA (PEM) of the node agents' client certificates (the usage CA; in the "
                 "chart, the CA of the kubelets' client certificates), subject "
                 "CN=system:node:<nodeName>, O=system:nodes: their windows count only for pods "
                 "bound to that node."},
        &o.usage_tls.client_ca_file);
  s.add({.flag = "usage-insecure",
         .yaml_key = "usage.insecure",
         .help = "Plaintext usage stream that believes the node a report names: anyone who "
                 "reaches the port moves pods. Tests and development only."},
        &o.usage_insecure);
  s.add({.flag = "usage-windows-per-second",
         .yaml_key = "usage.windowsPerSecond",
         .help = "Each agent stream's rate limit; windows beyond it are dropped and counted "
                 "(0: unlimited)."},
        &o.usage_windows_per_second);
  s.add({.flag = "usage-windows-burst",
         .yaml_key = "usage.windowsBurst",
         .help = "Windows an agent stream may send at once (all its containers each report)."},
        &o.usage_windows_burst, 1);
  add_usage_limit_options(s, o.usage_limits);
}

}  // namespace

void add_controller_options(Schema& s, ProcessOptions& o) {
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
  s.add({.flag = "sample-period",
         .yaml_key = "recommender.samplePeriod",
         .help = "Each pod's usage windows are folded into one model sample per period (mean and "
                 "peaks). The models are tuned on 5m, as tailor replay feeds them; shorter only "
                 "for demos and tests. At least 1s."},
        &o.controller.sample_period);
  s.add({.flag = "record-usage",
         .yaml_key = "recommender.recordUsage",
         .help = "Append every usage window received to this file, a recording tailor replay "
                 "reads (empty: none)."},
        &o.controller.record_usage);
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
  add_usage_stream_options(s, o);
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
         .help = "Also act on autoscaling.k8s.io/v1 VerticalPodAutoscaler objects (default "
                 "false, as the chart's controller.watchVPA: an upstream VPA would act on them "
                 "too)."},
        &o.controller.view.watch_vpa);
  s.add({.flag = "upstream-vpa-running",
         .yaml_key = "vpa.upstreamRunning",
         .help = "The upstream VPA recommender runs in this cluster: leave it the VPA objects "
                 "without spec.recommenders (Tailor then takes only those naming \"tailor\")."},
        &o.controller.view.upstream_vpa_running);
  usage::add_usage_source_options(s, o.usage_sources);
}

}  // namespace tailor::controller
