#include "kube/http/client.h"

#include <openssl/ssl.h>
#include <sys/mman.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "kube/http/tls_ciphers.h"
#include "kube/http/tls_io.h"
#include "kube/http/url.h"

namespace tailor::kube::http {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;
using Clock = std::chrono::steady_clock;

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(100);
// Bodies of known length from this size on are read without Beast's parser (read_body_direct).
constexpr std::uint64_t kDirectBodyMin = 1 << 20;
// What read_body_direct receives per call: as much as TLS read-ahead holds, small enough for L2.
constexpr std::size_t kBodyChunk = 256 * 1024;
constexpr Clock::time_point kNoDeadline = Clock::time_point::max();

bool is_ip_literal(const std::string& host) {
  error_code ec;
  net::ip::make_address(host, ec);
  return !ec;
}

// The connection went away before any byte of the answer arrived: on a reused keep-alive
// connection this is the server having closed it while idle, and the request may be resent.
bool is_stale_close(const error_code& ec) {
  return ec == bhttp::error::end_of_stream || ec == net::error::eof ||
         ec == net::error::connection_reset || ec == net::error::broken_pipe ||
         ec == ssl::error::stream_truncated;
}

// A body of hundreds of MiB lands in fresh memory: one page fault per 4 KiB page costs more
// than reading it. 2 MiB pages where the kernel has them (transparent huge pages on request).
void prefer_huge_pages(char* data, std::size_t size) {
  constexpr std::uintptr_t kHuge = 2 << 20;
  std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kHuge - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

struct StaleConnection {
  error_code ec;
};

// One connection; every operation runs asynchronously on its own io_context, driven on the
// calling thread, with a timer enforcing the deadline and polling the cancel check.
class Connection {
 public:
  Connection(const Url& url, ssl::context* tls, const ClientTlsConfig& tls_config)
      : url_(url), tls_config_(tls_config) {
    if (tls != nullptr) tls_stream_.emplace(io_, *tls);
  }

  bool connected() const { return connected_; }
  bool reusable() const { return connected_ && !broken_; }

  void connect(Clock::time_point deadline, const std::string& what) {
    tcp::resolver resolver(io_);
    tcp::resolver::results_type endpoints;
    error_code ec = run(
        [&](auto handler) {
          resolver.async_resolve(url_.host, std::to_string(url_.port),
                                 [&endpoints, handler](error_code e, auto results) {
                                   endpoints = results;
                                   handler(e);
                                 });
        },
        deadline, nullptr, what);
    if (ec) throw ClientError(ClientError::Kind::Connect, what + ": resolve: " + ec.message());
    ec = run(
        [&](auto handler) {
          net::async_connect(socket(), endpoints, [handler](error_code e, auto) { handler(e); });
        },
        deadline, nullptr, what);
    if (ec) throw ClientError(ClientError::Kind::Connect, what + ": connect: " + ec.message());
    socket().set_option(tcp::no_delay(true), ec);
    if (tls_stream_) handshake(deadline, what);
    connected_ = true;
  }

  // Writes the request; then reads the header and the body (to sink when given and 2xx).
  ClientResponse exchange(bhttp::request<bhttp::string_body>& req, Clock::time_point deadline,
                          std::uint64_t body_limit, const BodySink* sink,
                          const CancelCheck* cancelled, const std::string& what) {
    error_code ec = with_stream([&](auto& stream) {
      return run(
          [&](auto handler) {
            bhttp::async_write(stream, req, [handler](error_code e, std::size_t) { handler(e); });
          },
          deadline, cancelled, what);
    });
    if (ec) fail_io(ec, true, what + ": sending request");
    return sink == nullptr ? read_whole(deadline, body_limit, cancelled, what)
                           : read_streamed(deadline, body_limit, *sink, cancelled, what);
  }

 private:
  tcp::socket& socket() { return tls_stream_ ? tls_stream_->next_layer() : plain_; }

  template <class F>
  error_code with_stream(F&& f) {
    if (tls_io_) return f(*tls_io_);
    return f(plain_);
  }

  void handshake(Clock::time_point deadline, const std::string& what) {
    const std::string& name = tls_config_.server_name.empty() ? url_.host : tls_config_.server_name;
    if (!is_ip_literal(name)) SSL_set_tlsext_host_name(tls_stream_->native_handle(), name.c_str());
    if (!tls_config_.insecure_skip_verify) {
      tls_stream_->set_verify_callback(ssl::host_name_verification(name));
    }
    // Through TlsIo, not Asio's engine: records arriving with the server's Finished must stay
    // in the SSL the connection goes on reading from.
    tls_io_.emplace(socket(), tls_stream_->native_handle());
    error_code ec = run(
        [&](auto handler) {
          tls_io_->async_handshake([handler](error_code e, std::size_t) { handler(e); });
        },
        deadline, nullptr, what);
    if (ec) throw ClientError(ClientError::Kind::Tls, what + ": TLS handshake: " + ec.message());
  }

  ClientResponse read_whole(Clock::time_point deadline, std::uint64_t body_limit,
                            const CancelCheck* cancelled, const std::string& what) {
    bhttp::response_parser<bhttp::string_body> parser;
    parser.body_limit(body_limit);
    error_code ec = with_stream([&](auto& stream) {
      return run(
          [&](auto handler) {
            bhttp::async_read_header(stream, buffer_, parser,
                                     [handler](error_code e, std::size_t) { handler(e); });
          },
          deadline, cancelled, what);
    });
    if (ec) fail_io(ec, !parser.got_some(), what + ": reading response");
    auto length = parser.content_length();  // boost::optional
    if (length && *length >= kDirectBodyMin && !parser.is_done()) {
      return read_body_direct(parser, *length, deadline, cancelled, what);
    }
    ec = with_stream([&](auto& stream) {
      return run(
          [&](auto handler) {
            bhttp::async_read(stream, buffer_, parser,
                              [handler](error_code e, std::size_t) { handler(e); });
          },
          deadline, cancelled, what);
    });
    if (ec) fail_io(ec, false, what + ": reading response");
    auto message = parser.release();
    if (!message.keep_alive()) broken_ = true;
    ClientResponse out = header_of(message);
    out.body = std::move(message.body());
    return out;
  }

  // A large body of known length (a list of many objects) is received through a small buffer
  // that stays in the cache and appended to a string reserved once: no pass through Beast's
  // parser, no growth piece by piece, and the body's pages are written once (resize() would
  // zero-fill 1 GiB first, only for the read to overwrite it).
  ClientResponse read_body_direct(bhttp::response_parser<bhttp::string_body>& parser,
                                  std::uint64_t length, Clock::time_point deadline,
                                  const CancelCheck* cancelled, const std::string& what) {
    ClientResponse out = header_of(parser.get());
    if (!parser.get().keep_alive()) broken_ = true;
    out.body = std::move(parser.get().body());  // empty; Beast may have reserved the length
    out.body.reserve(length);
    prefer_huge_pages(out.body.data(), length);
    std::size_t buffered = std::min<std::size_t>(buffer_.size(), length);
    out.body.append(static_cast<const char*>(buffer_.data().data()), buffered);
    buffer_.consume(buffered);
    auto chunk = std::make_unique_for_overwrite<char[]>(kBodyChunk);
    while (out.body.size() < length) {
      std::size_t received = 0;
      error_code ec = with_stream([&](auto& stream) {
        return run(
            [&](auto handler) {
              stream.async_read_some(
                  net::buffer(chunk.get(),
                              std::min<std::size_t>(kBodyChunk, length - out.body.size())),
                  [handler, &received](error_code e, std::size_t n) {
                    received = n;
                    handler(e);
                  });
            },
            deadline, cancelled, what);
      });
      if (ec) fail_io(ec, false, what + ": reading response body");
      out.body.append(chunk.get(), received);
    }
    return out;
  }

  ClientResponse read_streamed(Clock::time_point deadline, std::uint64_t body_limit,
                               const BodySink& sink, const CancelCheck* cancelled,
                               const std::string& what) {
    bhttp::response_parser<bhttp::buffer_body> parser;
    parser.body_limit(std::numeric_limits<std::uint64_t>::max());
    error_code ec = with_stream([&](auto& stream) {
      return run(
          [&](auto handler) {
            bhttp::async_read_header(stream, buffer_, parser,
                                     [handler](error_code e, std::size_t) { handler(e); });
          },
          deadline, cancelled, what);
    });
    if (ec) fail_io(ec, !parser.got_some(), what + ": reading response header");
    ClientResponse out = header_of(parser.get());
    bool success = out.status >= 200 && out.status < 300;
    // An error answer is short: read it whole, within the request's deadline. A watch body
    // has no deadline; it ends with the server, the sink, or the cancel check.
    Clock::time_point body_deadline = success ? kNoDeadline : deadline;
    char chunk[16384];
    while (!parser.is_done()) {
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      try {
        ec = with_stream([&](auto& stream) {
          return run(
              [&](auto handler) {
                bhttp::async_read_some(stream, buffer_, parser,
                                       [handler](error_code e, std::size_t) { handler(e); });
              },
              body_deadline, cancelled, what);
        });
      } catch (const ClientError& e) {
        if (e.kind() == ClientError::Kind::Cancelled) return out;
        throw;
      }
      if (ec == bhttp::error::need_buffer) ec = {};
      if (ec) fail_io(ec, false, what + ": reading response body");
      std::string_view piece(chunk, sizeof chunk - parser.get().body().size);
      if (piece.empty()) continue;
      if (!success) {
        if (out.body.size() + piece.size() > body_limit)
          fail_protocol(what + ": error body too large");
        out.body.append(piece);
      } else if (!sink(piece)) {
        broken_ = true;  // the rest of the body is unread
        return out;
      }
    }
    if (!parser.get().keep_alive()) broken_ = true;
    return out;
  }

  template <class Message>
  static ClientResponse header_of(const Message& message) {
    ClientResponse out;
    out.status = static_cast<int>(message.result_int());
    for (const auto& field : message) {
      out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
    }
    return out;
  }

  [[noreturn]] void fail_io(const error_code& ec, bool nothing_received, const std::string& what) {
    broken_ = true;
    if (nothing_received && is_stale_close(ec)) throw StaleConnection{ec};
    if (ec.category() == bhttp::make_error_code(bhttp::error::bad_version).category() &&
        ec != bhttp::error::end_of_stream && ec != bhttp::error::partial_message) {
      fail_protocol(what + ": malformed HTTP: " + ec.message());
    }
    throw ClientError(ClientError::Kind::Io, what + ": " + ec.message());
  }

  [[noreturn]] void fail_protocol(const std::string& what) {
    broken_ = true;
    throw ClientError(ClientError::Kind::Protocol, what);
  }

  // Runs one asynchronous operation to completion on this thread. On the deadline it closes the
  // socket and throws ClientError(Timeout); when cancelled() turns true it closes the socket
  // and throws ClientError(Cancelled).
  template <class Start>
  error_code run(Start start, Clock::time_point deadline, const CancelCheck* cancelled,
                 const std::string& what) {
    error_code result;
    bool finished = false;
    bool timed_out = false;
    net::steady_timer timer(io_);
    start([&](error_code ec) {
      result = ec;
      finished = true;
      timer.cancel();
    });
    std::function<void()> arm = [&] {
      auto now = Clock::now();
      auto wait = deadline == kNoDeadline
                      ? kPollInterval
                      : std::min<Clock::duration>(kPollInterval, deadline - now);
      timer.expires_after(wait);
      timer.async_wait([&](error_code) {
        if (finished) return;
        if (deadline != kNoDeadline && Clock::now() >= deadline) {
          timed_out = true;
        } else if (cancelled != nullptr && *cancelled && (*cancelled)()) {
          cancelled_ = true;
        } else {
          arm();
          return;
        }
        broken_ = true;
        error_code ignored;
        socket().close(ignored);
      });
    };
    arm();
    io_.restart();
    io_.run();
    if (timed_out) throw ClientError(ClientError::Kind::Timeout, what + ": timed out");
    if (cancelled_) throw ClientError(ClientError::Kind::Cancelled, what + ": cancelled");
    return result;
  }

  Url url_;
  const ClientTlsConfig& tls_config_;
  net::io_context io_;
  tcp::socket plain_{io_};
  std::optional<ssl::stream<tcp::socket>> tls_stream_;  // the socket and the SSL; tls_io_ uses them
  std::optional<TlsIo> tls_io_;
  boost::beast::flat_buffer buffer_;
  bool connected_ = false;
  bool broken_ = false;
  bool cancelled_ = false;
};

}  // namespace

struct Client::Impl {
  ClientOptions options;
  Url url;
  std::optional<ssl::context> tls;
  std::mutex mutex;
  std::vector<std::unique_ptr<Connection>> idle;
  std::atomic<std::size_t> opened{0};

  void configure_tls();
  std::unique_ptr<Connection> acquire();
  void release(std::unique_ptr<Connection> connection);
  bhttp::request<bhttp::string_body> to_beast(const ClientRequest& request) const;
  ClientResponse perform(const ClientRequest& request, const BodySink* sink,
                         const CancelCheck* cancelled);
};

void Client::Impl::configure_tls() {
  tls.emplace(ssl::context::tls_client);
  tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  prefer_aes_128_gcm(tls->native_handle());
  const auto& config = options.tls;
  try {
    if (config.insecure_skip_verify) {
      tls->set_verify_mode(ssl::verify_none);
    } else {
      tls->set_verify_mode(ssl::verify_peer);
      if (config.ca_pem.empty()) {
        tls->set_default_verify_paths();
      } else {
        tls->add_certificate_authority(net::buffer(config.ca_pem));
      }
    }
    if (!config.client_cert_pem.empty()) {
      tls->use_certificate_chain(net::buffer(config.client_cert_pem));
      tls->use_private_key(net::buffer(config.client_key_pem), ssl::context::pem);
    }
  } catch (const boost::system::system_error& e) {
    throw ClientError(ClientError::Kind::Tls, "http client for " + options.base_url +
                                                  ": invalid TLS material: " + e.what());
  }
}

std::unique_ptr<Connection> Client::Impl::acquire() {
  {
    std::lock_guard lock(mutex);
    if (!idle.empty()) {
      auto connection = std::move(idle.back());
      idle.pop_back();
      return connection;
    }
  }
  return std::make_unique<Connection>(url, tls ? &*tls : nullptr, options.tls);
}

void Client::Impl::release(std::unique_ptr<Connection> connection) {
  if (!connection->reusable()) return;
  std::lock_guard lock(mutex);
  if (idle.size() < options.max_idle_connections) idle.push_back(std::move(connection));
}

bhttp::request<bhttp::string_body> Client::Impl::to_beast(const ClientRequest& request) const {
  bhttp::request<bhttp::string_body> req;
  req.method_string(request.method);
  req.target(url.path_prefix + request.target);
  req.version(11);
  bool default_port = url.port == (url.tls ? 443 : 80);
  std::string host = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  req.set(bhttp::field::host, default_port ? host : host + ":" + std::to_string(url.port));
  for (const auto& [name, value] : request.headers) req.set(name, value);
  req.body() = request.body;
  req.keep_alive(true);
  req.prepare_payload();
  return req;
}

ClientResponse Client::Impl::perform(const ClientRequest& request, const BodySink* sink,
                                     const CancelCheck* cancelled) {
  const std::string what = request.method + " " + options.base_url + request.target;
  auto deadline = Clock::now() + request.timeout;
  auto req = to_beast(request);
  // A pooled connection may have been closed by the server while idle: then resend once.
  for (int attempt = 0;; ++attempt) {
    auto connection = acquire();
    bool reused = connection->connected();
    try {
      if (!reused) {
        connection->connect(deadline, what);
        ++opened;
      }
      ClientResponse response =
          connection->exchange(req, deadline, options.max_response_body, sink, cancelled, what);
      release(std::move(connection));
      return response;
    } catch (const StaleConnection& stale) {
      if (!reused || attempt > 0) {
        throw ClientError(ClientError::Kind::Io,
                          what + ": connection closed: " + stale.ec.message());
      }
    }
  }
}

Client::Client(ClientOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->url = parse_url(impl_->options.base_url);
  if (impl_->url.tls) impl_->configure_tls();
}

Client::~Client() = default;

ClientResponse Client::send(const ClientRequest& request) {
  return impl_->perform(request, nullptr, nullptr);
}

ClientResponse Client::stream(const ClientRequest& request, const BodySink& sink,
                              const CancelCheck& cancelled) {
  return impl_->perform(request, &sink, cancelled ? &cancelled : nullptr);
}

std::size_t Client::connections_opened() const { return impl_->opened; }

}  // namespace tailor::kube::http
