// The mutating admission webhook's HTTPS server: AdmissionReview v1 on POST, a size limit on
// requests, a time budget on the answer (late answers allow the pod unchanged, since the
// webhook is registered with failurePolicy Ignore and must never hold up pod creation), and a
// serving certificate that is either given as files (reloaded when they change, so cert-manager
// or the chart can rotate it without a restart) or generated with its own CA.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "controller/webhook/admission_review.h"

namespace tailor::controller::webhook {

// Decides the answer to one admission request; may throw (the pod is then allowed unchanged and
// the error logged).
using Admitter = std::function<AdmissionResponse(const AdmissionRequest&)>;

struct WebhookOptions {
  std::string address = "0.0.0.0";
  std::uint16_t port = 0;  // 0: any free port
  std::string path = "/mutate-pods";
  // PEM files; both empty: a CA and serving certificate are generated (ca_pem() for the caBundle).
  std::string cert_file{};
  std::string key_file{};
  std::vector<std::string> dns_names{"localhost"};  // of a generated certificate
  std::chrono::seconds cert_check_interval{10};
  std::size_t max_request_bytes = 1 << 20;
  std::chrono::milliseconds time_budget{500};
};

struct WebhookStats {
  std::uint64_t reviewed = 0;
  std::uint64_t patched = 0;
  std::uint64_t late = 0;      // answered unchanged because the budget ran out
  std::uint64_t failed = 0;    // the admitter threw
  std::uint64_t rejected = 0;  // malformed or oversized reviews
  std::uint64_t certificate_reloads = 0;
};

class WebhookServer {
 public:
  WebhookServer(WebhookOptions options, Admitter admitter);
  ~WebhookServer();
  WebhookServer(const WebhookServer&) = delete;
  WebhookServer& operator=(const WebhookServer&) = delete;

  void start();  // throws std::runtime_error (cannot listen, unreadable or invalid certificate)
  void stop();
  std::uint16_t port() const;
  std::string url() const;  // https://address:port/path
  // The CA of a generated certificate; "" when certificates come from files.
  const std::string& ca_pem() const;
  // Checks the certificate files now and reloads them when changed; false when they are
  // unreadable or invalid (the old certificate stays in use).
  bool reload_certificate_if_changed();
  WebhookStats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller::webhook
