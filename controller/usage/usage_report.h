// A usage report as the usage server reads it off the stream (proto/usage/usage.proto): which node
// its windows are checked against, and each window as plain values for window_problem and the
// binding check (usage_server.h, usage_trust.h). Pure, so the fuzz target reads reports exactly as
// the server does (fuzz/usage_stream.cpp).
#pragma once

#include <optional>
#include <string>

#include "controller/usage/usage_server.h"
#include "proto/usage/usage.pb.h"

namespace tailor::controller::usage {

UsageWindow window_from_proto(const std::string& node,
                              const tailor::usage::v1::ContainerWindow& window);

// Who a stream speaks for, fixed when it opens: the certificate's node (nullopt: none), or with
// --usage-insecure whatever each report claims.
struct Reporter {
  bool insecure = false;
  std::optional<std::string> node;

  // The node to check a report's windows against; nullopt when the report claims a node other
  // than the certificate's (an agent sends its own --node-name: a mismatch is a misconfigured
  // or forged client).
  std::optional<std::string> node_of(const tailor::usage::v1::UsageReport& report) const;
};

}  // namespace tailor::controller::usage
