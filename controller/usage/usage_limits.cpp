#include "controller/usage/usage_limits.h"

#include <grpc/grpc.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/server_builder.h>

#include <algorithm>
#include <climits>
#include <cstddef>

namespace tailor::controller::usage {
namespace {

// gRPC takes milliseconds as an int; longer is "never" in practice.
int millis(kube::Duration d) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  return static_cast<int>(std::clamp<decltype(ms)>(ms, 1, INT_MAX));
}

}  // namespace

void apply_limits(grpc::ServerBuilder& builder, const UsageLimits& limits) {
  grpc::ResourceQuota quota("tailor-usage-stream");
  quota.SetMaxThreads(limits.max_threads);
  quota.Resize(static_cast<std::size_t>(limits.max_memory_mib) << 20);
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits.max_streams_per_connection);
  builder.AddChannelArgument(GRPC_ARG_SERVER_HANDSHAKE_TIMEOUT_MS,
                             millis(limits.handshake_timeout));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, millis(limits.idle_timeout));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, millis(limits.keepalive_time));
  builder.AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, millis(limits.keepalive_timeout));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS,
                             millis(limits.min_client_ping_interval));
  builder.AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, limits.max_ping_strikes);
}

}  // namespace tailor::controller::usage
