// Standard base64 (RFC 4648 with padding): kubeconfig *-data fields, ExecCredential, basic auth,
// the embedded API server's continue tokens.
#pragma once

#include <string>
#include <string_view>

namespace tailor::kube {

std::string base64_encode(std::string_view data);
// Ignores whitespace (kubeconfigs wrap long lines); throws std::invalid_argument on bad input.
std::string base64_decode(std::string_view text);

}  // namespace tailor::kube
