// http::Server's read_header_timeout (Go's http.Server ReadHeaderTimeout, 32 s in
// kube-apiserver): a client stalling in its headers or its TLS handshake is disconnected while
// others are served; slow but complete headers, an idle keep-alive connection and a long body
// upload are not cut. Outcomes are asserted (closed or answered); the test-side deadlines are
// generous, and the pauses are lower bounds that make an upload outlast the timeout.
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <string>
#include <thread>

#include "kube/http/server.h"
#include "kube/http/tls_certs.h"
#include "tests/kube/http/plain_client.h"

namespace tailor::kube::http {
namespace {

namespace net = boost::asio;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

// Far beyond any timeout set here: only a server that never hangs up reaches it.
constexpr std::chrono::milliseconds kGenerous = 30s;

// The steps of a client that stalls: raw bytes out, and whether the server hung up.
struct RawClient : testing::PlainClient {
  using PlainClient::PlainClient;
  void send(std::string_view text) { net::write(socket, net::buffer(text)); }
  // True when the server closed the connection (EOF or reset) within `max`, having sent nothing.
  bool closed_by_server(std::chrono::milliseconds max) {
    pollfd p{socket.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(max.count())) <= 0) return false;
    char byte;
    return ::recv(socket.native_handle(), &byte, 1, 0) <= 0;
  }
  bhttp::response<bhttp::string_body> read_response() {
    boost::beast::flat_buffer buffer;
    bhttp::response<bhttp::string_body> res;
    bhttp::read(socket, buffer, res);
    return res;
  }
};

// Answers with the request's body size, so that a cut upload cannot pass for a whole one.
Handler body_size_handler() {
  return [](Exchange& ex) { ex.respond({200, {}, std::to_string(ex.request().body.size())}); };
}

std::unique_ptr<Server> start_server(std::chrono::milliseconds read_header_timeout) {
  ServerOptions options;
  options.read_header_timeout = read_header_timeout;
  auto server = std::make_unique<Server>(options, body_size_handler());
  server->start();
  return server;
}

constexpr std::string_view kRequest = "GET /x HTTP/1.1\r\nHost: localhost\r\n\r\n";

TEST(HttpServerHeaderTimeout, DefaultsToKubeApiserverValue) {
  EXPECT_EQ(ServerOptions{}.read_header_timeout, 32s);
}

TEST(HttpServerHeaderTimeout, HalfAHeaderIsCutWhileOthersAreServed) {
  auto server = start_server(500ms);
  RawClient stalled(server->port());
  stalled.send("GET /x HTTP/1.1\r\nHost: loc");
  RawClient other(server->port());
  other.send(kRequest);
  EXPECT_EQ(other.read_response().result_int(), 200);
  EXPECT_TRUE(stalled.closed_by_server(kGenerous));
}

TEST(HttpServerHeaderTimeout, SilentNewConnectionIsCut) {
  auto server = start_server(300ms);
  RawClient silent(server->port());
  EXPECT_TRUE(silent.closed_by_server(kGenerous));
}

TEST(HttpServerHeaderTimeout, SlowButCompleteHeadersAreServed) {
  auto server = start_server(10s);
  RawClient client(server->port());
  for (std::string_view piece : {"GET /x HTT", "P/1.1\r\nHost: loc", "alhost\r\n", "\r\n"}) {
    client.send(piece);
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_EQ(client.read_response().result_int(), 200);
}

TEST(HttpServerHeaderTimeout, LongUploadAfterQuickHeadersIsNotCut) {
  auto server = start_server(200ms);
  RawClient client(server->port());
  client.send("POST /x HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n");
  for (int i = 0; i < 5; ++i) {
    std::this_thread::sleep_for(200ms);  // five of them: the upload outlasts the timeout
    client.send("x");
  }
  auto res = client.read_response();
  EXPECT_EQ(res.result_int(), 200);
  EXPECT_EQ(res.body(), "5");
}

// As Go: a kept-alive connection waits for its next request under the idle timeout; the header
// deadline runs from the request's first byte.
TEST(HttpServerHeaderTimeout, IdleKeepAliveConnectionIsNotCutByIt) {
  auto server = start_server(200ms);
  RawClient client(server->port());
  client.send(kRequest);
  EXPECT_EQ(client.read_response().result_int(), 200);
  std::this_thread::sleep_for(600ms);  // three header timeouts, well within the idle timeout
  client.send(kRequest);
  EXPECT_EQ(client.read_response().result_int(), 200);
}

TEST(HttpServerHeaderTimeout, ZeroMeansNoLimit) {
  auto server = start_server(0ms);
  RawClient client(server->port());
  client.send("GET /x HTTP/1.1\r\nHost: loc");
  std::this_thread::sleep_for(300ms);
  client.send("alhost\r\n\r\n");
  EXPECT_EQ(client.read_response().result_int(), 200);
}

class HttpServerHeaderTimeoutTls : public ::testing::Test {
 protected:
  void SetUp() override {
    CertificateAndKey ca = make_ca("test-ca");
    CertificateAndKey cert = make_server_certificate(ca, "server", {"localhost"}, {"127.0.0.1"});
    ca_pem_ = ca.cert_pem;
    ServerOptions options;
    options.read_header_timeout = 300ms;
    options.tls = TlsServerConfig{.cert_chain_pem = cert.cert_pem, .private_key_pem = cert.key_pem};
    server_ = std::make_unique<Server>(options, body_size_handler());
    server_->start();
  }
  std::string ca_pem_;
  std::unique_ptr<Server> server_;
};

TEST_F(HttpServerHeaderTimeoutTls, StalledHandshakeIsCut) {
  RawClient client(server_->port());
  client.send(std::string_view("\x16\x03\x01\x02", 4));  // a ClientHello record that never ends
  EXPECT_TRUE(client.closed_by_server(kGenerous));
}

TEST_F(HttpServerHeaderTimeoutTls, HalfAHeaderAfterTheHandshakeIsCut) {
  net::io_context io;
  net::ssl::context ctx{net::ssl::context::tls_client};
  ctx.add_certificate_authority(net::buffer(ca_pem_));
  ctx.set_verify_mode(net::ssl::verify_peer);
  net::ssl::stream<tcp::socket> stream(io, ctx);
  stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server_->port()));
  stream.handshake(net::ssl::stream_base::client);
  net::write(stream, net::buffer(std::string_view("GET /x HTTP/1.1\r\nHost: loc")));
  pollfd p{stream.next_layer().native_handle(), POLLIN, 0};
  ASSERT_GT(::poll(&p, 1, static_cast<int>(kGenerous.count())), 0);
  char byte;
  boost::system::error_code ec;
  stream.read_some(net::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec) << "the server answered a request it never got whole";
}

}  // namespace
}  // namespace tailor::kube::http
