// A TCP gate in front of the usage stream's gRPC server (issue 16 finding 5). gRPC 1.51 has no
// server-side connection cap, and a connection that has sent nothing already costs it ~27 KiB of
// TLS handshake state. The gate listens on the usage port instead: it holds at most
// max_connections at once (the rest wait in the kernel's accept backlog, as Go's
// netutil.LimitListener does), keeps a connection that has sent nothing as a bare socket and a
// timer, closes it at the handshake timeout, and only once the client has sent its first bytes
// relays it, byte for byte both ways, to gRPC on a loopback port (a FIN too; the side still open
// then is closed at half_closed_timeout). TLS and mutual authentication stay end to end in gRPC;
// the gate never reads what it relays. gRPC sees the relay's loopback address as the peer:
// `peer_of` names the client's real address instead (logs, rejections).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "kube/observe/duration.h"

namespace tailor::controller::usage {

// "host:port", "[v6]:port" or ":port" as host and port ("" host: every address); throws
// std::invalid_argument when there is no port.
std::pair<std::string, std::string> split_host_port(std::string_view address);

// How many connections the gate holds (pure; the gate's I/O thread alone uses it). A new
// connection is accepted only while a slot is free; when the last one is taken, accepting stops
// until a connection ends.
class ConnectionSlots {
 public:
  explicit ConnectionSlots(int cap) : cap_(cap) {}
  // Takes a slot for a connection just accepted; returns whether another may be accepted now.
  bool take() { return ++open_ < cap_; }
  // Gives back a closed connection's slot; returns whether accepting must resume (it had stopped
  // for want of a slot).
  bool give_back() { return open_-- == cap_; }
  int open() const { return open_; }

 private:
  int cap_;
  int open_ = 0;
};

// Which client each relayed connection carries, by the relay's own loopback port (pure; the
// gate locks around it).
class PeerBook {
 public:
  void add(std::uint16_t relay_port, std::string peer) { peers_[relay_port] = std::move(peer); }
  void remove(std::uint16_t relay_port) { peers_.erase(relay_port); }
  // gRPC's peer string ("ipv4:127.0.0.1:<port>") as the client's address, in gRPC's form
  // ("ipv4:10.0.0.5:41234"); the string itself when no relay has that port.
  std::string resolve(std::string_view grpc_peer) const;
  std::size_t size() const { return peers_.size(); }

 private:
  std::map<std::uint16_t, std::string> peers_;
};

// Raises the process's soft limit of open files (RLIMIT_NOFILE) to its hard one when the soft
// one is below `wanted`, as Go's runtime does at start for every Kubernetes component; returns
// the soft limit then in force. A gated connection holds three descriptors in the process: the
// client's, the relay's and gRPC's end of the relay.
std::uint64_t raise_open_files_limit(std::uint64_t wanted);

struct GateOptions {
  std::string address;    // host:port the agents connect to; port 0 picks a free one
  int upstream_port = 0;  // gRPC, on 127.0.0.1
  int max_connections = 10000;
  // A connection that has sent nothing by then is closed.
  kube::Duration first_byte_timeout = std::chrono::seconds(10);
  // Once one side has closed (its FIN, relayed), the other has this long to close too before the
  // gate closes it: gRPC never half-closes a connection, and a client left holding one it has
  // stopped closing (gRPC's handshake timeout, a failed handshake) would keep its slot for good.
  kube::Duration half_closed_timeout = std::chrono::seconds(10);
};

struct GateStats {
  std::uint64_t open = 0;           // connections held now (silent or relayed)
  std::uint64_t relayed = 0;        // connections relayed to gRPC so far
  std::uint64_t silent_closed = 0;  // closed at the timeout without a byte
};

class UsageGate {
 public:
  explicit UsageGate(GateOptions options);
  ~UsageGate();
  UsageGate(const UsageGate&) = delete;
  UsageGate& operator=(const UsageGate&) = delete;

  // Listens and starts the gate's one I/O thread; throws std::runtime_error when it cannot.
  void start();
  // Closes the listener and every connection.
  void stop();
  int port() const;
  std::string peer_of(std::string_view grpc_peer) const;
  GateStats stats() const;

 private:
  struct Connection;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tailor::controller::usage
