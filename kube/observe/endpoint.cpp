#include "kube/observe/endpoint.h"

#include <stdexcept>

namespace tailor::kube::observe {

void Routes::add(std::string path, Serve serve) {
  std::unique_lock lock(mutex_);
  routes_[std::move(path)] = std::move(serve);
}

void Routes::remove(const std::string& path) {
  std::unique_lock lock(mutex_);
  routes_.erase(path);
}

std::optional<http::ServerResponse> Routes::serve(const http::ServerRequest& request) const {
  std::shared_lock lock(mutex_);  // held while serving, so remove() waits for it
  const auto it = routes_.find(request.path);
  if (it == routes_.end()) return std::nullopt;
  return it->second(request);
}

http::ServerResponse route(const http::ServerRequest& request, const metrics::Registry& registry,
                           const health::Checks& checks, const Routes* routes) {
  if (request.path == "/metrics") {
    return http::ServerResponse{200, {{"Content-Type", kMetricsContentType}}, registry.serialize()};
  }
  if (auto answer = checks.serve(request)) return *std::move(answer);
  if (routes) {
    if (auto answer = routes->serve(request)) return *std::move(answer);
  }
  return http::ServerResponse{
      404,
      {{"Content-Type", "text/plain; charset=utf-8"}, {"X-Content-Type-Options", "nosniff"}},
      "404 page not found\n"};
}

Endpoint::Endpoint(std::string host, std::uint16_t port, const metrics::Registry& registry,
                   const health::Checks& checks, const Routes* routes) {
  http::ServerOptions options;
  options.address = host.empty() ? "0.0.0.0" : host;
  options.port = port;
  options.max_connections = 64;  // probes and scrapes, each a short request
  address_ = options.address + ":" + std::to_string(port);
  server_ =
      std::make_unique<http::Server>(options, [&registry, &checks, routes](http::Exchange& ex) {
        ex.respond(route(ex.request(), registry, checks, routes));
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
