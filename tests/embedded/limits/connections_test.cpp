// What clients can hold of tailor-cluster (issue 16 finding 5): 2,500 idle TCP connections leave
// its memory within 50 MB of before, while open and after they close, and make no more threads
// than max_connections; a body sent at 1 KB/s is cut at the request body deadline with
// kube-apiserver's 504 Timeout Status. Memory is a bound (RSS), not a duration; the waits are
// generous upper bounds.
#include <gtest/gtest.h>
#include <poll.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include "tests/embedded/raw_http_fixture.h"
#include "tests/support/idle_connections.h"

namespace tailor::embedded::testing {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kGenerous = 30s;

class ConnectionLimitsTest : public RawHttpClusterTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = RawHttpClusterTest::cluster_options();
    o.request_body_timeout = 1s;
    return o;
  }
};

TEST_F(ConnectionLimitsTest, IdleConnectionsLeaveMemoryWithin50MB) {
  ASSERT_GE(kube::testing::raise_open_files_limit(), 4000u)
      << "2,500 connections and the server's ends need descriptors";
  ASSERT_EQ(send("GET", "/api/v1/namespaces", "", "").status, 200);
  client_.reset();
  kube::testing::expect_idle_connections_bounded(cluster_->port(), 2500, 512);
  EXPECT_EQ(send("GET", "/api/v1/namespaces", "", "").status, 200);
}

// 1 KB/s of a 100 KB ConfigMap against a 1 s body deadline.
TEST_F(ConnectionLimitsTest, SlowBodyIsCutWithKubeApiserversTimeout) {
  net::io_context io;
  ssl::context ctx{ssl::context::tls_client};
  ctx.add_certificate_authority(net::buffer(cluster_->ca_pem()));
  ctx.set_verify_mode(ssl::verify_peer);
  ssl::stream<tcp::socket> stream(io, ctx);
  stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), cluster_->port()));
  stream.handshake(ssl::stream_base::client);
  std::string head =
      "POST /api/v1/namespaces/default/configmaps HTTP/1.1\r\nHost: localhost\r\n"
      "Authorization: Bearer " +
      cluster_->token() + "\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n";
  net::write(stream, net::buffer(head));
  const std::string tenth(100, ' ');
  pollfd p{stream.next_layer().native_handle(), POLLIN, 0};
  std::size_t sent = 0;
  auto until = std::chrono::steady_clock::now() + kGenerous;
  while (::poll(&p, 1, 100) == 0 && std::chrono::steady_clock::now() < until) {
    boost::system::error_code ec;
    net::write(stream, net::buffer(tenth), ec);
    if (ec) break;
    sent += tenth.size();
  }
  ASSERT_GT(::poll(&p, 1, 0), 0) << "the body was never cut";
  EXPECT_LT(sent, 100'000u);
  boost::beast::flat_buffer buffer;
  bhttp::response<bhttp::string_body> res;
  bhttp::read(stream, buffer, res);
  EXPECT_EQ(res.result_int(), 504);
  EXPECT_FALSE(res.keep_alive());
  boost::json::value status = boost::json::parse(res.body());
  boost::json::object want{{"kind", "Status"},
                           {"apiVersion", "v1"},
                           {"metadata", boost::json::object{}},
                           {"status", "Failure"},
                           {"message",
                            "Timeout: request did not complete within requested timeout - "
                            "context deadline exceeded"},
                           {"reason", "Timeout"},
                           {"details", boost::json::object{}},
                           {"code", 504}};
  EXPECT_EQ(status, want);
}

}  // namespace
}  // namespace tailor::embedded::testing
