// The usage stream's certificates for `tailor cluster up`: a usage CA of the environment's own,
// the controller's serving certificate for loopback, and each node agent's client certificate
// naming its node as a kubelet's does (CN=system:node:<node>, O=system:nodes). The controller
// then takes a node's windows only from that node's agent, as in a real cluster.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tailor::cli {

// Writes DIR/usage-tls/{ca.crt, controller.crt, controller.key, <node>.crt, <node>.key}; the
// keys readable by their owner only. Replaces what an earlier `cluster up` left.
void write_usage_certificates(const std::filesystem::path& dir,
                              const std::vector<std::string>& nodes);

// tailor-controller's flags for those files.
std::vector<std::string> controller_usage_tls_flags(const std::filesystem::path& dir);

// The node agent's flags for its node's certificate.
std::vector<std::string> agent_usage_tls_flags(const std::filesystem::path& dir,
                                               const std::string& node);

}  // namespace tailor::cli
