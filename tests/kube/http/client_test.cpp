// http::Client against the in-process http::Server: keep-alive, concurrency, deadlines,
// streaming with cancellation, TLS verification options, and broken servers.
#include "kube/http/client.h"

#include <gtest/gtest.h>
#include <sys/socket.h>

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/streambuf.hpp>
#include <boost/asio/write.hpp>
#include <future>
#include <thread>

#include "kube/http/server.h"
#include "kube/http/tls_certs.h"

namespace tailor::kube::http {
namespace {

using namespace std::chrono_literals;

ClientRequest get(const std::string& target, std::chrono::milliseconds timeout = 5s) {
  ClientRequest request;
  request.target = target;
  request.timeout = timeout;
  return request;
}

ClientError::Kind kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ClientError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no ClientError thrown";
  return ClientError::Kind::Io;
}

// Streams /watch and cancels the stream once its first piece has arrived (the server keeps it
// open and idle); returns what was received.
std::string first_piece_of_watch(Client& client) {
  std::atomic<bool> cancel{false};
  std::string received;
  client.stream(
      get("/watch"),
      [&](std::string_view piece) {
        received += piece;
        cancel = true;
        return true;
      },
      [&] { return cancel.load(); });
  return received;
}

Handler echo_handler() {
  return [](Exchange& ex) {
    const auto& req = ex.request();
    ex.respond({200,
                {{"Content-Type", "text/plain"}, {"X-Method", req.method}},
                req.method + " " + req.target + " " + req.body});
  };
}

TEST(HttpClient, ReusesOneConnection) {
  Server server({}, echo_handler());
  server.start();
  Client client({server.url()});
  for (int i = 0; i < 3; ++i) {
    ClientResponse response = client.send(get("/api/v1/pods?limit=" + std::to_string(i)));
    EXPECT_EQ(response.status, 200);
    EXPECT_EQ(response.body, "GET /api/v1/pods?limit=" + std::to_string(i) + " ");
    EXPECT_EQ(response.header("x-method"), "GET");
  }
  EXPECT_EQ(client.connections_opened(), 1u);
}

TEST(HttpClient, SendsBodyAndPrefixesThePath) {
  Server server({}, echo_handler());
  server.start();
  Client client({server.url() + "/prefix/"});
  ClientRequest request = get("/apis/x");
  request.method = "PATCH";
  request.body = R"({"a":1})";
  request.headers = {{"Content-Type", "application/merge-patch+json"}};
  EXPECT_EQ(client.send(request).body, R"(PATCH /prefix/apis/x {"a":1})");
}

TEST(HttpClient, ServesConcurrentCallers) {
  Server server({}, echo_handler());
  server.start();
  Client client({server.url()});
  std::vector<std::future<std::string>> results;
  for (int t = 0; t < 4; ++t) {
    results.push_back(std::async(std::launch::async, [&client, t] {
      std::string all;
      for (int i = 0; i < 10; ++i) all += client.send(get("/" + std::to_string(t))).body;
      return all;
    }));
  }
  for (int t = 0; t < 4; ++t) {
    std::string expected;
    for (int i = 0; i < 10; ++i) expected += "GET /" + std::to_string(t) + " ";
    EXPECT_EQ(results[t].get(), expected);
  }
  EXPECT_LE(client.connections_opened(), 4u);
}

TEST(HttpClient, TimesOutOnAHangingServer) {
  Server server({}, [](Exchange& ex) { ex.wait_closed(1min); });
  server.start();
  Client client({server.url()});
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(kind_of([&] { client.send(get("/hang", 200ms)); }), ClientError::Kind::Timeout);
  EXPECT_GE(std::chrono::steady_clock::now() - started, 200ms);
}

TEST(HttpClient, ConnectionRefused) {
  std::uint16_t port;
  {
    Server server({}, echo_handler());
    server.start();
    port = server.port();
  }
  Client client({"http://127.0.0.1:" + std::to_string(port)});
  EXPECT_EQ(kind_of([&] { client.send(get("/")); }), ClientError::Kind::Connect);
}

TEST(HttpClient, StreamsChunksAsTheyArrive) {
  std::promise<void> first_seen;
  Server server({}, [&](Exchange& ex) {
    ex.start_stream(200, {{"Content-Type", "application/json"}});
    ex.write("one\n");
    // The second chunk is sent only after the client saw the first: no buffering until the end.
    first_seen.get_future().wait();
    ex.write("two\n");
    ex.finish();
  });
  server.start();
  Client client({server.url()});
  std::vector<std::string> pieces;
  ClientResponse response = client.stream(
      get("/watch"),
      [&](std::string_view piece) {
        pieces.emplace_back(piece);
        if (pieces.size() == 1) first_seen.set_value();
        return true;
      },
      nullptr);
  EXPECT_EQ(response.status, 200);
  EXPECT_EQ(pieces, (std::vector<std::string>{"one\n", "two\n"}));
}

TEST(HttpClient, CancelsAnIdleStream) {
  Server server({}, [](Exchange& ex) {
    ex.start_stream(200, {});
    ex.write("hello\n");
    ex.wait_closed(1min);
  });
  server.start();
  Client client({server.url()});
  EXPECT_EQ(first_piece_of_watch(client), "hello\n");
}

TEST(HttpClient, StreamReturnsErrorBodiesWhole) {
  Server server({}, [](Exchange& ex) { ex.respond({410, {}, R"({"kind":"Status","code":410})"}); });
  server.start();
  Client client({server.url()});
  bool sink_called = false;
  ClientResponse response = client.stream(
      get("/watch"), [&](std::string_view) { return sink_called = true; }, nullptr);
  EXPECT_EQ(response.status, 410);
  EXPECT_EQ(response.body, R"({"kind":"Status","code":410})");
  EXPECT_FALSE(sink_called);
}

TEST(HttpClient, RejectsOversizedBodies) {
  Server server({}, [](Exchange& ex) { ex.respond({200, {}, std::string(4096, 'x')}); });
  server.start();
  ClientOptions options{server.url()};
  options.max_response_body = 1024;
  Client client(options);
  EXPECT_EQ(kind_of([&] { client.send(get("/")); }), ClientError::Kind::Protocol);
}

// A TCP server that answers one request on each of `connections` connections with fixed
// bytes, then closes the connection.
class RawServer {
 public:
  explicit RawServer(std::string reply, int connections = 1) : reply_(std::move(reply)) {
    acceptor_.open(boost::asio::ip::tcp::v4());
    acceptor_.bind({boost::asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
    thread_ = std::thread([this, connections] {
      for (int i = 0; i < connections; ++i) {
        boost::asio::ip::tcp::socket socket(io_);
        acceptor_.accept(socket);
        boost::asio::streambuf request;
        boost::asio::read_until(socket, request, "\r\n\r\n");
        boost::asio::write(socket, boost::asio::buffer(reply_));
      }
    });
  }
  ~RawServer() { thread_.join(); }
  std::string url() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_.local_endpoint().port());
  }

 private:
  std::string reply_;
  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_{io_};
  std::thread thread_;
};

TEST(HttpClient, MalformedResponsesAreProtocolErrors) {
  RawServer server("SPDY/9 banana\r\n\r\n");
  Client client({server.url()});
  EXPECT_EQ(kind_of([&] { client.send(get("/")); }), ClientError::Kind::Protocol);
}

TEST(HttpClient, TruncatedResponsesAreIoErrors) {
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort");
  Client client({server.url()});
  EXPECT_EQ(kind_of([&] { client.send(get("/")); }), ClientError::Kind::Io);
}

TEST(HttpClient, ResendsOnAConnectionTheServerClosedWhileIdle) {
  // Keep-alive answers (HTTP/1.1 default), but the server closes each connection afterwards.
  RawServer server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 2);
  Client client({server.url()});
  EXPECT_EQ(client.send(get("/one")).body, "ok");
  EXPECT_EQ(client.send(get("/two")).body, "ok");
  EXPECT_EQ(client.connections_opened(), 2u);
}

TEST(HttpClient, RejectsABadBaseUrl) { EXPECT_THROW(Client({"ftp://x"}), std::invalid_argument); }

class TlsClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ca_ = make_ca("ca");
    auto cert = make_server_certificate(ca_, "apiserver", {"localhost", "kubernetes.default"},
                                        {"127.0.0.1"});
    ServerOptions options;
    options.tls = TlsServerConfig{cert.cert_pem, cert.key_pem, ca_.cert_pem, false};
    server_ = std::make_unique<Server>(options, [](Exchange& ex) {
      ex.respond({200, {}, "cn=" + ex.request().peer_common_name});
    });
    server_->start();
  }

  std::string send(ClientTlsConfig tls) {
    Client client({server_->url(), std::move(tls)});
    return client.send(get("/")).body;
  }

  CertificateAndKey ca_;
  std::unique_ptr<Server> server_;
};

TEST_F(TlsClientTest, VerifiesTheServerAgainstTheCa) { EXPECT_EQ(send({ca_.cert_pem}), "cn="); }

TEST_F(TlsClientTest, PresentsAClientCertificate) {
  auto client = make_client_certificate(ca_, "alice", {"devs"});
  EXPECT_EQ(send({ca_.cert_pem, client.cert_pem, client.key_pem}), "cn=alice");
}

TEST_F(TlsClientTest, RejectsAServerFromAnotherCa) {
  auto other = make_ca("other");
  EXPECT_EQ(kind_of([&] { send({other.cert_pem}); }), ClientError::Kind::Tls);
}

TEST_F(TlsClientTest, InsecureSkipVerifyAcceptsAnyServer) {
  auto other = make_ca("other");
  ClientTlsConfig tls{other.cert_pem};
  tls.insecure_skip_verify = true;
  EXPECT_EQ(send(tls), "cn=");
}

TEST_F(TlsClientTest, ChecksTheConfiguredServerName) {
  ClientTlsConfig matching{ca_.cert_pem};
  matching.server_name = "kubernetes.default";
  EXPECT_EQ(send(matching), "cn=");
  ClientTlsConfig wrong{ca_.cert_pem};
  wrong.server_name = "example.com";
  EXPECT_EQ(kind_of([&] { send(wrong); }), ClientError::Kind::Tls);
}

// A listener that never accepts: the TCP connection is made, the ServerHello never comes. The
// handshake is under the request's deadline like the exchange.
TEST_F(TlsClientTest, TimesOutWhenTheServerNeverAnswersTheHandshake) {
  namespace net = boost::asio;
  net::io_context io;
  net::ip::tcp::acceptor silent(io, {net::ip::make_address("127.0.0.1"), 0});
  Client client(
      {"https://127.0.0.1:" + std::to_string(silent.local_endpoint().port()), {ca_.cert_pem}});
  EXPECT_EQ(kind_of([&] { client.send(get("/", 200ms)); }), ClientError::Kind::Timeout);
}

TEST_F(TlsClientTest, RejectsUnusableTlsMaterial) {
  ClientTlsConfig bad{"-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n"};
  EXPECT_EQ(kind_of([&] { send(bad); }), ClientError::Kind::Tls);
}

// The transport over TLS (after the handshake the client reads and writes through OpenSSL's own
// socket BIOs): large bodies, keep-alive, deadlines, cancellation, stale connections.
class TlsTransportTest : public ::testing::Test {
 protected:
  // A new CA in ca_, and the server certificate it signs.
  CertificateAndKey make_certificates() {
    ca_ = make_ca("ca");
    return make_server_certificate(ca_, "apiserver", {"localhost"}, {"127.0.0.1"});
  }

  void start(Handler handler, std::chrono::seconds idle_timeout = 120s) {
    auto cert = make_certificates();
    ServerOptions options;
    options.tls = TlsServerConfig{cert.cert_pem, cert.key_pem, "", false};
    options.idle_timeout = idle_timeout;
    server_ = std::make_unique<Server>(options, std::move(handler));
    server_->start();
    client_ = std::make_unique<Client>(ClientOptions{server_->url(), {ca_.cert_pem}});
  }

  CertificateAndKey ca_;
  std::unique_ptr<Server> server_;
  std::unique_ptr<Client> client_;
};

// 3 MiB of distinct bytes: a body read straight into the response (over 1 MiB), as a list is.
std::string large_text() {
  std::string text;
  for (int i = 0; text.size() < (3u << 20); ++i) text += std::to_string(i) + ",";
  return text;
}

TEST_F(TlsTransportTest, LargeBodiesAndChunksArriveWholeOnOneConnection) {
  const std::string text = large_text();
  start([&](Exchange& ex) {
    if (ex.request().path == "/watch") {
      ex.start_stream(200, {});
      ex.write(text);
      ex.write("end\n");
      ex.finish();
    } else {
      ex.respond({200, {}, ex.request().path == "/large" ? text : "ok"});
    }
  });
  EXPECT_EQ(client_->send(get("/large")).body, text);
  EXPECT_EQ(client_->send(get("/small")).body, "ok");
  std::string streamed;
  client_->stream(
      get("/watch"),
      [&](std::string_view piece) {
        streamed += piece;
        return true;
      },
      nullptr);
  EXPECT_EQ(streamed, text + "end\n");
  EXPECT_EQ(client_->send(get("/large")).body, text);
  EXPECT_EQ(client_->connections_opened(), 1u);
}

// A request's start line, fields and body are several buffers: gathered into records of up to
// 16 KiB, a small request and one larger than a record both arrive whole and in order.
TEST_F(TlsTransportTest, RequestsArriveWholeWhateverTheirSize) {
  start(echo_handler());
  for (std::size_t size : {std::size_t{7}, std::size_t{16 * 1024 - 100}, std::size_t{100'000}}) {
    std::string body;
    for (int i = 0; body.size() < size; ++i) body += std::to_string(i) + ",";
    body.resize(size);
    ClientRequest request = get("/apis/x");
    request.method = "PUT";
    request.body = body;
    EXPECT_EQ(client_->send(request).body, "PUT /apis/x " + body) << size;
  }
  EXPECT_EQ(client_->connections_opened(), 1u);
}

TEST_F(TlsTransportTest, TimesOutAndCancels) {
  start([](Exchange& ex) {
    if (ex.request().path == "/watch") {
      ex.start_stream(200, {});
      ex.write("hello\n");
    }
    ex.wait_closed(1min);
  });
  EXPECT_EQ(kind_of([&] { client_->send(get("/hang", 200ms)); }), ClientError::Kind::Timeout);
  EXPECT_EQ(first_piece_of_watch(*client_), "hello\n");
}

TEST_F(TlsTransportTest, ResendsOnAConnectionTheServerClosedWhileIdle) {
  // Keep-alive answers, but the server closes each connection afterwards (TCP only, no TLS
  // close_notify), as RawServer does over plain HTTP.
  auto cert = make_certificates();
  namespace net = boost::asio;
  net::io_context io;
  net::ip::tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  net::ssl::context tls(net::ssl::context::tls_server);
  tls.use_certificate_chain(net::buffer(cert.cert_pem));
  tls.use_private_key(net::buffer(cert.key_pem), net::ssl::context::pem);
  std::thread server([&] {
    try {
      for (int i = 0; i < 2; ++i) {
        net::ssl::stream<net::ip::tcp::socket> stream(io, tls);
        acceptor.accept(stream.next_layer());
        stream.handshake(net::ssl::stream_base::server);
        net::streambuf request;
        net::read_until(stream, request, "\r\n\r\n");
        net::write(stream,
                   net::buffer(std::string("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")));
      }
    } catch (const std::exception&) {  // the client failed and the acceptor was shut down
    }
  });
  Client client(
      {"https://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()), {ca_.cert_pem}});
  EXPECT_NO_THROW({
    EXPECT_EQ(client.send(get("/one")).body, "ok");
    EXPECT_EQ(client.send(get("/two")).body, "ok");
  });
  EXPECT_EQ(client.connections_opened(), 2u);
  ::shutdown(acceptor.native_handle(), SHUT_RDWR);  // wakes accept() if the client gave up
  server.join();
}

}  // namespace
}  // namespace tailor::kube::http
