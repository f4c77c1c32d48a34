// The usage gate's relay over real loopback TCP (usage_gate.h), with a plain listener standing in
// for gRPC so that each side's bytes, half-closes and stalls are the test's to choose: bytes and
// FINs pass both ways, a slow side holds the other back rather than growing the gate, and a
// connection one side has closed does not hold its slot for good; the gate's metrics.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>

#include "controller/usage/usage_gate.h"
#include "kube/observe/metrics.h"
#include "tests/controller/usage/usage_agent_client.h"
#include "tests/support/eventually.h"

namespace tailor::controller::usage {
namespace {

using namespace std::chrono_literals;
using kube::testing::eventually;

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

int port_of(int fd, bool peer) {
  sockaddr_in address{};
  socklen_t size = sizeof address;
  auto* a = reinterpret_cast<sockaddr*>(&address);
  if ((peer ? ::getpeername(fd, a, &size) : ::getsockname(fd, a, &size)) != 0) {
    throw std::runtime_error("getsockname/getpeername failed");
  }
  return ntohs(address.sin_port);
}

// A file descriptor closed with its owner.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  void close() {
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  }

 private:
  int fd_;
};

Fd connect_to(int port) {
  Fd fd(::socket(AF_INET, SOCK_STREAM, 0));
  const sockaddr_in address = loopback(port);
  if (fd.get() < 0 ||
      ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    throw std::runtime_error("connect failed");
  }
  return fd;
}

// What the gate relays to: a loopback listener standing in for gRPC.
class Upstream {
 public:
  Upstream() : listener_(::socket(AF_INET, SOCK_STREAM, 0)) {
    const sockaddr_in address = loopback(0);
    if (::bind(listener_.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listener_.get(), 16) != 0) {
      throw std::runtime_error("cannot listen");
    }
    port_ = port_of(listener_.get(), false);
  }
  int port() const { return port_; }
  // The gate's next relayed connection; throws when none comes.
  Fd accept() const {
    pollfd p{.fd = listener_.get(), .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, 30'000) != 1) throw std::runtime_error("the gate relayed no connection");
    return Fd(::accept(listener_.get(), nullptr, nullptr));
  }

 private:
  Fd listener_;
  int port_ = 0;
};

void write_all(int fd, const std::string& bytes) {
  if (::write(fd, bytes.data(), bytes.size()) != static_cast<ssize_t>(bytes.size())) {
    throw std::runtime_error("short write");
  }
}

// Everything until EOF (or until the peer resets); throws when nothing comes for 30 s.
std::string read_to_end(int fd) {
  std::string got;
  char buffer[4096];
  for (;;) {
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, 30'000) != 1) throw std::runtime_error("no EOF: got \"" + got + "\"");
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0) return got;
    got.append(buffer, static_cast<std::size_t>(n));
  }
}

class UsageGateRelay : public ::testing::Test {
 protected:
  void start(GateOptions options) {
    options.address = "127.0.0.1:0";
    options.upstream_port = upstream_.port();
    gate_ = std::make_unique<UsageGate>(std::move(options));
    gate_->start();
  }
  std::uint64_t open() const { return gate_->stats().open; }

  Upstream upstream_;
  std::unique_ptr<UsageGate> gate_;
};

// Each side's bytes reach the other, each side's FIN too, and the other side may still answer
// after it; the connection's real peer is known while it is relayed, and forgotten once closed.
TEST_F(UsageGateRelay, BytesAndHalfClosesPassBothWays) {
  start({});
  Fd client = connect_to(gate_->port());
  write_all(client.get(), "hello");
  ASSERT_EQ(::shutdown(client.get(), SHUT_WR), 0);
  Fd relayed = upstream_.accept();
  const std::string relay_peer = "ipv4:127.0.0.1:" + std::to_string(port_of(relayed.get(), true));
  const std::string client_peer = "ipv4:127.0.0.1:" + std::to_string(port_of(client.get(), false));
  EXPECT_EQ(read_to_end(relayed.get()), "hello");      // then the client's FIN
  EXPECT_EQ(gate_->peer_of(relay_peer), client_peer);  // known before the first byte is relayed
  write_all(relayed.get(), "world");                   // the answer after it
  relayed.close();
  EXPECT_EQ(read_to_end(client.get()), "world");
  EXPECT_TRUE(eventually([&] { return open() == 0; }));
  EXPECT_EQ(gate_->peer_of(relay_peer), relay_peer);
  EXPECT_EQ(gate_->stats().relayed, 1u);
}

// gRPC has closed (its handshake timeout, a failed handshake, an idle connection's GOAWAY) and the
// client sent its first byte and then nothing, not even its FIN: the gate closes the client
// within the timeout instead of holding it, and its slot, for as long as the client likes.
TEST_F(UsageGateRelay, AClientThatOutstaysTheUpstreamsCloseIsClosed) {
  // The first byte's timeout is not under test: long, so that a stalled machine cannot close the
  // connection before its byte is read.
  start({.max_connections = 1, .first_byte_timeout = 30s, .half_closed_timeout = 200ms});
  Fd client = connect_to(gate_->port());
  write_all(client.get(), "x");
  Fd relayed = upstream_.accept();
  relayed.close();
  EXPECT_EQ(read_to_end(client.get()), "");  // gRPC's FIN, relayed
  EXPECT_TRUE(eventually([&] { return open() == 0; }, 10s));
  // The slot is free: the next client is relayed.
  Fd next = connect_to(gate_->port());
  write_all(next.get(), "y");
  Fd next_relayed = upstream_.accept();
  EXPECT_TRUE(eventually([&] { return gate_->stats().relayed == 2; }));
}

// The client's FIN, and then gRPC never closing: the same, the other way round.
TEST_F(UsageGateRelay, AnUpstreamThatOutstaysTheClientsCloseIsClosed) {
  start({.first_byte_timeout = 30s, .half_closed_timeout = 200ms});
  Fd client = connect_to(gate_->port());
  write_all(client.get(), "x");
  ASSERT_EQ(::shutdown(client.get(), SHUT_WR), 0);
  Fd relayed = upstream_.accept();
  EXPECT_EQ(read_to_end(relayed.get()), "x");
  EXPECT_TRUE(eventually([&] { return open() == 0; }, 10s));
  EXPECT_EQ(read_to_end(client.get()), "");
}

// An upstream that reads nothing: the client's writes stop once the sockets' buffers are full
// (the gate holds at most one read's worth), and every byte arrives, in order, once it reads.
TEST_F(UsageGateRelay, ASlowSideHoldsTheOtherBackAndLosesNothing) {
  start({});
  Fd client = connect_to(gate_->port());
  Fd relayed;
  std::string chunk(64 << 10, '\0');
  std::size_t sent = 0;
  constexpr std::size_t kUnbounded = 256u << 20;  // far past every buffer on the way
  while (sent < kUnbounded) {
    for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<char>((sent + i) % 251);
    pollfd p{.fd = client.get(), .events = POLLOUT, .revents = 0};
    if (::poll(&p, 1, 2'000) != 1) break;  // the client is held back
    const ssize_t n = ::send(client.get(), chunk.data(), chunk.size(), MSG_DONTWAIT);
    if (n < 0 && errno == EAGAIN) continue;
    ASSERT_GT(n, 0);
    sent += static_cast<std::size_t>(n);
    if (relayed.get() < 0) relayed = upstream_.accept();
  }
  EXPECT_LT(sent, kUnbounded);
  ASSERT_EQ(::shutdown(client.get(), SHUT_WR), 0);
  const std::string got = read_to_end(relayed.get());
  ASSERT_EQ(got.size(), sent);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_EQ(got[i], static_cast<char>(i % 251)) << "byte " << i;
  }
}

// A gated connection holds three descriptors of the process (the client's, the relay's, gRPC's):
// a soft limit below what the cap needs would refuse clients (EMFILE) far below it. Starting
// raises it to the hard limit, as Go's runtime does for every Kubernetes component.
TEST_F(UsageGateRelay, StartingRaisesTheOpenFilesLimitToWhatTheCapNeeds) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  // A cap of 100 needs 364 descriptors: more than the lowered soft limit, within any hard limit
  // a machine gives (1024 at the least).
  ASSERT_GT(before.rlim_max, 256u) << "the test needs a hard limit above the soft one it sets";
  rlimit low = before;
  low.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  start({.max_connections = 100});
  rlimit now{};
  ::getrlimit(RLIMIT_NOFILE, &now);
  ::setrlimit(RLIMIT_NOFILE, &before);
  EXPECT_EQ(now.rlim_cur, before.rlim_max);
  EXPECT_EQ(raise_open_files_limit(100), before.rlim_cur);  // enough already: left as it is
}

// A series of the process's metrics; -1 when it is not there.
double metric(const std::string& series) {
  return testing::series_value(kube::metrics::registry().serialize(), series);
}

// tailor_controller_usage_connections follows the connections the port holds (over every gate of
// the process), and tailor_controller_usage_connection_cap_reached_total counts each time the
// last slot is taken.
TEST_F(UsageGateRelay, MetricsFollowTheHeldConnectionsAndCountTheCapReached) {
  start({.max_connections = 2});
  const double held = metric("tailor_controller_usage_connections");
  const double capped = metric("tailor_controller_usage_connection_cap_reached_total");
  ASSERT_GE(held, 0);  // both are there, at their value, from the start
  ASSERT_GE(capped, 0);
  Fd first = connect_to(gate_->port());
  ASSERT_TRUE(eventually([&] { return open() == 1; }));
  EXPECT_EQ(metric("tailor_controller_usage_connections"), held + 1);
  EXPECT_EQ(metric("tailor_controller_usage_connection_cap_reached_total"), capped);
  Fd second = connect_to(gate_->port());
  ASSERT_TRUE(eventually([&] { return open() == 2; }));
  EXPECT_EQ(metric("tailor_controller_usage_connections"), held + 2);
  EXPECT_EQ(metric("tailor_controller_usage_connection_cap_reached_total"), capped + 1);

  first.close();  // a FIN before any byte: the gate closes it at once
  ASSERT_TRUE(eventually([&] { return open() == 1; }));
  EXPECT_EQ(metric("tailor_controller_usage_connections"), held + 1);
  Fd third = connect_to(gate_->port());
  ASSERT_TRUE(eventually([&] { return open() == 2; }));
  EXPECT_EQ(metric("tailor_controller_usage_connection_cap_reached_total"), capped + 2);
  gate_->stop();
  EXPECT_EQ(metric("tailor_controller_usage_connections"), held);
}

}  // namespace
}  // namespace tailor::controller::usage
