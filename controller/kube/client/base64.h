// Standard base64 (RFC 4648 with padding), as kubeconfig *-data fields and ExecCredential use.
#pragma once

#include <string>
#include <string_view>

namespace tailor::kube {

std::string base64_encode(std::string_view data);
// Ignores whitespace (kubeconfigs wrap long lines); throws std::invalid_argument on bad input.
std::string base64_decode(std::string_view text);

}  // namespace tailor::kube
