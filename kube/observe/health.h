// Named health checks served as Kubernetes does on /livez, /readyz and /healthz
// (k8s.io/apiserver/pkg/server/healthz): "ok" or, with ?verbose, one "[+]name ok" line per check;
// on failure HTTP 500 with "[-]name failed: reason withheld" lines (the reason goes to the log and
// to /readyz/<name>); ?exclude=name skips a check; /<endpoint>/<name> runs one check.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "kube/http/server.h"

namespace tailor::kube::health {

// A check fails by throwing; the exception's message is the reason.
using CheckFn = std::function<void()>;

// Thread-safe; checks may be added while the endpoint serves. Every endpoint starts with "ping".
class Checks {
 public:
  Checks();
  ~Checks();
  Checks(const Checks&) = delete;
  Checks& operator=(const Checks&) = delete;

  // A liveness check: on /livez, /readyz and /healthz (restart the process when it fails).
  void add_livez(std::string name, CheckFn check);
  // A readiness check: on /readyz and /healthz only (stop sending traffic when it fails).
  void add_readyz(std::string name, CheckFn check);

  // The answer for a /livez, /readyz or /healthz request (or a path below them); nullopt for
  // any other path.
  std::optional<http::ServerResponse> serve(const http::ServerRequest& request) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::kube::health
