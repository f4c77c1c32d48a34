// A small HTTP/1.1 server (plain or TLS, optional client-certificate authentication) on
// Boost.Beast. One thread per connection, so a handler may block, e.g. to stream a watch; the
// number of connections is bounded (max_connections) and every read has a deadline, so idle or
// slow clients cannot hold threads and memory without end.
// Used by every process's /metrics + health endpoint, by the test servers, by the admission
// webhook and by tailor-cluster. Beast and Asio stay out of this header.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tailor::kube::http {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Case-insensitive header lookup; empty when absent.
std::string_view find_header(const Headers& headers, std::string_view name);

struct ServerRequest {
  std::string method;                                      // "GET", "POST", ...
  std::string target;                                      // path plus query, as sent
  std::string path;                                        // percent-decoded path, no query
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  Headers headers;
  std::string body;
  // From a verified client certificate (TLS with client_ca_pem only); empty otherwise.
  std::string peer_common_name;
  std::vector<std::string> peer_organizations;
  // Distinct for each TCP connection of a server (tests use it to see keep-alive at work).
  std::uint64_t connection_id = 0;

  std::string_view header(std::string_view name) const { return find_header(headers, name); }
  // First value of a query parameter; nullopt when absent.
  std::optional<std::string> query_param(std::string_view name) const;
};

// Body text owned elsewhere (e.g. a list's shared stored objects), sent as it is: a large body
// need not be joined into one string first. `owner` keeps what the pieces point into alive
// until the response is written.
struct BodyPieces {
  std::vector<std::string_view> pieces{};
  std::shared_ptr<const void> owner{};
  std::size_t size() const;
};

struct ServerResponse {
  int status = 200;
  Headers headers{};  // Content-Type, Retry-After, ...; Content-Length is set by the server
  std::string body{};
  BodyPieces more_body{};  // sent after `body`, as part of the same body
};

// One request and its answer. A handler either calls respond() once, or streams:
// start_stream(), then write() chunks (chunked transfer encoding), then finish().
class Exchange {
 public:
  virtual ~Exchange() = default;
  virtual const ServerRequest& request() const = 0;
  virtual void respond(ServerResponse response) = 0;
  virtual void start_stream(int status, Headers headers) = 0;
  // Sends one chunk now; false once the peer has gone (the handler should return).
  virtual bool write(std::string_view chunk) = 0;
  // Sends one chunk made of these pieces, without joining them into one string first.
  virtual bool write_pieces(std::span<const std::string_view> pieces) = 0;
  virtual void finish() = 0;
  // Drops the TCP connection without a proper end (tests use it to simulate failures).
  virtual void abort() = 0;
  // Blocks until the connection is over (peer gone, aborted, or the server stopping), at most
  // max; true when it is over. Long-running handlers (watches, "hanging" test handlers) wait on
  // this so that Server::stop() can end them.
  virtual bool wait_closed(std::chrono::milliseconds max) {
    (void)max;
    return false;
  }
  bool closed() { return wait_closed(std::chrono::milliseconds(0)); }
};

using Handler = std::function<void(Exchange&)>;

struct TlsServerConfig {
  std::string cert_chain_pem{};
  std::string private_key_pem{};
  // When set, clients must present a certificate signed by this CA.
  std::string client_ca_pem{};
  bool require_client_cert = false;  // with client_ca_pem: reject clients without a cert
  // With client_ca_pem: complete the handshake whatever certificate the client presents and leave
  // the verdict to the handler (peer_common_name stays empty for one the CA did not sign), as
  // kube-apiserver does (tls.RequestClientCert; its x509 authenticator answers 401).
  bool verify_client_in_handler = false;
};

struct ServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 0;  // 0: pick a free port (see Server::port())
  std::optional<TlsServerConfig> tls;
  // Connections waiting longer than this for their next (or first) request are closed; zero or
  // less: no idle timeout (Go's http.Server IdleTimeout).
  std::chrono::seconds idle_timeout{120};
  // How long a connection may take over its TLS handshake, and each request over its headers
  // (the first from the connection's start, or over TLS from the handshake's end — so the two
  // may take up to twice this, as in Go —; the next ones from their first byte); the body is
  // not bound by it. Past it the connection is closed without an answer. Zero or less: no
  // limit (Go's http.Server ReadHeaderTimeout; kube-apiserver sets 32 s); more than a day
  // counts as a day.
  std::chrono::milliseconds read_header_timeout{std::chrono::seconds(32)};
  // How long a request's body may take to arrive, from the end of its headers. Past it the
  // server sends body_timeout_response and closes the connection. Go's http.Server has no body
  // deadline of its own (ReadTimeout covers the headers too); kube-apiserver bounds a request,
  // body included, by its request timeout (--request-timeout, 60 s) and answers 504. Zero or
  // less: no limit; more than a day counts as a day.
  std::chrono::milliseconds read_body_timeout{std::chrono::seconds(60)};
  ServerResponse body_timeout_response{
      408, {{"Content-Type", "text/plain"}}, "request body not received in time\n"};
  // Connections served at once. Past it the server accepts no more until one ends: they wait in
  // the listen backlog (as Go's netutil.LimitListener), so idle clients cannot make a thread
  // each without end; the read deadlines end the idle ones. Zero: no limit.
  std::size_t max_connections = 512;
};

class Server {
 public:
  Server(ServerOptions options, Handler handler);
  ~Server();  // stops
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  void start();  // binds and listens; throws std::runtime_error when it cannot
  void stop();   // closes the listener and every open connection, joins threads
  // New certificate and key (and client CA) for connections accepted from now on: certificate
  // rotation without a restart. Throws std::runtime_error on an invalid configuration, keeping
  // the old one.
  void reload_tls(const TlsServerConfig& config);
  std::uint16_t port() const;
  std::string url() const;  // e.g. "https://127.0.0.1:41234"

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::kube::http
