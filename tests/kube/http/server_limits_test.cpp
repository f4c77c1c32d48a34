// http::Server's bounds on what clients can hold (issue 16 finding 5): at most max_connections
// are served at once (the rest wait in the listen backlog), a body that arrives too slowly is
// answered with body_timeout_response and its connection closed, and an ended connection lets
// its thread go at once. Outcomes are asserted; test-side waits are generous upper bounds, and
// the "not answered" checks can only fail for a server that answers.
#include <dirent.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <list>
#include <string>
#include <thread>

#include "kube/http/server.h"
#include "kube/http/tls_certs.h"
#include "tests/kube/http/plain_client.h"

namespace tailor::kube::http {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kGenerous = 30s;

// Answers with the request's body size, so that a cut upload cannot pass for a whole one.
Handler body_size_handler() {
  return [](Exchange& ex) { ex.respond({200, {}, std::to_string(ex.request().body.size())}); };
}

constexpr std::string_view kGet = "GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n";

// Whether the socket has something to read (or was closed) within `max`.
bool readable_within(int fd, std::chrono::milliseconds max) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(max.count())) > 0;
}

template <class Stream>
bhttp::response<bhttp::string_body> read_response(Stream& stream) {
  boost::beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  bhttp::read(stream, buffer, res);
  return res;
}

// Sends `size` bytes of body at `bytes_per_second` in tenths of a second, until the server
// answers or the body is sent; the server's answer, and how much of the body went out.
template <class Stream>
std::pair<bhttp::response<bhttp::string_body>, std::size_t> trickle_body(
    Stream& stream, int fd, std::size_t size, std::size_t bytes_per_second) {
  std::string head =
      "POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(size) + "\r\n\r\n";
  net::write(stream, net::buffer(head));
  const std::string tenth(bytes_per_second / 10, 'x');
  std::size_t sent = 0;
  while (sent < size && !readable_within(fd, 100ms)) {
    boost::system::error_code ec;
    net::write(stream, net::buffer(tenth.data(), std::min(tenth.size(), size - sent)), ec);
    if (ec) break;  // the server has shut the connection
    sent += std::min(tenth.size(), size - sent);
  }
  EXPECT_TRUE(readable_within(fd, kGenerous));
  return {read_response(stream), sent};
}

std::size_t thread_count() {
  std::size_t n = 0;
  DIR* dir = ::opendir("/proc/self/task");
  while (dirent* entry = ::readdir(dir)) n += entry->d_name[0] != '.';
  ::closedir(dir);
  return n;
}

TEST(HttpServerLimits, DefaultsBoundConnectionsAndBodies) {
  ServerOptions options;
  EXPECT_EQ(options.read_body_timeout, 60s);  // kube-apiserver's --request-timeout
  EXPECT_GT(options.max_connections, 0u);
  EXPECT_EQ(options.body_timeout_response.status, 408);
}

TEST(HttpServerLimits, ConnectionsPastTheLimitWaitUntilOneEnds) {
  ServerOptions options;
  options.max_connections = 2;
  Server server(options, body_size_handler());
  server.start();
  std::list<testing::PlainClient> idle;
  idle.emplace_back(server.port());
  idle.emplace_back(server.port());
  testing::PlainClient third(server.port());  // connected: the kernel's backlog holds it
  net::write(third.socket, net::buffer(kGet));
  EXPECT_FALSE(readable_within(third.socket.native_handle(), 500ms))
      << "a third connection was served past max_connections = 2";
  idle.pop_front();  // one ends: the third is accepted and answered
  EXPECT_EQ(read_response(third.socket).result_int(), 200);
}

TEST(HttpServerLimits, ZeroMaxConnectionsMeansNoLimit) {
  ServerOptions options;
  options.max_connections = 0;
  Server server(options, body_size_handler());
  server.start();
  std::list<testing::PlainClient> idle;
  for (int i = 0; i < 20; ++i) idle.emplace_back(server.port());
  testing::PlainClient client(server.port());
  net::write(client.socket, net::buffer(kGet));
  EXPECT_EQ(read_response(client.socket).result_int(), 200);
}

TEST(HttpServerLimits, EndedConnectionsLetTheirThreadsGo) {
  Server server(ServerOptions{}, body_size_handler());
  server.start();
  std::size_t before = thread_count();
  {
    std::list<testing::PlainClient> idle;
    for (int i = 0; i < 100; ++i) idle.emplace_back(server.port());
    auto until = std::chrono::steady_clock::now() + kGenerous;
    while (thread_count() < before + 100 && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(10ms);
    }
    ASSERT_GE(thread_count(), before + 100);
  }
  // No new connection comes to reap them: each thread must end by itself.
  auto until = std::chrono::steady_clock::now() + kGenerous;
  while (thread_count() > before && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(10ms);
  }
  EXPECT_EQ(thread_count(), before);
}

// 1 KB/s against a 1 s body deadline: cut with the configured answer after ~1 KB of 100 KB.
TEST(HttpServerLimits, SlowBodyIsCutAtTheDeadline) {
  ServerOptions options;
  options.read_body_timeout = 1s;
  options.body_timeout_response = {504, {{"Content-Type", "text/plain"}}, "too slow\n"};
  Server server(options, body_size_handler());
  server.start();
  testing::PlainClient client(server.port());
  auto [res, sent] = trickle_body(client.socket, client.socket.native_handle(), 100'000, 1000);
  EXPECT_EQ(res.result_int(), 504);
  EXPECT_EQ(res.body(), "too slow\n");
  EXPECT_FALSE(res.keep_alive());
  EXPECT_LT(sent, 100'000u);
}

TEST(HttpServerLimits, BodyWithinTheDeadlineIsServed) {
  ServerOptions options;
  options.read_body_timeout = 10s;
  Server server(options, body_size_handler());
  server.start();
  testing::PlainClient client(server.port());
  auto [res, sent] = trickle_body(client.socket, client.socket.native_handle(), 3000, 10'000);
  EXPECT_EQ(res.result_int(), 200);
  EXPECT_EQ(res.body(), "3000");
}

TEST(HttpServerLimits, SlowBodyOverTlsIsCutAtTheDeadline) {
  CertificateAndKey ca = make_ca("test-ca");
  CertificateAndKey cert = make_server_certificate(ca, "server", {"localhost"}, {"127.0.0.1"});
  ServerOptions options;
  options.read_body_timeout = 1s;
  options.tls = TlsServerConfig{.cert_chain_pem = cert.cert_pem, .private_key_pem = cert.key_pem};
  Server server(options, body_size_handler());
  server.start();
  net::io_context io;
  ssl::context ctx{ssl::context::tls_client};
  ctx.add_certificate_authority(net::buffer(ca.cert_pem));
  ctx.set_verify_mode(ssl::verify_peer);
  ssl::stream<tcp::socket> stream(io, ctx);
  stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server.port()));
  stream.handshake(ssl::stream_base::client);
  auto [res, sent] = trickle_body(stream, stream.next_layer().native_handle(), 100'000, 1000);
  EXPECT_EQ(res.result_int(), 408);
  EXPECT_LT(sent, 100'000u);
}

}  // namespace
}  // namespace tailor::kube::http
