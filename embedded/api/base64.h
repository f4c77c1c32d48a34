// Standard base64 with padding (OpenSSL's EVP block codec): continue tokens, kubeconfig data.
#pragma once

#include <string>
#include <string_view>

namespace tailor::kube::embedded {

std::string base64_encode(std::string_view data);
// Throws std::invalid_argument on malformed input.
std::string base64_decode(std::string_view text);

}  // namespace tailor::kube::embedded
