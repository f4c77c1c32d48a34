// Everything tailor-controller is started with, as parsed from its flags and config file
// (controller/app/controller_flags.cpp names each flag and YAML key). The defaults here are the
// flags' defaults.
#pragma once

#include <chrono>
#include <string>

#include "controller/app/controller.h"
#include "controller/usage/usage_server.h"
#include "controller/usage/usage_source_options.h"
#include "kube/observe/common_options.h"
#include "kube/observe/duration.h"

namespace tailor::controller {

struct ProcessOptions {
  kube::observe::CommonOptions common;
  ControllerOptions controller;
  kube::Duration pass_interval = std::chrono::seconds(10);
  bool leader_elect = true;
  std::string leader_namespace = "kube-system";  // also the state ConfigMap's namespace
  std::string leader_name = "tailor-controller";
  std::string identity;  // empty: hostname_pid
  // host:port of the usage stream; empty: $POD_IP:usage_port (the chart passes status.podIP),
  // else 127.0.0.1:usage_port — never every address.
  std::string usage_address;
  int usage_port = 9443;
  usage::UsageTlsFiles usage_tls;
  bool usage_insecure = false;  // tests and development only
  double usage_windows_per_second = 100;
  int usage_windows_burst = 5000;
  usage::UsageLimits usage_limits;
  std::string webhook_address = "0.0.0.0";
  int webhook_port = 8443;  // 0 disables the webhook (unless webhook_ephemeral_port)
  std::string webhook_cert_file, webhook_key_file;
  std::string webhook_ca_out;  // where to write a generated CA (for the caBundle)
  bool webhook_ephemeral_port = false;
  bool webhook_register = false;
  std::string ports_file;
  usage::UsageSourceOptions usage_sources;  // Prometheus history, metrics.k8s.io
};

}  // namespace tailor::controller
