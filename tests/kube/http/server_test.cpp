// http::Server against raw Beast clients: plain and TLS (client certificates), keep-alive,
// chunked streaming, abort(), stop() ending a blocked handler, bad requests.
#include "kube/http/server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <future>
#include <optional>
#include <thread>

#include "kube/http/tls_certs.h"
#include "tests/kube/http/plain_client.h"

namespace tailor::kube::http {
namespace {

namespace net = boost::asio;
namespace ssl = boost::asio::ssl;
namespace bhttp = boost::beast::http;
using tcp = net::ip::tcp;
using Response = bhttp::response<bhttp::string_body>;

template <class Stream>
Response round_trip(Stream& stream, bhttp::verb verb, const std::string& target,
                    const std::string& body = "") {
  bhttp::request<bhttp::string_body> req(verb, target, 11);
  req.set(bhttp::field::host, "localhost");
  req.body() = body;
  req.prepare_payload();
  bhttp::write(stream, req);
  boost::beast::flat_buffer buffer;
  Response res;
  bhttp::read(stream, buffer, res);
  return res;
}

using testing::PlainClient;

ServerOptions plain_options() { return ServerOptions{}; }

// What the pieces of pieces_handler's answers join to.
std::string numbered_items(int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += (i == 0 ? "" : ",") + std::to_string(i);
  return text;
}

// Answers given in pieces, as a list is: "/list" a body of `count` numbers and the ","
// between them, each piece separate (more than a TLS block and a writev batch); "/watch" chunks
// of several pieces, one of 300 KiB; anything else a plain "ok".
Handler pieces_handler(int count) {
  return [count](Exchange& ex) {
    const std::string& path = ex.request().path;
    if (path == "/list") {
      auto numbers = std::make_shared<std::vector<std::string>>();
      for (int i = 0; i < count; ++i) numbers->push_back(std::to_string(i));
      ServerResponse response{200, {{"Content-Type", "text/plain"}}, "["};
      for (const std::string& number : *numbers) {
        if (&number != &numbers->front()) response.more_body.pieces.emplace_back(",");
        response.more_body.pieces.emplace_back(number);
      }
      response.more_body.pieces.emplace_back("]");
      response.more_body.owner = numbers;
      ex.respond(std::move(response));
    } else if (path == "/watch") {
      ex.start_stream(200, {});
      std::string_view event[] = {"{\"type\":", "\"ADDED\"", "}\n"};
      EXPECT_TRUE(ex.write_pieces(event));
      EXPECT_TRUE(ex.write(std::string(300 * 1024, 'x') + "\n"));
      EXPECT_TRUE(ex.write_pieces(event));
      ex.finish();
    } else {
      ex.respond({200, {}, "ok"});
    }
  };
}

// The list, a watch and a small answer, one after another on one connection.
template <class Stream>
void expect_pieces_answers(Stream& stream, int count) {
  Response list = round_trip(stream, bhttp::verb::get, "/list");
  EXPECT_EQ(list.result_int(), 200);
  EXPECT_EQ(list[bhttp::field::content_length], std::to_string(list.body().size()));
  EXPECT_EQ(list.body(), "[" + numbered_items(count) + "]");
  EXPECT_TRUE(list.keep_alive());
  Response watch = round_trip(stream, bhttp::verb::get, "/watch");
  EXPECT_TRUE(watch.chunked());
  std::string event = "{\"type\":\"ADDED\"}\n";
  EXPECT_EQ(watch.body(), event + std::string(300 * 1024, 'x') + "\n" + event);
  EXPECT_EQ(round_trip(stream, bhttp::verb::get, "/").body(), "ok");
}

TEST(HttpServer, AnswersAndKeepsConnectionAlive) {
  Server server(plain_options(), [](Exchange& ex) {
    const auto& req = ex.request();
    std::string text = req.method + " " + req.path + " q=" + req.query_param("q").value_or("-") +
                       " h=" + std::string(req.header("x-test")) + " body=" + req.body;
    ex.respond({201, {{"Content-Type", "text/plain"}}, text});
  });
  server.start();
  ASSERT_NE(server.port(), 0);
  EXPECT_EQ(server.url(), "http://127.0.0.1:" + std::to_string(server.port()));
  PlainClient client(server.port());
  bhttp::request<bhttp::string_body> req(bhttp::verb::post, "/a%20b/c?q=x%2By&z", 11);
  req.set("X-Test", "yes");
  req.body() = "payload";
  req.prepare_payload();
  bhttp::write(client.socket, req);
  boost::beast::flat_buffer buffer;
  Response res;
  bhttp::read(client.socket, buffer, res);
  EXPECT_EQ(res.result_int(), 201);
  EXPECT_EQ(res.body(), "POST /a b/c q=x+y h=yes body=payload");
  EXPECT_TRUE(res.keep_alive());
  // The same connection serves a second request.
  Response again = round_trip(client.socket, bhttp::verb::get, "/next");
  EXPECT_EQ(again.body(), "GET /next q=- h= body=");
}

TEST(HttpServer, StreamsChunks) {
  Server server(plain_options(), [](Exchange& ex) {
    ex.start_stream(200, {{"Content-Type", "application/json"}});
    EXPECT_TRUE(ex.write("{\"a\":"));
    EXPECT_TRUE(ex.write("1}\n"));
    EXPECT_TRUE(ex.write("{\"b\":2}\n"));
    ex.finish();
  });
  server.start();
  PlainClient client(server.port());
  Response res = round_trip(client.socket, bhttp::verb::get, "/watch");
  EXPECT_TRUE(res.chunked());
  EXPECT_EQ(res.body(), "{\"a\":1}\n{\"b\":2}\n");
}

TEST(HttpServer, SendsBodiesGivenInPieces) {
  Server server(plain_options(), pieces_handler(100000));
  server.start();
  PlainClient client(server.port());
  expect_pieces_answers(client.socket, 100000);
}

TEST(HttpServer, HandlerExceptionsAndMissingAnswersBecome500) {
  Server server(plain_options(), [](Exchange& ex) {
    if (ex.request().path == "/throw") throw std::runtime_error("boom");
  });
  server.start();
  PlainClient client(server.port());
  Response thrown = round_trip(client.socket, bhttp::verb::get, "/throw");
  EXPECT_EQ(thrown.result_int(), 500);
  EXPECT_EQ(thrown.body(), "boom\n");
  Response silent = round_trip(client.socket, bhttp::verb::get, "/silent");
  EXPECT_EQ(silent.result_int(), 500);
}

TEST(HttpServer, MalformedRequestGets400) {
  Server server(plain_options(), [](Exchange& ex) { ex.respond({}); });
  server.start();
  PlainClient client(server.port());
  net::write(client.socket, net::buffer(std::string("GARBAGE\x01 / HTTP/1.1\r\n\r\n")));
  boost::beast::flat_buffer buffer;
  Response res;
  bhttp::read(client.socket, buffer, res);
  EXPECT_EQ(res.result_int(), 400);
  // A bad percent-escape in the path is a bad request too.
  PlainClient second(server.port());
  EXPECT_EQ(round_trip(second.socket, bhttp::verb::get, "/bad%zz").result_int(), 400);
}

TEST(HttpServer, AbortDropsTheConnection) {
  Server server(plain_options(), [](Exchange& ex) {
    ex.start_stream(200, {});
    ex.write("partial\n");
    ex.abort();
    EXPECT_TRUE(ex.closed());
    EXPECT_FALSE(ex.write("more"));
  });
  server.start();
  PlainClient client(server.port());
  EXPECT_THROW(round_trip(client.socket, bhttp::verb::get, "/"), boost::system::system_error);
}

TEST(HttpServer, StopEndsBlockedStreamingHandlers) {
  std::promise<void> streaming;
  std::atomic<bool> saw_close{false};
  Server server(plain_options(), [&](Exchange& ex) {
    ex.start_stream(200, {});
    streaming.set_value();
    // Without stop() this would wait a minute; stop() must end it at once.
    saw_close = ex.wait_closed(std::chrono::minutes(1));
  });
  server.start();
  PlainClient client(server.port());
  bhttp::request<bhttp::empty_body> req(bhttp::verb::get, "/watch", 11);
  bhttp::write(client.socket, req);
  streaming.get_future().wait();
  server.stop();
  EXPECT_TRUE(saw_close);
}

// A client that stops reading holds its connection's thread in the write, without a time limit,
// as kube-apiserver (no WriteTimeout) does; stop() must still end it. 64 MiB is more than the
// socket buffers take, so the answer cannot be written before stop().
constexpr std::size_t kUnreadAnswer = 64 << 20;

TEST(HttpServer, StopEndsAnAnswerTheClientDoesNotRead) {
  std::promise<void> answering;
  std::atomic<bool> answered{false};
  Server server(plain_options(), [&](Exchange& ex) {
    answering.set_value();
    ex.respond({200, {}, std::string(kUnreadAnswer, 'x')});
    answered = true;
  });
  server.start();
  PlainClient client(server.port());
  bhttp::request<bhttp::empty_body> req(bhttp::verb::get, "/", 11);
  bhttp::write(client.socket, req);
  answering.get_future().wait();
  server.stop();  // returns once the connection's thread is joined
  EXPECT_TRUE(answered);
}

TEST(HttpServer, NoticesThePeerGoingAway) {
  std::promise<bool> closed;
  std::promise<void> streaming;
  Server server(plain_options(), [&](Exchange& ex) {
    ex.start_stream(200, {});
    streaming.set_value();
    closed.set_value(ex.wait_closed(std::chrono::minutes(1)));
  });
  server.start();
  {
    PlainClient client(server.port());
    bhttp::request<bhttp::empty_body> req(bhttp::verb::get, "/watch", 11);
    bhttp::write(client.socket, req);
    streaming.get_future().wait();
  }  // the client disconnects here
  EXPECT_TRUE(closed.get_future().get());
}

TEST(HttpServer, ClosesIdleConnections) {
  ServerOptions options;
  options.idle_timeout = std::chrono::seconds(1);
  Server server(options, [](Exchange& ex) { ex.respond({}); });
  server.start();
  PlainClient client(server.port());
  char byte;
  boost::system::error_code ec;
  client.socket.read_some(net::buffer(&byte, 1), ec);  // blocks until the server hangs up
  EXPECT_EQ(ec, net::error::eof);
}

// Zero means no idle timeout (as Go's http.Server IdleTimeout): a connection whose first or next
// request comes late is still served. The pauses only let the server reach its wait first.
TEST(HttpServer, ZeroIdleTimeoutKeepsQuietConnections) {
  ServerOptions options;
  options.idle_timeout = std::chrono::seconds(0);
  Server server(options, [](Exchange& ex) { ex.respond({200, {}, "ok"}); });
  server.start();
  PlainClient client(server.port());
  for (int request = 0; request < 2; ++request) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    Response res = round_trip(client.socket, bhttp::verb::get, "/late");
    EXPECT_EQ(res.result_int(), 200);
    EXPECT_EQ(res.body(), "ok");
  }
}

TEST(HttpServer, RefusesToStartOnABadAddress) {
  ServerOptions options;
  options.address = "not-an-address";
  Server server(options, [](Exchange&) {});
  EXPECT_THROW(server.start(), std::runtime_error);
}

class TlsServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ca_ = new CertificateAndKey(make_ca("test-ca"));
    other_ca_ = new CertificateAndKey(make_ca("other-ca"));
    server_cert_ = new CertificateAndKey(
        make_server_certificate(*ca_, "server", {"localhost"}, {"127.0.0.1"}));
  }
  static void TearDownTestSuite() {
    delete ca_;
    delete other_ca_;
    delete server_cert_;
  }

  void start(bool require_client_cert, bool verify_client_in_handler = false) {
    start_with(require_client_cert, verify_client_in_handler, [](Exchange& ex) {
      std::string who = ex.request().peer_common_name;
      for (const auto& org : ex.request().peer_organizations) who += "|" + org;
      ex.respond({200, {}, who});
    });
  }

  void start_with(bool require_client_cert, bool verify_client_in_handler, Handler handler) {
    ServerOptions options;
    options.tls = TlsServerConfig{server_cert_->cert_pem, server_cert_->key_pem, ca_->cert_pem,
                                  require_client_cert, verify_client_in_handler};
    server_ = std::make_unique<Server>(options, std::move(handler));
    server_->start();
  }

  // A TLS client connection, verifying the server against ca_, presenting `client` if given.
  struct TlsClient {
    net::io_context io;
    ssl::context ctx{ssl::context::tls_client};
    std::optional<ssl::stream<tcp::socket>> stream;
  };
  void connect(TlsClient& c, const CertificateAndKey* client) {
    c.ctx.add_certificate_authority(net::buffer(ca_->cert_pem));
    c.ctx.set_verify_mode(ssl::verify_peer);
    if (client != nullptr) {
      c.ctx.use_certificate_chain(net::buffer(client->cert_pem));
      c.ctx.use_private_key(net::buffer(client->key_pem), ssl::context::pem);
    }
    c.stream.emplace(c.io, c.ctx);
    c.stream->set_verify_callback(ssl::host_name_verification("127.0.0.1"));
    c.stream->next_layer().connect(
        tcp::endpoint(net::ip::make_address("127.0.0.1"), server_->port()));
    c.stream->handshake(ssl::stream_base::client);
  }

  // GET / over TLS.
  Response get(const CertificateAndKey* client) {
    TlsClient c;
    connect(c, client);
    return round_trip(*c.stream, bhttp::verb::get, "/");
  }

  static CertificateAndKey* ca_;
  static CertificateAndKey* other_ca_;
  static CertificateAndKey* server_cert_;
  std::unique_ptr<Server> server_;
};
CertificateAndKey* TlsServerTest::ca_ = nullptr;
CertificateAndKey* TlsServerTest::other_ca_ = nullptr;
CertificateAndKey* TlsServerTest::server_cert_ = nullptr;

TEST_F(TlsServerTest, ExposesTheVerifiedClientIdentity) {
  start(true);
  EXPECT_EQ(server_->url().substr(0, 8), "https://");
  auto client = make_client_certificate(*ca_, "system:node:n1", {"system:nodes", "tailor"});
  Response res = get(&client);
  EXPECT_EQ(res.result_int(), 200);
  EXPECT_EQ(res.body(), "system:node:n1|system:nodes|tailor");
}

TEST_F(TlsServerTest, SendsBodiesGivenInPieces) {
  start_with(true, false, pieces_handler(100000));
  auto client = make_client_certificate(*ca_, "alice", {"devs"});
  TlsClient c;
  connect(c, &client);
  expect_pieces_answers(*c.stream, 100000);
}

// A client that goes away in the middle of a large body: the handler's writes fail, the
// exchange is closed, and the handler returns.
TEST_F(TlsServerTest, WritesFailOnceThePeerHasGone) {
  std::promise<bool> closed;
  std::promise<void> streaming;
  start_with(false, false, [&](Exchange& ex) {
    ex.start_stream(200, {});
    streaming.set_value();
    std::string chunk(1 << 20, 'x');
    while (ex.write(chunk)) {
    }
    closed.set_value(ex.closed());
  });
  {
    TlsClient c;
    connect(c, nullptr);
    bhttp::request<bhttp::empty_body> req(bhttp::verb::get, "/watch", 11);
    bhttp::write(*c.stream, req);
    streaming.get_future().wait();
  }  // the client disconnects without reading
  EXPECT_TRUE(closed.get_future().get());
}

// Over TLS the answer is blocked in the sender's send(), not in Asio's stream.
TEST_F(TlsServerTest, StopEndsAnAnswerTheClientDoesNotRead) {
  std::promise<void> answering;
  std::atomic<bool> answered{false};
  start_with(false, false, [&](Exchange& ex) {
    answering.set_value();
    ex.respond({200, {}, std::string(kUnreadAnswer, 'x')});
    answered = true;
  });
  TlsClient c;
  connect(c, nullptr);
  bhttp::request<bhttp::empty_body> req(bhttp::verb::get, "/", 11);
  bhttp::write(*c.stream, req);
  answering.get_future().wait();
  server_->stop();
  EXPECT_TRUE(answered);
}

// Over TLS a large body leaves in blocks of records; its header is the one Beast writes on a
// plain connection for the same answer.
TEST_F(TlsServerTest, LargeBodiesKeepTheirHeader) {
  Handler handler = [](Exchange& ex) {
    ex.respond({200, {{"Content-Type", "application/json"}}, std::string(100 * 1024, 'x')});
  };
  start_with(false, false, handler);
  Server plain(plain_options(), handler);
  plain.start();
  PlainClient plain_client(plain.port());
  Response expected = round_trip(plain_client.socket, bhttp::verb::get, "/");
  TlsClient c;
  connect(c, nullptr);
  Response res = round_trip(*c.stream, bhttp::verb::get, "/");
  EXPECT_EQ(res.body(), expected.body());
  auto fields = [](const Response& r) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& f : r) out.emplace_back(f.name_string(), f.value());
    return out;
  };
  EXPECT_EQ(fields(res), fields(expected));
  EXPECT_EQ(round_trip(*c.stream, bhttp::verb::get, "/").body(), expected.body());  // keep-alive
}

// OpenSSL clients list AES-256-GCM first; the server's order (AES-128-GCM, as Go's) decides.
TEST_F(TlsServerTest, NegotiatesAes128Gcm) {
  start(false);
  TlsClient c;
  connect(c, nullptr);
  EXPECT_STREQ(SSL_CIPHER_get_name(SSL_get_current_cipher(c.stream->native_handle())),
               "TLS_AES_128_GCM_SHA256");
}

TEST_F(TlsServerTest, RejectsAMissingClientCertificateWhenRequired) {
  start(true);
  EXPECT_THROW(get(nullptr), boost::system::system_error);
}

TEST_F(TlsServerTest, AcceptsAnonymousClientsWhenCertificatesAreOptional) {
  start(false);
  Response res = get(nullptr);
  EXPECT_EQ(res.result_int(), 200);
  EXPECT_EQ(res.body(), "");
}

TEST_F(TlsServerTest, RejectsACertificateFromAnotherCa) {
  start(false);
  auto stranger = make_client_certificate(*other_ca_, "mallory", {"system:masters"});
  EXPECT_THROW(get(&stranger), boost::system::system_error);
}

TEST_F(TlsServerTest, CertificateFromAnotherCaReachesTheHandlerWithoutIdentity) {
  start(false, /*verify_client_in_handler=*/true);
  auto stranger = make_client_certificate(*other_ca_, "mallory", {"system:masters"});
  EXPECT_EQ(get(&stranger).body(), "");
  auto client = make_client_certificate(*ca_, "alice", {"devs"});
  EXPECT_EQ(get(&client).body(), "alice|devs");
}

TEST_F(TlsServerTest, ServerCertificateDoesNotMatchAnotherName) {
  start(false);
  net::io_context io;
  ssl::context ctx(ssl::context::tls_client);
  ctx.add_certificate_authority(net::buffer(ca_->cert_pem));
  ctx.set_verify_mode(ssl::verify_peer);
  ssl::stream<tcp::socket> stream(io, ctx);
  stream.set_verify_callback(ssl::host_name_verification("example.com"));
  stream.next_layer().connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), server_->port()));
  EXPECT_THROW(stream.handshake(ssl::stream_base::client), boost::system::system_error);
}

TEST_F(TlsServerTest, ReloadedCertificateServesNewConnections) {
  start(false);
  EXPECT_EQ(get(nullptr).result_int(), 200);
  // A certificate of another CA: clients trusting only ca_ now fail, so the new one is in use.
  CertificateAndKey rotated =
      make_server_certificate(*other_ca_, "server", {"localhost"}, {"127.0.0.1"});
  server_->reload_tls({rotated.cert_pem, rotated.key_pem, "", false});
  EXPECT_THROW(get(nullptr), boost::system::system_error);
  server_->reload_tls({server_cert_->cert_pem, server_cert_->key_pem, "", false});
  EXPECT_EQ(get(nullptr).result_int(), 200);
}

TEST_F(TlsServerTest, InvalidReloadKeepsTheOldCertificate) {
  start(false);
  EXPECT_THROW(server_->reload_tls({"not a cert", "not a key", "", false}), std::runtime_error);
  EXPECT_EQ(get(nullptr).result_int(), 200);
}

TEST(HttpServer, RejectsInvalidTlsMaterial) {
  ServerOptions options;
  options.tls = TlsServerConfig{"not a cert", "not a key", "", false};
  Server server(options, [](Exchange&) {});
  EXPECT_THROW(server.start(), std::runtime_error);
}

}  // namespace
}  // namespace tailor::kube::http
