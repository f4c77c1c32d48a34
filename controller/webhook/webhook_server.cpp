#include "controller/webhook/webhook_server.h"

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "kube/http/server.h"
#include "kube/http/tls_certs.h"

namespace tailor::controller::webhook {
namespace {

namespace fs = std::filesystem;
using kube::http::Exchange;
using kube::http::ServerResponse;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("webhook: cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Size and modification time of both files: a change of either means a new certificate.
std::string file_stamp(const std::string& cert, const std::string& key) {
  std::error_code ec;
  std::ostringstream s;
  for (const std::string& f : {cert, key}) {
    auto size = fs::file_size(f, ec);
    auto time = fs::last_write_time(f, ec);
    s << f << ':' << (ec ? 0 : size) << ':' << time.time_since_epoch().count() << ';';
  }
  return s.str();
}

ServerResponse json(int status, std::string body) {
  return {status, {{"Content-Type", "application/json"}}, std::move(body)};
}

// The answer of a review the admitter could not give in time or at all.
std::string unchanged(const AdmissionRequest& request, const std::string& warning) {
  AdmissionResponse r{.uid = request.uid};
  r.warnings.push_back(warning);
  return admission_review_response(r);
}

}  // namespace

struct WebhookServer::Impl {
  WebhookOptions options;
  Admitter admitter;
  std::string ca_pem;
  std::string stamp;
  std::unique_ptr<kube::http::Server> server;
  mutable std::mutex mutex;  // stats, stamp
  WebhookStats stats;
  std::mutex stop_mutex;
  std::condition_variable stop_cv;
  bool stopping = false;
  std::thread watcher;

  kube::http::TlsServerConfig initial_tls();
  void serve(Exchange& exchange);
  std::string review(const AdmissionRequest& request);
  void count(std::uint64_t WebhookStats::*field) {
    std::lock_guard lock(mutex);
    ++(stats.*field);
  }
  bool reload_if_changed();
  void watch_certificates();
};

kube::http::TlsServerConfig WebhookServer::Impl::initial_tls() {
  if (options.cert_file.empty() != options.key_file.empty()) {
    throw std::runtime_error("webhook: give both a certificate file and a key file, or neither");
  }
  if (!options.cert_file.empty()) {
    stamp = file_stamp(options.cert_file, options.key_file);
    return {read_file(options.cert_file), read_file(options.key_file), "", false};
  }
  kube::http::CertificateAndKey ca = kube::http::make_ca("tailor-webhook-ca", 3650);
  kube::http::CertificateAndKey serving = kube::http::make_server_certificate(
      ca, options.dns_names.empty() ? "tailor-webhook" : options.dns_names.front(),
      options.dns_names, {"127.0.0.1"}, 3650);
  ca_pem = ca.cert_pem;
  return {serving.cert_pem + ca.cert_pem, serving.key_pem, "", false};
}

// The admitter runs on its own thread so that a slow decision cannot exceed the budget; a late
// result is dropped.
std::string WebhookServer::Impl::review(const AdmissionRequest& request) {
  struct Shared {
    std::mutex m;
    std::condition_variable cv;
    bool done = false;
    std::string answer;
    bool failed = false;
  };
  auto shared = std::make_shared<Shared>();
  std::thread([shared, request, admit = admitter] {
    std::string answer;
    bool failed = false;
    try {
      answer = admission_review_response(admit(request));
    } catch (const std::exception& e) {
      failed = true;
      answer = unchanged(request, std::string("tailor: no recommendation applied: ") + e.what());
    }
    std::lock_guard lock(shared->m);
    shared->answer = std::move(answer);
    shared->failed = failed;
    shared->done = true;
    shared->cv.notify_all();
  }).detach();
  std::unique_lock lock(shared->m);
  if (!shared->cv.wait_for(lock, options.time_budget, [&] { return shared->done; })) {
    count(&WebhookStats::late);
    return unchanged(request, "tailor: no recommendation applied: the webhook ran out of time");
  }
  if (shared->failed) count(&WebhookStats::failed);
  return shared->answer;
}

void WebhookServer::Impl::serve(Exchange& exchange) {
  const kube::http::ServerRequest& req = exchange.request();
  if (req.path != options.path) {
    exchange.respond({404, {{"Content-Type", "text/plain"}}, "not found\n"});
    return;
  }
  if (req.method != "POST") {
    exchange.respond({405, {{"Content-Type", "text/plain"}, {"Allow", "POST"}}, "use POST\n"});
    return;
  }
  if (req.body.size() > options.max_request_bytes) {
    count(&WebhookStats::rejected);
    exchange.respond({413, {{"Content-Type", "text/plain"}}, "request too large\n"});
    return;
  }
  AdmissionRequest request;
  try {
    request = parse_admission_review(req.body);
  } catch (const ReviewError& e) {
    count(&WebhookStats::rejected);
    exchange.respond({400, {{"Content-Type", "text/plain"}}, std::string(e.what()) + "\n"});
    return;
  }
  count(&WebhookStats::reviewed);
  std::string answer = review(request);
  if (answer.find("\"patch\"") != std::string::npos) count(&WebhookStats::patched);
  exchange.respond(json(200, std::move(answer)));
}

bool WebhookServer::Impl::reload_if_changed() {
  std::string now = file_stamp(options.cert_file, options.key_file);
  {
    std::lock_guard l(mutex);
    if (now == stamp) return true;
  }
  try {
    server->reload_tls({read_file(options.cert_file), read_file(options.key_file), "", false});
  } catch (const std::exception&) {
    return false;  // half-written files during a rotation: the next check retries
  }
  std::lock_guard l(mutex);
  stamp = now;
  ++stats.certificate_reloads;
  return true;
}

void WebhookServer::Impl::watch_certificates() {
  std::unique_lock lock(stop_mutex);
  while (!stop_cv.wait_for(lock, options.cert_check_interval, [&] { return stopping; })) {
    lock.unlock();
    reload_if_changed();
    lock.lock();
  }
}

WebhookServer::WebhookServer(WebhookOptions options, Admitter admitter)
    : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->admitter = std::move(admitter);
}

WebhookServer::~WebhookServer() { stop(); }

void WebhookServer::start() {
  kube::http::ServerOptions so;
  so.address = impl_->options.address;
  so.port = impl_->options.port;
  so.tls = impl_->initial_tls();
  Impl* impl = impl_.get();
  impl_->server = std::make_unique<kube::http::Server>(
      so, [impl](Exchange& exchange) { impl->serve(exchange); });
  impl_->server->start();
  if (!impl_->options.cert_file.empty()) {
    impl_->watcher = std::thread([impl] { impl->watch_certificates(); });
  }
}

void WebhookServer::stop() {
  {
    std::lock_guard lock(impl_->stop_mutex);
    impl_->stopping = true;
  }
  impl_->stop_cv.notify_all();
  if (impl_->watcher.joinable()) impl_->watcher.join();
  if (impl_->server) impl_->server->stop();
}

std::uint16_t WebhookServer::port() const { return impl_->server->port(); }

std::string WebhookServer::url() const { return impl_->server->url() + impl_->options.path; }

const std::string& WebhookServer::ca_pem() const { return impl_->ca_pem; }

bool WebhookServer::reload_certificate_if_changed() {
  return impl_->options.cert_file.empty() || impl_->reload_if_changed();
}

WebhookStats WebhookServer::stats() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->stats;
}

}  // namespace tailor::controller::webhook
