#include "kube/observe/endpoint.h"

#include <stdexcept>

namespace tailor::kube::observe {

http::ServerResponse route(const http::ServerRequest& request, const metrics::Registry& registry,
                           const health::Checks& checks) {
  if (request.path == "/metrics") {
    return http::ServerResponse{200, {{"Content-Type", kMetricsContentType}}, registry.serialize()};
  }
  if (auto answer = checks.serve(request)) return *std::move(answer);
  return http::ServerResponse{
      404,
      {{"Content-Type", "text/plain; charset=utf-8"}, {"X-Content-Type-Options", "nosniff"}},
      "404 page not found\n"};
}

Endpoint::Endpoint(std::string host, std::uint16_t port, const metrics::Registry& registry,
                   const health::Checks& checks) {
  http::ServerOptions options;
  options.address = host.empty() ? "0.0.0.0" : host;
  options.port = port;
  options.max_connections = 64;  // probes and scrapes, each a short request
  address_ = options.address + ":" + std::to_string(port);
  server_ = std::make_unique<http::Server>(options, [&registry, &checks](http::Exchange& ex) {
    ex.respond(route(ex.request(), registry, checks));
  });
}

Endpoint::~Endpoint() = default;

void Endpoint::start() {
  try {
    server_->start();
  } catch (const std::exception& e) {
    throw std::runtime_error("metrics and health endpoint on " + address_ + ": " + e.what());
  }
}

void Endpoint::stop() { server_->stop(); }
std::uint16_t Endpoint::port() const { return server_->port(); }
std::string Endpoint::url() const { return server_->url(); }

}  // namespace tailor::kube::observe
