// HTTP/1.1 client transport (plain or TLS) on Boost.Beast: a pool of keep-alive connections that
// concurrent callers share, per-request deadlines (async operations run on the caller's thread,
// because synchronous Beast operations cannot time out), and streamed response bodies with
// cancellation for watches. Beast and Asio stay out of this header.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "kube/http/server.h"  // Headers, find_header

namespace tailor::kube::http {

// The request never got a complete answer: connect/resolve/TLS failure, reset, timeout,
// malformed HTTP, or cancellation.
class ClientError : public std::runtime_error {
 public:
  enum class Kind { Connect, Tls, Io, Timeout, Protocol, Cancelled };
  ClientError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

struct ClientTlsConfig {
  std::string ca_pem{};  // empty: the system's trust store
  std::string client_cert_pem{};
  std::string client_key_pem{};
  bool insecure_skip_verify = false;
  std::string server_name{};  // SNI and the name checked against the certificate; "" : the host
};

struct ClientOptions {
  std::string base_url{};  // http(s)://host[:port][/prefix]; request targets are appended
  ClientTlsConfig tls{};
  std::size_t max_idle_connections = 8;
  std::uint64_t max_response_body = 1ull << 30;
};

struct ClientRequest {
  std::string method = "GET";
  std::string target{};  // path plus query, e.g. "/api/v1/pods?limit=5"
  Headers headers{};     // Host, Content-Length are set by the client
  std::string body{};
  std::chrono::milliseconds timeout{30000};  // whole exchange; for streams: until the headers
};

struct ClientResponse {
  int status = 0;
  Headers headers{};
  std::string body{};

  std::string_view header(std::string_view name) const { return find_header(headers, name); }
};

// Receives a streamed body piece by piece; return false to stop reading.
using BodySink = std::function<bool(std::string_view)>;
// Polled while a stream is idle (a few times a second); true cancels the stream.
using CancelCheck = std::function<bool()>;

class Client {
 public:
  // Throws std::invalid_argument for a bad base URL, ClientError(Tls) for unusable TLS material.
  explicit Client(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // One request and its whole answer. Throws ClientError. Thread-safe.
  ClientResponse send(const ClientRequest& request);

  // Sends the request, then feeds the body to sink as it arrives (chunked or not). Returns the
  // status and headers; the body is passed to sink only when status is 2xx, otherwise it is
  // returned in ClientResponse::body. Returns when the body ends, sink returns false, or
  // cancelled() turns true once the body is flowing (then nothing is thrown; before the
  // header it throws ClientError(Cancelled)). Throws ClientError on transport errors.
  ClientResponse stream(const ClientRequest& request, const BodySink& sink,
                        const CancelCheck& cancelled);

  // Connections opened so far (tests use it to see keep-alive at work).
  std::size_t connections_opened() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::kube::http
