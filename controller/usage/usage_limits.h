// What one usage server may spend, in gRPC's own terms (issue 16 finding 5). gRPC's server is
// event-driven: a TCP connection costs no thread, only its transport's buffers, so what needs a
// bound is (1) connections that never finish their TLS handshake or sit idle, (2) streams on one
// connection, (3) the threads the synchronous server starts (one per open stream: each agent holds
// one long-lived stream), and (4) the memory all transports take together.
#pragma once

#include <chrono>

#include "kube/observe/duration.h"

namespace grpc {
class ServerBuilder;
}

namespace tailor::controller::usage {

struct UsageLimits {
  // Connections the usage port holds at once (usage_gate.h), silent or streaming: agents hold
  // one each, and Kubernetes supports 5,000 nodes, so twice that leaves room for agents
  // reconnecting while their old connection is still being closed. Past it a client waits in the
  // kernel's accept backlog until one closes. <= 0: no gate, gRPC listens itself (no cap).
  int max_connections = 10000;
  // An agent streams on one RPC at a time; a few more cover a reconnect racing the old stream.
  // A client past the cap waits (well-behaved clients honour SETTINGS_MAX_CONCURRENT_STREAMS)
  // or has its streams refused (REFUSED_STREAM) by the transport.
  int max_streams_per_connection = 4;
  // Threads of the synchronous server, one per open stream. Kubernetes supports 5,000 nodes:
  // one stream each and headroom for pollers. Past it a new stream gets RESOURCE_EXHAUSTED and
  // the agent tries again later; the open ones keep going. Thread stacks are touched lazily, so
  // the cap is on what a flood can make, not what the server costs at rest.
  int max_threads = 5200;
  // Memory of every transport together (read buffers, HPACK tables, messages in flight). A
  // node's report is tens of KiB, and thousands of agents send theirs spread over the report
  // interval. Past it gRPC shrinks its buffers and then refuses new work. Half the chart's
  // container memory limit (512Mi), so the models keep the rest.
  int max_memory_mib = 256;
  // A connection must send its first bytes within this (the gate closes one that says nothing,
  // having spent no TLS state on it), and then finish its TLS handshake and HTTP/2 preface
  // within as long again (gRPC). Agents handshake in milliseconds. A connection one side has
  // closed (its FIN) is closed by the gate when the other side has not closed it within this too.
  kube::Duration handshake_timeout = std::chrono::seconds(10);
  // A connection with no open stream for this long is closed with GOAWAY. An agent keeps its
  // stream open, so only abandoned or hostile connections are idle.
  kube::Duration idle_timeout = std::chrono::minutes(5);
  // A stream that delivers no whole report for this long is cancelled (stall_watch.h): one
  // stalled after its first report, or sending a message a byte at a time. An agent reports
  // every --usage-report-interval (15 s) while its node runs containers; a quiet agent whose
  // stream was cut sends its next report on a new one. <= 0: never.
  kube::Duration stall_timeout = std::chrono::minutes(5);
  // The server pings a connection silent for keepalive_time and closes it when the ping is not
  // answered within keepalive_timeout: an agent whose node vanished (no FIN ever arrives) frees
  // its stream and thread within about a minute and a half.
  kube::Duration keepalive_time = std::chrono::seconds(60);
  kube::Duration keepalive_timeout = std::chrono::seconds(20);
  // Pings a client may send without data: no more often than this, and after this many too
  // frequent ones the connection is closed (a ping flood costs the server a reply each).
  kube::Duration min_client_ping_interval = std::chrono::seconds(10);
  int max_ping_strikes = 2;
};

// Applies the limits to a server about to be built.
void apply_limits(grpc::ServerBuilder& builder, const UsageLimits& limits);

}  // namespace tailor::controller::usage
