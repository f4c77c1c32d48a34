#include "kube/http/server.h"

#include <malloc.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_range.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "kube/http/server_read_deadline.h"
#include "kube/http/tls_ciphers.h"
#include "kube/http/tls_sender.h"
#include "kube/http/url.h"

namespace tailor::kube::http {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

}  // namespace

std::string_view find_header(const Headers& headers, std::string_view name) {
  for (const auto& [key, value] : headers) {
    if (iequals(key, name)) return value;
  }
  return {};
}

std::size_t BodyPieces::size() const {
  std::size_t total = 0;
  for (std::string_view piece : pieces) total += piece.size();
  return total;
}

std::optional<std::string> ServerRequest::query_param(std::string_view name) const {
  for (const auto& [key, value] : query) {
    if (key == name) return value;
  }
  return std::nullopt;
}

namespace {

constexpr std::uint64_t kMaxRequestBody = 256ull << 20;

// Set once by Server::stop(); every exchange of the server watches it.
struct StopSignal {
  std::atomic<bool> stopping{false};
  std::mutex mutex;
  std::condition_variable cv;
};

// Who is at the other end of a connection, and which connection it is.
struct PeerIdentity {
  std::string common_name;
  std::vector<std::string> organizations;
  std::uint64_t connection_id = 0;
};

std::string utf8_entry(X509_NAME* name, int index) {
  ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, index));
  unsigned char* text = nullptr;
  int length = ASN1_STRING_to_UTF8(&text, data);
  if (length < 0) return {};
  std::string out(reinterpret_cast<char*>(text), static_cast<std::size_t>(length));
  OPENSSL_free(text);
  return out;
}

// The subject of a client certificate that OpenSSL verified against the client CA.
PeerIdentity verified_peer(SSL* ssl) {
  PeerIdentity peer;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (cert == nullptr) return peer;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* subject = X509_get_subject_name(cert);
    for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_commonName, i)) >= 0;) {
      peer.common_name = utf8_entry(subject, i);
    }
    for (int i = -1; (i = X509_NAME_get_index_by_NID(subject, NID_organizationName, i)) >= 0;) {
      peer.organizations.push_back(utf8_entry(subject, i));
    }
  }
  X509_free(cert);
  return peer;
}

// Waits until fd has data (or EOF/shutdown); false when idle for `timeout`. A timeout of zero
// or less waits without limit, as Go's http.Server does with IdleTimeout (and ReadTimeout) zero;
// stop() still wakes the wait by shutting the socket down.
bool wait_readable(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN | POLLRDHUP, 0};
  int wait_ms = timeout.count() > 0 ? static_cast<int>(timeout.count()) : -1;
  int ready = ::poll(&p, 1, wait_ms);
  return ready > 0;
}

// Whether the TLS layer already holds request bytes read from the socket (a request sent right
// behind the handshake is often read with it), so that polling the socket would miss them.
// Asio's engine keeps nothing else: it reads from the socket only when OpenSSL asks for input,
// which OpenSSL does only once it has drained the 17 KiB BIO pair, and a read (at most 17 KiB)
// then fits in the empty pair whole, so every received byte is in the pair or in OpenSSL
// (server_pipelining_test).
bool has_buffered_input(tcp::socket&) { return false; }
bool has_buffered_input(ssl::stream<tcp::socket&>& stream) {
  SSL* ssl = stream.native_handle();
  return SSL_has_pending(ssl) == 1 || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0;
}

bool peer_hung_up(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

ServerRequest to_server_request(bhttp::request<bhttp::string_body>&& req, PeerIdentity peer) {
  ServerRequest out;
  out.method = std::string(req.method_string());
  out.target = std::string(req.target());
  std::string_view target = out.target;
  auto question = target.find('?');
  out.path = percent_decode(target.substr(0, question));
  if (question != std::string_view::npos) out.query = parse_query(target.substr(question + 1));
  for (const auto& field : req) {
    out.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  out.body = std::move(req.body());
  out.peer_common_name = std::move(peer.common_name);
  out.peer_organizations = std::move(peer.organizations);
  out.connection_id = peer.connection_id;
  return out;
}

tcp::socket& raw_socket(tcp::socket& socket) { return socket; }
tcp::socket& raw_socket(ssl::stream<tcp::socket&>& stream) { return stream.next_layer(); }

// Buffers per writev on a plain socket (the kernel's IOV_MAX is 1024).
constexpr std::size_t kWritevBatch = 256;

// Writes text given in pieces (a list's stored objects and the "," between them, a watch
// chunk's size line, event and CRLF) without joining it: over TLS into the sender's blocks (an
// SSL stream would make each piece a record and a system call of its own, a "," a 1-byte
// record), on a plain socket as batches of writev.
class PieceWriter {
 public:
  // batch: the caller's scratch, reused across writes (a watch writes per event).
  PieceWriter(tcp::socket& socket, TlsSender* sender, std::vector<net::const_buffer>& batch)
      : socket_(socket), sender_(sender), batch_(batch) {
    batch_.clear();
  }

  void add(std::string_view piece) {
    if (failed_ || piece.empty()) return;
    if (sender_ != nullptr) {
      failed_ = !sender_->append(piece);
      return;
    }
    batch_.emplace_back(piece.data(), piece.size());
    if (batch_.size() == kWritevBatch) write_batch();
  }

  // Sends what is left; false when the peer has gone.
  bool finish() {
    if (!failed_ && sender_ != nullptr) failed_ = !sender_->flush();
    if (!failed_ && sender_ == nullptr) write_batch();
    return !failed_;
  }

 private:
  void write_batch() {
    if (batch_.empty()) return;
    error_code ec;
    net::write(socket_, batch_, ec);
    failed_ = static_cast<bool>(ec);
    batch_.clear();
  }

  tcp::socket& socket_;
  TlsSender* sender_;
  std::vector<net::const_buffer>& batch_;
  bool failed_ = false;
};

// The size line of a chunk (as Beast writes it: lowercase hex, no extensions).
std::string_view chunk_size_line(std::size_t size, char (&text)[24]) {
  static constexpr char kHex[] = "0123456789abcdef";
  char* end = text + sizeof text;
  char* at = end;
  *--at = '\n';
  *--at = '\r';
  do {
    *--at = kHex[size % 16];
    size /= 16;
  } while (size != 0);
  return {at, static_cast<std::size_t>(end - at)};
}

// The serialised header of a response whose body is written separately.
std::string header_text(bhttp::response<bhttp::empty_body>& res) {
  bhttp::response_serializer<bhttp::empty_body> serializer(res);
  serializer.split(true);
  std::string text;
  error_code ec;
  while (!ec && !serializer.is_header_done()) {
    serializer.next(ec, [&](error_code&, const auto& buffers) {
      for (net::const_buffer b : boost::beast::buffers_range_ref(buffers)) {
        text.append(static_cast<const char*>(b.data()), b.size());
      }
      serializer.consume(net::buffer_size(buffers));
    });
  }
  return text;
}

template <class Stream>
class ExchangeImpl final : public Exchange {
 public:
  ExchangeImpl(Stream& stream, int fd, TlsSender* sender, StopSignal& stop, ServerRequest request,
               unsigned version, bool keep_alive)
      : stream_(stream),
        fd_(fd),
        sender_(sender),
        stop_(stop),
        request_(std::move(request)),
        version_(version),
        keep_alive_(keep_alive) {}

  const ServerRequest& request() const override { return request_; }

  void respond(ServerResponse response) override {
    if (state_ != State::Pending) throw std::logic_error("http exchange: response already started");
    state_ = State::Done;
    if (!response.more_body.pieces.empty() || sent_in_blocks(response)) {
      return respond_in_pieces(response);
    }
    auto res = head<bhttp::string_body>(response.status, response.headers);
    res.body() = std::move(response.body);
    res.prepare_payload();
    error_code ec;
    bhttp::write(stream_, res, ec);
    if (ec) peer_gone_ = true;
  }

  void start_stream(int status, Headers headers) override {
    if (state_ != State::Pending) throw std::logic_error("http exchange: response already started");
    state_ = State::Streaming;
    auto res = head<bhttp::empty_body>(status, headers);
    res.chunked(true);
    bhttp::response_serializer<bhttp::empty_body> serializer(res);
    error_code ec;
    bhttp::write_header(stream_, serializer, ec);
    if (ec) peer_gone_ = true;
  }

  bool write(std::string_view chunk) override { return write_pieces({&chunk, 1}); }

  bool write_pieces(std::span<const std::string_view> pieces) override {
    if (state_ != State::Streaming)
      throw std::logic_error("http exchange: write() before start_stream()");
    if (peer_gone_ || stop_.stopping) return false;
    std::size_t size = 0;
    for (std::string_view piece : pieces) size += piece.size();
    if (size == 0) return true;  // an empty chunk would end the stream
    char size_line[24];
    PieceWriter writer(raw_socket(stream_), sender_, chunk_buffers_);
    writer.add(chunk_size_line(size, size_line));
    for (std::string_view piece : pieces) writer.add(piece);
    writer.add("\r\n");
    if (!writer.finish()) peer_gone_ = true;
    return !peer_gone_;
  }

  void finish() override {
    if (state_ != State::Streaming) return;
    state_ = State::Done;
    if (peer_gone_) return;
    PieceWriter writer(raw_socket(stream_), sender_, chunk_buffers_);
    writer.add("0\r\n\r\n");  // the last chunk, no trailers
    if (!writer.finish()) peer_gone_ = true;
  }

  void abort() override {
    state_ = State::Aborted;
    peer_gone_ = true;
    ::shutdown(fd_, SHUT_RDWR);
  }

  bool wait_closed(std::chrono::milliseconds max) override {
    auto deadline = std::chrono::steady_clock::now() + max;
    std::unique_lock lock(stop_.mutex);
    for (;;) {
      if (over()) return true;
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline) return false;
      // Peer hang-ups are not signalled, so look again every few milliseconds.
      stop_.cv.wait_for(
          lock, std::min<std::chrono::nanoseconds>(deadline - now, std::chrono::milliseconds(20)));
    }
  }

  // After the handler returned: make sure the client got a complete answer.
  void complete() {
    if (state_ == State::Pending) {
      respond({500, {{"Content-Type", "text/plain"}}, "handler sent no response\n"});
    } else if (state_ == State::Streaming) {
      finish();
    }
  }
  bool started() const { return state_ != State::Pending; }
  bool reusable() const { return keep_alive_ && state_ == State::Done && !peer_gone_; }

 private:
  enum class State { Pending, Streaming, Done, Aborted };

  // Status line, the handler's headers and keep-alive, as every kind of response starts.
  template <class Body>
  bhttp::response<Body> head(int status, const Headers& headers) const {
    bhttp::response<Body> res;
    res.result(static_cast<unsigned>(status));
    res.version(version_);
    for (const auto& [name, value] : headers) res.insert(name, value);
    res.keep_alive(keep_alive_);
    return res;
  }

  // A large body over TLS (an OpenAPI document, a Table) goes through the sender's blocks, one
  // send per 16 records, rather than Asio's stream (one send per record). Not for statuses
  // whose header carries no Content-Length (1xx, 204, 304), which Beast's prepare_payload knows.
  bool sent_in_blocks(const ServerResponse& response) const {
    constexpr std::size_t kLargeBody = 64 * 1024;
    return sender_ != nullptr && response.body.size() >= kLargeBody && response.status >= 200 &&
           response.status != 204 && response.status != 304;
  }

  // The same header as respond() would send (Content-Length last), then body and more_body.
  void respond_in_pieces(ServerResponse& response) {
    auto res = head<bhttp::empty_body>(response.status, response.headers);
    res.content_length(response.body.size() + response.more_body.size());
    std::string head = header_text(res);
    PieceWriter writer(raw_socket(stream_), sender_, chunk_buffers_);
    writer.add(head);
    writer.add(response.body);
    for (std::string_view piece : response.more_body.pieces) writer.add(piece);
    if (!writer.finish()) peer_gone_ = true;
  }

  bool over() {
    if (stop_.stopping || peer_gone_ || state_ == State::Aborted) return true;
    if (peer_hung_up(fd_)) peer_gone_ = true;
    return peer_gone_;
  }

  Stream& stream_;
  int fd_;
  TlsSender* sender_;  // over TLS: how bodies given in pieces are sent
  StopSignal& stop_;
  ServerRequest request_;
  unsigned version_;
  bool keep_alive_;
  State state_ = State::Pending;
  bool peer_gone_ = false;
  // Scratch reused by every chunk of a stream: a watch writes one per event.
  std::vector<net::const_buffer> chunk_buffers_;
};

void send_plain_error(auto& stream, int status, std::string_view text) {
  bhttp::response<bhttp::string_body> res;
  res.result(static_cast<unsigned>(status));
  res.set(bhttp::field::content_type, "text/plain");
  res.body() = std::string(text) + "\n";
  res.keep_alive(false);
  res.prepare_payload();
  error_code ec;
  bhttp::write(stream, res, ec);
}

// A malformed request (as opposed to the peer going away).
bool is_parse_error(const error_code& ec) {
  static const auto& beast_http = bhttp::make_error_code(bhttp::error::bad_target).category();
  return ec.category() == beast_http && ec != bhttp::error::end_of_stream &&
         ec != bhttp::error::partial_message;
}

struct Connection {
  Connection(tcp::socket s, std::uint64_t number)
      : socket(std::move(s)), fd(socket.native_handle()), id(number) {}
  tcp::socket socket;
  int fd;
  std::uint64_t id;
};

// Whether freed memory is worth handing back to the system: after a burst of connections (their
// buffers, TLS state and stacks spread over malloc's per-thread arenas) most have ended. Trimming
// walks every arena, so not on each connection's end.
bool worth_trimming(std::size_t open, std::size_t peak_since_trim) {
  constexpr std::size_t kBurst = 64;
  return peak_since_trim >= kBurst && open <= peak_since_trim / 4;
}

// The open connections: each runs on a detached thread of its own, so that its stack is let go
// as soon as it ends (a joinable thread keeps it until joined). Shared with those threads, so
// that the last of them may still use it after the server has gone.
class ConnectionTable {
 public:
  explicit ConnectionTable(std::size_t max) : max_(max) {}

  // Blocks until one more connection may be accepted; false once stopping.
  bool wait_for_room(const std::atomic<bool>& stopping) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stopping || max_ == 0 || open_.size() < max_; });
    return !stopping;
  }

  void add(const Connection& connection) {
    std::lock_guard lock(mutex_);
    open_.emplace(connection.id, connection.fd);
    peak_since_trim_ = std::max(peak_since_trim_, open_.size());
  }

  // Closes the connection's socket under the lock, so that shutdown_all() never reaches a
  // descriptor reused after it; hands memory back after a burst.
  void end(std::unique_ptr<Connection> connection) {
    bool trim = false;
    {
      std::lock_guard lock(mutex_);
      open_.erase(connection->id);
      connection.reset();
      trim = worth_trimming(open_.size(), peak_since_trim_);
      if (trim) peak_since_trim_ = open_.size();
    }
    changed_.notify_all();
    if (trim) ::malloc_trim(0);
  }

  void wake() {
    std::lock_guard lock(mutex_);
    changed_.notify_all();
  }

  void shutdown_all() {
    std::lock_guard lock(mutex_);
    for (const auto& [id, fd] : open_) ::shutdown(fd, SHUT_RDWR);
  }

  void wait_until_empty() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return open_.empty(); });
  }

 private:
  std::size_t max_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<std::uint64_t, int> open_;  // id -> fd
  std::size_t peak_since_trim_ = 0;
};

// A connection's thread has a stack of this size whatever `ulimit -s` gave the process: its
// handler walks request bodies nested up to kube-apiserver's 10,000 levels, and server-side apply
// of such a body needs 1.5 to 2 MiB (tests/embedded/limits/deep_json_test.cpp, run under smaller
// ulimit -s). Only the pages a thread touches count in its RSS.
constexpr std::size_t kConnectionStack = std::size_t{8} << 20;

// Runs body on a detached thread of kConnectionStack; throws std::system_error when none can be
// made (the body is then not run).
void start_detached(std::function<void()> body) {
  auto task = std::make_unique<std::function<void()>>(std::move(body));
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, kConnectionStack);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_t thread;
  int error = pthread_create(
      &thread, &attributes,
      [](void* arg) -> void* {
        std::unique_ptr<std::function<void()>> run(static_cast<std::function<void()>*>(arg));
        (*run)();
        return nullptr;
      },
      task.get());
  pthread_attr_destroy(&attributes);
  if (error != 0) throw std::system_error(error, std::generic_category(), "pthread_create");
  task.release();  // the thread's now
}

}  // namespace

struct Server::Impl {
  ServerOptions options;
  Handler handler;
  net::io_context io;
  tcp::acceptor acceptor{io};
  // Replaced whole on reload_tls(); each connection keeps the context it started with.
  std::shared_ptr<ssl::context> tls;
  std::mutex tls_mutex;
  std::uint16_t bound_port = 0;
  std::thread accept_thread;
  StopSignal stop;
  std::shared_ptr<ConnectionTable> connections;
  std::uint64_t connections_accepted = 0;  // by the accept thread only
  ReadDeadlines deadlines;
  bool started = false;

  static std::shared_ptr<ssl::context> make_tls(const TlsServerConfig& config);
  std::shared_ptr<ssl::context> current_tls();
  void accept_loop();
  void start_connection(tcp::socket socket);
  void run_connection(Connection& connection);
  template <class Stream>
  void serve(Stream& stream, int fd, TlsSender* sender, const PeerIdentity& peer);
  template <class Stream>
  void send_body_timeout(Stream& stream);
};

std::shared_ptr<ssl::context> Server::Impl::current_tls() {
  std::lock_guard lock(tls_mutex);
  return tls;
}

std::shared_ptr<ssl::context> Server::Impl::make_tls(const TlsServerConfig& config) {
  auto tls = std::make_shared<ssl::context>(ssl::context::tls_server);
  tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  prefer_aes_128_gcm(tls->native_handle());
  // The server's order decides, as Go's TLS 1.3 server (kube-apiserver) does on AES hardware;
  // a client that puts ChaCha20 first (no AES hardware) still gets it.
  SSL_CTX_set_options(tls->native_handle(),
                      SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_PRIORITIZE_CHACHA);
  try {
    tls->use_certificate_chain(net::buffer(config.cert_chain_pem));
    tls->use_private_key(net::buffer(config.private_key_pem), ssl::context::pem);
    if (!config.client_ca_pem.empty()) {
      tls->add_certificate_authority(net::buffer(config.client_ca_pem));
      auto mode = ssl::verify_peer;
      if (config.require_client_cert) mode |= ssl::verify_fail_if_no_peer_cert;
      tls->set_verify_mode(mode);
      // SSL_get_verify_result still records the failure that verified_peer checks.
      if (config.verify_client_in_handler) {
        tls->set_verify_callback([](bool, ssl::verify_context&) { return true; });
      }
      // Ask clients for certificates of this CA (OpenSSL sends the CA names in the request).
      SSL_CTX_set_verify_depth(tls->native_handle(), 4);
    }
  } catch (const boost::system::system_error& e) {
    throw std::runtime_error(std::string("http server: invalid TLS configuration: ") + e.what());
  }
  return tls;
}

void Server::Impl::accept_loop() {
  for (;;) {
    if (!connections->wait_for_room(stop.stopping)) return;
    error_code ec;
    tcp::socket socket(io);
    acceptor.accept(socket, ec);
    if (stop.stopping) return;
    if (ec) {
      if (ec == net::error::connection_aborted) continue;
      // Out of descriptors and the like: wait a little rather than spin.
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    socket.set_option(tcp::no_delay(true), ec);
    start_connection(std::move(socket));
  }
}

void Server::Impl::start_connection(tcp::socket socket) {
  auto connection = std::make_unique<Connection>(std::move(socket), ++connections_accepted);
  connections->add(*connection);
  std::shared_ptr<ConnectionTable> table = connections;
  // Owned by the thread once it runs; still ours when it could not be started.
  Connection* raw = connection.release();
  try {
    start_detached([this, table, raw] {
      std::unique_ptr<Connection> owned(raw);
      run_connection(*owned);
      // OpenSSL's per-thread state (its error queue) is freed here, not by the thread's exit:
      // stop() returns once the table is empty, and a process may end before a detached
      // thread has finished exiting.
      OPENSSL_thread_stop();
      table->end(std::move(owned));
    });
  } catch (const std::system_error&) {
    // No thread to be had (the system's limit): the connection is dropped, not served later.
    table->end(std::unique_ptr<Connection>(raw));
  }
}

void Server::Impl::run_connection(Connection& connection) {
  error_code ec;
  std::shared_ptr<ssl::context> context = current_tls();
  if (!context) {
    serve(connection.socket, connection.fd, nullptr, PeerIdentity{{}, {}, connection.id});
  } else {
    // Go bounds the handshake by ReadHeaderTimeout too (tlsHandshakeTimeout). The TLS state
    // (~100 KiB of buffers) is made only once the client has sent something: a connection
    // that stays silent costs its thread alone.
    std::optional<ReadDeadlineScope> handshake_deadline;
    handshake_deadline.emplace(deadlines, connection.fd, options.read_header_timeout);
    if (!wait_readable(connection.fd, std::chrono::milliseconds(0)) || stop.stopping) return;
    ssl::stream<tcp::socket&> stream(connection.socket, *context);
    stream.handshake(ssl::stream_base::server, ec);
    handshake_deadline.reset();
    if (!ec) {
      PeerIdentity peer = verified_peer(stream.native_handle());
      peer.connection_id = connection.id;
      TlsSender sender(stream.native_handle(), connection.fd);
      serve(stream, connection.fd, &sender, peer);
    }
  }
  connection.socket.shutdown(tcp::socket::shutdown_both, ec);
}

template <class Stream>
void Server::Impl::serve(Stream& stream, int fd, TlsSender* sender, const PeerIdentity& peer) {
  boost::beast::flat_buffer buffer;
  for (bool first = true;; first = false) {
    // As Go: the first request's header deadline runs from the start; a kept-alive connection
    // waits for its next request under the idle timeout, and the deadline runs from then.
    std::optional<ReadDeadlineScope> header_deadline;
    if (first) header_deadline.emplace(deadlines, fd, options.read_header_timeout);
    bool buffered = buffer.size() > 0 || has_buffered_input(stream);
    if (!buffered && !wait_readable(fd, options.idle_timeout)) return;
    if (stop.stopping) return;
    if (!header_deadline) header_deadline.emplace(deadlines, fd, options.read_header_timeout);
    bhttp::request_parser<bhttp::string_body> parser;
    parser.body_limit(kMaxRequestBody);
    error_code ec;
    bhttp::read_header(stream, buffer, parser, ec);
    header_deadline.reset();  // the body has a deadline of its own
    if (!ec && !parser.is_done()) {
      ReadDeadlineScope body_deadline(deadlines, fd, options.read_body_timeout);
      bhttp::read(stream, buffer, parser, ec);
      if (body_deadline.release() && ec) return send_body_timeout(stream);
    }
    if (ec) {
      if (is_parse_error(ec)) send_plain_error(stream, 400, "bad request: " + ec.message());
      return;
    }
    auto message = parser.release();
    unsigned version = message.version();
    bool keep_alive = message.keep_alive();
    ServerRequest request;
    try {
      request = to_server_request(std::move(message), peer);
    } catch (const std::invalid_argument& e) {
      send_plain_error(stream, 400, std::string("bad request: ") + e.what());
      return;
    }
    ExchangeImpl<Stream> exchange(stream, fd, sender, stop, std::move(request), version,
                                  keep_alive);
    try {
      handler(exchange);
    } catch (const std::exception& e) {
      if (!exchange.started()) {
        exchange.respond({500, {{"Content-Type", "text/plain"}}, std::string(e.what()) + "\n"});
      }
    }
    exchange.complete();
    if (!exchange.reusable() || stop.stopping) return;
  }
}

// The answer to a body cut by its deadline; the connection then closes (its reading is shut).
template <class Stream>
void Server::Impl::send_body_timeout(Stream& stream) {
  const ServerResponse& answer = options.body_timeout_response;
  bhttp::response<bhttp::string_body> res;
  res.result(static_cast<unsigned>(answer.status));
  for (const auto& [name, value] : answer.headers) res.insert(name, value);
  res.body() = answer.body;
  res.keep_alive(false);
  res.prepare_payload();
  error_code ec;
  bhttp::write(stream, res, ec);
}

Server::Server(ServerOptions options, Handler handler) : impl_(std::make_unique<Impl>()) {
  impl_->options = std::move(options);
  impl_->handler = std::move(handler);
}

Server::~Server() { stop(); }

void Server::start() {
  auto& impl = *impl_;
  if (impl.started || impl.stop.stopping) {
    throw std::logic_error("http server: start() may be called once");
  }
  if (impl.options.tls) impl.tls = Impl::make_tls(*impl.options.tls);
  impl.connections = std::make_shared<ConnectionTable>(impl.options.max_connections);
  error_code ec;
  auto address = net::ip::make_address(impl.options.address, ec);
  if (ec)
    throw std::runtime_error("http server: bad listen address '" + impl.options.address + "'");
  tcp::endpoint endpoint(address, impl.options.port);
  impl.acceptor.open(endpoint.protocol(), ec);
  if (!ec) impl.acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) impl.acceptor.bind(endpoint, ec);
  if (!ec) impl.acceptor.listen(net::socket_base::max_listen_connections, ec);
  if (ec) {
    throw std::runtime_error("http server: cannot listen on " + impl.options.address + ":" +
                             std::to_string(impl.options.port) + ": " + ec.message());
  }
  impl.bound_port = impl.acceptor.local_endpoint().port();
  impl.deadlines.start();
  impl.started = true;
  impl.accept_thread = std::thread([&impl] { impl.accept_loop(); });
}

void Server::stop() {
  auto& impl = *impl_;
  if (!impl.started) return;
  impl.started = false;
  {
    std::lock_guard lock(impl.stop.mutex);
    impl.stop.stopping = true;
  }
  impl.stop.cv.notify_all();
  impl.connections->wake();  // an accept thread waiting for room
  // shutdown() wakes the thread blocked in accept(); close() alone would not.
  ::shutdown(impl.acceptor.native_handle(), SHUT_RDWR);
  impl.accept_thread.join();
  error_code ec;
  impl.acceptor.close(ec);
  impl.connections->shutdown_all();
  impl.connections->wait_until_empty();
  impl.deadlines.stop();
}

void Server::reload_tls(const TlsServerConfig& config) {
  if (!impl_->options.tls) throw std::logic_error("http server: reload_tls on a plain server");
  std::shared_ptr<ssl::context> next = Impl::make_tls(config);
  std::lock_guard lock(impl_->tls_mutex);
  impl_->tls = std::move(next);
}

std::uint16_t Server::port() const { return impl_->bound_port; }

std::string Server::url() const {
  const auto& address = impl_->options.address;
  std::string host = address.find(':') != std::string::npos ? "[" + address + "]" : address;
  return std::string(impl_->options.tls ? "https" : "http") + "://" + host + ":" +
         std::to_string(impl_->bound_port);
}

}  // namespace tailor::kube::http
