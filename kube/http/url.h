// URL pieces shared by the HTTP server and client: percent-encoding and query strings, and the
// split of a base URL such as "https://host:6443/prefix".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tailor::kube::http {

// Percent-encodes everything except RFC 3986 unreserved characters.
std::string percent_encode(std::string_view text);
// Decodes %XX escapes (and '+' as space when plus_is_space, as in query strings). Throws
// std::invalid_argument on a malformed escape.
std::string percent_decode(std::string_view text, bool plus_is_space = false);

using QueryParams = std::vector<std::pair<std::string, std::string>>;
// "a=1&b=x%20y" -> {{"a","1"},{"b","x y"}}; a key without '=' has an empty value.
QueryParams parse_query(std::string_view query);
// The inverse; empty when params is empty, otherwise without the leading '?'.
std::string build_query(const QueryParams& params);

struct Url {
  bool tls = false;
  std::string host;  // without brackets for IPv6 literals
  std::uint16_t port = 0;
  std::string path_prefix;  // "" or "/prefix" (no trailing slash)
};
// Parses http(s)://host[:port][/prefix]; throws std::invalid_argument with the URL on error.
Url parse_url(std::string_view url);

}  // namespace tailor::kube::http
