#include "controller/usage/usage_gate.h"

#include <sys/resource.h>

#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/write.hpp>
#include <charconv>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_set>
#include <vector>

#include "kube/observe/log.h"
#include "kube/observe/metrics.h"

namespace tailor::controller::usage {
namespace {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

constexpr std::string_view kRelayPeerPrefix = "ipv4:127.0.0.1:";

// An endpoint as gRPC names a peer: "ipv4:10.0.0.5:41234", "ipv6:[fd00::1]:41234" (an IPv4
// client of a dual-stack listener as ipv4, as gRPC does).
std::string grpc_peer_name(const tcp::endpoint& e) {
  net::ip::address a = e.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped())
    a = net::ip::make_address_v4(net::ip::v4_mapped, a.to_v6());
  const std::string port = ":" + std::to_string(e.port());
  if (a.is_v4()) return "ipv4:" + a.to_string() + port;
  return "ipv6:[" + a.to_string() + "]" + port;
}

// Bytes moved per read; one buffer for the whole gate (its one thread). A connection holds
// bytes of its own only while the other side cannot take them.
constexpr std::size_t kScratch = 64 << 10;
// Reads one direction may do before letting other connections have the thread.
constexpr int kReadsPerTurn = 16;

// tailor_controller_usage_connections and tailor_controller_usage_connection_cap_reached_total,
// over every gate of the process.
struct GateMetrics {
  prometheus::Gauge& connections;
  prometheus::Counter& cap_reached;
};

GateMetrics& gate_metrics() {
  static GateMetrics metrics{
      .connections = kube::metrics::registry()
                         .gauge({.subsystem = "controller",
                                 .name = "usage_connections",
                                 .help = "Connections the usage port holds now, silent or relayed "
                                         "to the usage server (at most --usage-max-connections)."})
                         .with(),
      .cap_reached =
          kube::metrics::registry()
              .counter({.subsystem = "controller",
                        .name = "usage_connection_cap_reached_total",
                        .help = "Times the usage port came to hold --usage-max-connections "
                                "connections and stopped accepting: further clients wait in the "
                                "listen backlog until one closes."})
              .with()};
  return metrics;
}

}  // namespace

std::pair<std::string, std::string> split_host_port(std::string_view address) {
  const auto refuse = [&] {
    return std::invalid_argument("want host:port or [v6]:port, not \"" + std::string(address) +
                                 "\"");
  };
  std::string_view host, port;
  if (address.starts_with('[')) {
    const auto close = address.find("]:");
    if (close == std::string_view::npos) throw refuse();
    host = address.substr(1, close - 1);
    port = address.substr(close + 2);
  } else {
    const auto colon = address.rfind(':');
    if (colon == std::string_view::npos) throw refuse();
    host = address.substr(0, colon);
    port = address.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) throw refuse();  // IPv6 without brackets
  }
  if (port.empty()) throw refuse();
  return {std::string(host), std::string(port)};
}

std::uint64_t raise_open_files_limit(std::uint64_t wanted) {
  rlimit files{};
  if (::getrlimit(RLIMIT_NOFILE, &files) != 0) return 0;
  if (files.rlim_cur >= wanted || files.rlim_cur == files.rlim_max) return files.rlim_cur;
  const rlim_t soft = files.rlim_cur;
  files.rlim_cur = files.rlim_max;
  return ::setrlimit(RLIMIT_NOFILE, &files) == 0 ? files.rlim_cur : soft;
}

std::string PeerBook::resolve(std::string_view grpc_peer) const {
  if (!grpc_peer.starts_with(kRelayPeerPrefix)) return std::string(grpc_peer);
  const std::string_view digits = grpc_peer.substr(kRelayPeerPrefix.size());
  std::uint16_t port = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec != std::errc() || end != digits.data() + digits.size()) return std::string(grpc_peer);
  const auto found = peers_.find(port);
  return found == peers_.end() ? std::string(grpc_peer) : found->second;
}

// The gate's state, touched by its I/O thread only, except where a field says otherwise.
struct UsageGate::Impl {
  explicit Impl(GateOptions o) : options(std::move(o)), slots(options.max_connections) {}

  void accept();
  void forget(Connection* c);

  GateOptions options;
  net::io_context io{1};
  tcp::acceptor acceptor{io};
  net::steady_timer retry{io};  // accepting again after a failed accept (out of descriptors)
  std::thread thread;
  ConnectionSlots slots;
  bool stopping = false;
  std::unordered_set<Connection*> live;
  std::array<char, kScratch> scratch{};
  int port = 0;  // set before the thread starts
  // Read by gRPC's threads too.
  mutable std::mutex peers_mutex;
  PeerBook peers;
  std::atomic<std::uint64_t> open{0}, relayed{0}, silent_closed{0};
};

// One client connection: a bare socket and a timer until the client's first bytes, then the
// relay to gRPC. Lives while an operation of its own is pending (each holds a shared_ptr).
struct UsageGate::Connection : std::enable_shared_from_this<Connection> {
  Connection(Impl& g, tcp::socket s) : gate(g), client(std::move(s)), timer(g.io) {}
  ~Connection() { gate.forget(this); }

  void await_first_byte();
  void connect_upstream();
  void relay(int from);
  void finish_direction(int from);
  void close();

  tcp::socket& side(int i) { return i == 0 ? client : upstream; }

  Impl& gate;
  tcp::socket client;
  tcp::socket upstream{gate.io};
  net::steady_timer timer;
  bool relaying = false;
  int directions_done = 0;
  std::uint16_t relay_port = 0;
  // Bytes read from side i that side 1-i could not take yet.
  std::array<std::vector<char>, 2> pending;
};

void UsageGate::Impl::accept() {
  acceptor.async_accept([this](const error_code& ec, tcp::socket socket) {
    if (stopping) return;
    if (ec) {
      // Out of descriptors or memory for now: the client waits in the backlog meanwhile.
      kube::log::warning("Usage gate: accept failed", {{"error", ec.message()}});
      retry.expires_after(std::chrono::milliseconds(100));
      retry.async_wait([this](const error_code& e) {
        if (!e && !stopping) accept();
      });
      return;
    }
    auto c = std::make_shared<Connection>(*this, std::move(socket));
    live.insert(c.get());
    const bool more = slots.take();
    // The series before `open`, which stats() reads from other threads: whoever sees the count
    // sees the series that go with it.
    gate_metrics().connections.Increment();
    if (!more) gate_metrics().cap_reached.Increment();
    ++open;
    c->await_first_byte();
    // With every slot taken, the next client waits in the kernel's backlog until one frees.
    if (more) accept();
  });
}

void UsageGate::Impl::forget(Connection* c) {
  live.erase(c);
  if (c->relay_port != 0) {
    std::lock_guard lock(peers_mutex);
    peers.remove(c->relay_port);
  }
  gate_metrics().connections.Decrement();
  --open;
  if (slots.give_back() && !stopping) accept();
}

void UsageGate::Connection::await_first_byte() {
  timer.expires_after(gate.options.first_byte_timeout);
  timer.async_wait([self = shared_from_this()](const error_code& ec) {
    if (ec || self->relaying) return;
    ++self->gate.silent_closed;
    self->close();
  });
  client.async_wait(tcp::socket::wait_read, [self = shared_from_this()](const error_code& ec) {
    if (ec || !self->client.is_open()) return self->close();
    self->timer.cancel();
    error_code e;
    if (self->client.available(e) == 0 || e) return self->close();  // it hung up
    self->relaying = true;
    self->connect_upstream();
  });
}

void UsageGate::Connection::connect_upstream() {
  const tcp::endpoint grpc(net::ip::address_v4::loopback(),
                           static_cast<std::uint16_t>(gate.options.upstream_port));
  upstream.async_connect(grpc, [self = shared_from_this()](const error_code& ec) {
    if (ec) {
      kube::log::warning("Usage gate: cannot reach the gRPC server", {{"error", ec.message()}});
      return self->close();
    }
    error_code e;
    for (tcp::socket* s : {&self->client, &self->upstream}) {
      s->set_option(tcp::no_delay(true), e);  // as gRPC sets on its own sockets
      s->non_blocking(true, e);
    }
    const tcp::endpoint relay = self->upstream.local_endpoint(e);
    const tcp::endpoint peer = self->client.remote_endpoint(e);
    if (e) return self->close();
    self->relay_port = relay.port();
    {
      std::lock_guard lock(self->gate.peers_mutex);
      self->gate.peers.add(self->relay_port, grpc_peer_name(peer));
    }
    ++self->gate.relayed;
    self->relay(0);
    self->relay(1);
  });
}

// Moves what side `from` has to the other side until it has no more for now, then waits for it
// to have more. Reads until the socket would block before waiting, so no readiness is missed.
void UsageGate::Connection::relay(int from) {
  tcp::socket& in = side(from);
  tcp::socket& out = side(1 - from);
  for (int reads = 0; reads < kReadsPerTurn; ++reads) {
    error_code ec;
    const std::size_t n = in.read_some(net::buffer(gate.scratch), ec);
    if (ec == net::error::would_block) {
      in.async_wait(tcp::socket::wait_read, [self = shared_from_this(), from](const error_code& e) {
        if (e) return self->close();
        self->relay(from);
      });
      return;
    }
    if (ec == net::error::eof) return finish_direction(from);
    if (ec) return close();
    std::size_t written = out.write_some(net::buffer(gate.scratch.data(), n), ec);
    if (ec == net::error::would_block) {
      written = 0;
    } else if (ec) {
      return close();
    }
    if (written < n) {
      // The other side is slow: keep the rest, and read no more from this side until it is sent.
      auto& rest = pending[static_cast<std::size_t>(from)];
      rest.assign(gate.scratch.data() + written, gate.scratch.data() + n);
      net::async_write(out, net::buffer(rest),
                       [self = shared_from_this(), from](const error_code& e, std::size_t) {
                         if (e) return self->close();
                         std::vector<char>().swap(self->pending[static_cast<std::size_t>(from)]);
                         self->relay(from);
                       });
      return;
    }
  }
  net::post(gate.io, [self = shared_from_this(), from] { self->relay(from); });
}

// Side `from` said it has no more (FIN): the other side is told the same, and the connection
// ends once both have, or when the other has not within the half-closed timeout.
void UsageGate::Connection::finish_direction(int from) {
  error_code e;
  side(1 - from).shutdown(tcp::socket::shutdown_send, e);
  if (++directions_done == 2) return close();
  timer.expires_after(gate.options.half_closed_timeout);
  timer.async_wait([self = shared_from_this()](const error_code& ec) {
    if (!ec) self->close();
  });
}

void UsageGate::Connection::close() {
  error_code e;
  timer.cancel();
  client.close(e);
  upstream.close(e);
}

UsageGate::UsageGate(GateOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

UsageGate::~UsageGate() { stop(); }

void UsageGate::start() {
  gate_metrics();  // the series exist, at zero, before the first connection
  Impl& g = *impl_;
  // Past the limit, accepting fails (EMFILE) long before the cap: clients would wait in the
  // backlog while the gate retries every 100 ms. 64 for the rest of the process.
  const std::uint64_t wanted = 3 * static_cast<std::uint64_t>(g.options.max_connections) + 64;
  if (const std::uint64_t limit = raise_open_files_limit(wanted); limit < wanted) {
    kube::log::warning("Usage gate: the open files limit holds fewer connections than its cap",
                       {{"openFilesLimit", limit},
                        {"connections", limit > 64 ? (limit - 64) / 3 : 0},
                        {"cap", g.options.max_connections}});
  }
  try {
    const auto [host, port] = split_host_port(g.options.address);
    tcp::resolver resolver(g.io);
    const auto found = resolver.resolve(host, port, tcp::resolver::passive);
    const tcp::endpoint endpoint = found.begin()->endpoint();
    g.acceptor.open(endpoint.protocol());
    g.acceptor.set_option(tcp::acceptor::reuse_address(true));
    g.acceptor.bind(endpoint);
    // The kernel's queue (net.core.somaxconn) holds the clients past the cap.
    g.acceptor.listen(net::socket_base::max_listen_connections);
    g.port = g.acceptor.local_endpoint().port();
  } catch (const std::exception& e) {
    throw std::runtime_error("usage gate: cannot listen on " + g.options.address + ": " + e.what());
  }
  g.accept();
  g.thread = std::thread([&g] { g.io.run(); });
}

void UsageGate::stop() {
  Impl& g = *impl_;
  if (!g.thread.joinable()) return;
  net::post(g.io, [&g] {
    g.stopping = true;
    error_code e;
    g.acceptor.close(e);
    g.retry.cancel();
    for (Connection* c : g.live) c->close();
  });
  g.thread.join();
}

int UsageGate::port() const { return impl_->port; }

std::string UsageGate::peer_of(std::string_view grpc_peer) const {
  std::lock_guard lock(impl_->peers_mutex);
  return impl_->peers.resolve(grpc_peer);
}

GateStats UsageGate::stats() const {
  return {.open = impl_->open.load(),
          .relayed = impl_->relayed.load(),
          .silent_closed = impl_->silent_closed.load()};
}

}  // namespace tailor::controller::usage
