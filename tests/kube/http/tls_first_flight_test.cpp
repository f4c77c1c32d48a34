// http::Client against a TLS 1.3 server whose first flight carries more than the handshake.
// A Go server that does not ask for a client certificate sends its NewSessionTickets in the same
// write as its Finished (crypto/tls, sendServerFinished), so they reach the client in the same
// recv() as the handshake's last message: Prometheus over HTTPS, webhooks, an apiserver without
// a client CA. Whatever arrives with the Finished must be decrypted in order, not dropped.
// OpenSSL stands in for Go: the server writes its reply as 0.5-RTT data (SSL_write_early_data)
// right after its first flight and sends both with one send().
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <boost/asio/ip/tcp.hpp>
#include <memory>
#include <thread>

#include "kube/http/client.h"
#include "kube/http/tls_certs.h"
#include "tests/kube/http/openssl_server_context.h"

namespace tailor::kube::http {
namespace {

namespace net = boost::asio;
using namespace std::chrono_literals;

using testing::SslContext;

std::string openssl_error() { return ERR_error_string(ERR_get_error(), nullptr); }

// TLS 1.3 only (0.5-RTT data exists only there); no tickets, so only the reply follows Finished.
SslContext server_context(const CertificateAndKey& cert) {
  SslContext ctx = testing::openssl_server_context(cert);
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_3_VERSION);
  SSL_CTX_set_num_tickets(ctx.get(), 0);
  return ctx;
}

// Sends everything the server wrote into its memory BIO as one send().
void send_written(BIO* written, int fd) {
  char* data = nullptr;
  long size = BIO_get_mem_data(written, &data);
  ASSERT_EQ(::send(fd, data, static_cast<std::size_t>(size), MSG_NOSIGNAL), size);
  (void)BIO_reset(written);
}

// Accepts one connection; its first send() is ServerHello..Finished and the reply's record.
void serve_reply_with_first_flight(net::ip::tcp::acceptor& acceptor, SSL_CTX* ctx) {
  net::ip::tcp::socket socket(acceptor.get_executor());
  acceptor.accept(socket);
  int fd = socket.native_handle();
  std::unique_ptr<SSL, decltype(&SSL_free)> ssl(SSL_new(ctx), &SSL_free);
  BIO* written = BIO_new(BIO_s_mem());
  BIO_up_ref(written);  // SSL_set_bio takes one reference, this function keeps the other
  std::unique_ptr<BIO, decltype(&BIO_free)> written_ref(written, &BIO_free);
  SSL_set_bio(ssl.get(), BIO_new_socket(fd, BIO_NOCLOSE), written);
  SSL_set_accept_state(ssl.get());
  char buf[1024];
  std::size_t n = 0;
  int read_early;
  while ((read_early = SSL_read_early_data(ssl.get(), buf, sizeof buf, &n)) ==
         SSL_READ_EARLY_DATA_SUCCESS) {
  }
  ASSERT_EQ(read_early, SSL_READ_EARLY_DATA_FINISH) << openssl_error();
  const std::string reply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
  ASSERT_EQ(SSL_write_early_data(ssl.get(), reply.data(), reply.size(), &n), 1);
  send_written(written, fd);
  EXPECT_EQ(SSL_do_handshake(ssl.get()), 1) << openssl_error();
  EXPECT_EQ(SSL_read_ex(ssl.get(), buf, sizeof buf, &n), 1) << openssl_error();  // the request
  send_written(written, fd);
  while (::recv(fd, buf, sizeof buf, 0) > 0) {  // until the client closes
  }
}

TEST(TlsFirstFlightTest, KeepsTheRecordsThatArriveWithTheServerFinished) {
  auto ca = make_ca("ca");
  auto cert = make_server_certificate(ca, "apiserver", {"localhost"}, {"127.0.0.1"});
  SslContext ctx = server_context(cert);
  net::io_context io;
  net::ip::tcp::acceptor acceptor(io, {net::ip::make_address("127.0.0.1"), 0});
  std::thread server([&] { serve_reply_with_first_flight(acceptor, ctx.get()); });
  {
    Client client(
        {"https://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()), {ca.cert_pem}});
    ClientRequest request;
    request.target = "/";
    request.timeout = 5s;
    try {
      EXPECT_EQ(client.send(request).body, "ok");
    } catch (const ClientError& e) {
      ADD_FAILURE() << e.what();
    }
  }  // closes the pooled connection: the server's last recv() returns
  ::shutdown(acceptor.native_handle(), SHUT_RDWR);  // wakes accept() if the client never came
  server.join();
}

}  // namespace
}  // namespace tailor::kube::http
