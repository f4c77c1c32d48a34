// The one small HTTP endpoint of every Tailor process: GET /metrics (Prometheus text format
// 0.0.4) plus /livez, /readyz and /healthz (health.h), on http::Server.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "kube/http/server.h"
#include "kube/observe/health.h"
#include "kube/observe/metrics.h"

namespace tailor::kube::observe {

inline constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";

// The answer to one request: /metrics, a health path, or 404. Pure, for tests and for
// processes that mount these paths on a server of their own.
http::ServerResponse route(const http::ServerRequest& request, const metrics::Registry& registry,
                           const health::Checks& checks);

class Endpoint {
 public:
  // host "" listens on all interfaces; port 0 picks a free port. registry and checks must
  // outlive the endpoint.
  Endpoint(std::string host, std::uint16_t port, const metrics::Registry& registry,
           const health::Checks& checks);
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
