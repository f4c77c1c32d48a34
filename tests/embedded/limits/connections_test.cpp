// What clients can hold of tailor-cluster (issue 16 finding 5): 2,500 idle TCP connections leave
// its memory within 50 MB of before, while open and after they close, and make no more threads
// than max_connections; a body sent at 1 KB/s is cut at the request body deadline with
// kube-apiserver's 504 Timeout Status. Memory is a bound (RSS), not a duration; the waits are
// generous upper bounds.
#include <dirent.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>
#include <thread>
#include <vector>

#include "tests/embedded/raw_http_fixture.h"
#include "tests/support/process_figures.h"

namespace tailor::embedded::testing {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using namespace std::chrono_literals;

constexpr std::chrono::milliseconds kGenerous = 30s;

long rss_mib() { return kube::testing::process_figures().rss_kib / 1024; }
long threads() { return kube::testing::process_figures().threads; }

// Waits until the thread count has held still for a while (the server has taken every
// connection it will), at most kGenerous.
long settled_threads() {
  auto until = std::chrono::steady_clock::now() + kGenerous;
  long last = threads();
  for (int still = 0; still < 10 && std::chrono::steady_clock::now() < until; ++still) {
    std::this_thread::sleep_for(100ms);
    long now = threads();
    if (now != last) still = 0;
    last = now;
  }
  return last;
}

int connect_to(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  return fd;
}

class ConnectionLimitsTest : public RawHttpClusterTest {
 protected:
  ClusterOptions cluster_options() override {
    ClusterOptions o = RawHttpClusterTest::cluster_options();
    o.request_body_timeout = 1s;
    return o;
  }
};

TEST_F(ConnectionLimitsTest, IdleConnectionsLeaveMemoryWithin50MB) {
  rlimit files{};
  ::getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  ASSERT_GE(files.rlim_cur, 4000u) << "2,500 connections and the server's ends need descriptors";
  ASSERT_EQ(send("GET", "/api/v1/namespaces", "", "").status, 200);
  client_.reset();
  long threads_before = settled_threads();
  long before = rss_mib();
  std::vector<int> idle;
  for (int i = 0; i < 2500; ++i) idle.push_back(connect_to(cluster_->port()));
  long threads_open = settled_threads();
  long open = rss_mib();
  EXPECT_LE(threads_open - threads_before, 512) << "more threads than max_connections";
  EXPECT_LE(open - before, 50) << "RSS " << before << " MiB before, " << open << " with 2,500 idle";
  for (int fd : idle) ::close(fd);
  auto until = std::chrono::steady_clock::now() + kGenerous;
  while (threads() > threads_before && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_EQ(threads(), threads_before);
  long after = rss_mib();
  EXPECT_LE(after - before, 50) << "RSS " << before << " MiB before, " << after << " after";
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
