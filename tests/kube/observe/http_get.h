// A minimal blocking HTTP/1.1 GET for tests (Connection: close; Content-Length, chunked, or
// read-to-end bodies), so the endpoint tests need no client library.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tailor::kube::testing {

struct HttpAnswer {
  int status = 0;
  std::string headers;  // raw header block, lower-cased names
  std::string body;
  std::string header(const std::string& name) const {
    auto pos = headers.find("\n" + name + ":");
    if (pos == std::string::npos) return "";
    auto start = headers.find_first_not_of(' ', pos + name.size() + 2);
    return headers.substr(start, headers.find('\r', start) - start);
  }
};

// A loopback port free right now (bound, read and released), for peers started as processes
// that cannot report the port they picked.
inline std::uint16_t free_loopback_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t len = sizeof addr;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

inline std::string dechunk(const std::string& raw) {
  std::string out;
  std::size_t pos = 0;
  while (pos < raw.size()) {
    auto eol = raw.find("\r\n", pos);
    if (eol == std::string::npos) break;
    std::size_t size = std::stoul(raw.substr(pos, eol - pos), nullptr, 16);
    if (size == 0) break;
    out += raw.substr(eol + 2, size);
    pos = eol + 2 + size + 2;
  }
  return out;
}

inline HttpAnswer http_get(std::uint16_t port, const std::string& target) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) throw std::runtime_error("socket failed");
  timeval tv{10, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    throw std::runtime_error("connect to 127.0.0.1:" + std::to_string(port) + " failed");
  }
  std::string req = "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  ::send(fd, req.data(), req.size(), MSG_NOSIGNAL);
  std::string raw;
  char buf[8192];
  for (ssize_t n; (n = ::recv(fd, buf, sizeof buf, 0)) > 0;)
    raw.append(buf, static_cast<std::size_t>(n));
  ::close(fd);
  auto head_end = raw.find("\r\n\r\n");
  if (raw.compare(0, 5, "HTTP/") != 0 || head_end == std::string::npos) {
    throw std::runtime_error("bad HTTP answer for " + target + ": " + raw.substr(0, 200));
  }
  HttpAnswer a;
  a.status = std::stoi(raw.substr(raw.find(' ') + 1, 3));
  a.headers = raw.substr(0, head_end + 2);
  for (std::size_t i = a.headers.find('\n'); i != std::string::npos;
       i = a.headers.find('\n', i + 1)) {
    for (std::size_t j = i + 1; j < a.headers.size() && a.headers[j] != ':'; ++j) {
      a.headers[j] = static_cast<char>(std::tolower(static_cast<unsigned char>(a.headers[j])));
    }
  }
  a.body = raw.substr(head_end + 4);
  if (a.header("transfer-encoding") == "chunked") a.body = dechunk(a.body);
  return a;
}

// The value of the sample `series` (its name, with its labels if it has any) on the /metrics of
// the endpoint at `port`; -1 when it is not there.
inline double metrics_sample(std::uint16_t port, const std::string& series) {
  const std::string body = http_get(port, "/metrics").body;
  const auto at = body.find("\n" + series + " ");
  return at == std::string::npos ? -1 : std::stod(body.substr(at + series.size() + 2));
}

}  // namespace tailor::kube::testing
