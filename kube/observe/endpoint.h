// The one small HTTP endpoint of every Tailor process: GET /metrics (Prometheus text format
// 0.0.4) plus /livez, /readyz and /healthz (health.h), on http::Server.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>

#include "kube/http/server.h"
#include "kube/observe/health.h"
#include "kube/observe/metrics.h"

namespace tailor::kube::observe {

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// Paths a process serves beside /metrics and the health checks (the node agent's
// /metrics/resource). Thread-safe: a path may be added while the endpoint serves.
class Routes {
 public:
  using Serve = std::function<http::ServerResponse(const http::ServerRequest&)>;
  void add(std::string path, Serve serve);
  // Once it returns, the path's Serve is neither running nor called again.
  void remove(const std::string& path);
  // The answer for a path added here; nullopt for any other.
  std::optional<http::ServerResponse> serve(const http::ServerRequest& request) const;

 private:
  mutable std::shared_mutex mutex_;  // shared while serving, exclusive to add or remove
  std::map<std::string, Serve> routes_;
};

// The answer to one request: /metrics, a health path, one of `routes`, or 404. Pure, for tests and
// for processes that mount these paths on a server of their own.
http::ServerResponse route(const http::ServerRequest& request, const metrics::Registry& registry,
                           const health::Checks& checks, const Routes* routes = nullptr);

class Endpoint {
 public:
  // host "" listens on all interfaces; port 0 picks a free port. registry and checks must
  // outlive the endpoint, and so must routes when given.
  Endpoint(std::string host, std::uint16_t port, const metrics::Registry& registry,
           const health::Checks& checks, const Routes* routes = nullptr);
  ~Endpoint();
  Endpoint(const Endpoint&) = delete;
  Endpoint& operator=(const Endpoint&) = delete;

  void start();  // throws std::runtime_error naming the address when it cannot bind
  void stop();
  std::uint16_t port() const;
  std::string url() const;

 private:
  std::unique_ptr<http::Server> server_;
  std::string address_;
};

}  // namespace tailor::kube::observe
