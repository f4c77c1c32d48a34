// http::Server with pipelined requests: a client may send its next request before the answer to
// the previous one (HTTP/1.1 pipelining), or the next request may reach the server in the same
// TCP segment as the end of the previous one. Between requests the server waits for the socket
// to become readable; whatever a layer above the socket already holds (Beast's buffer, OpenSSL's
// record buffer, the BIO that Asio's engine fills from the socket) must be served without
// waiting, or the second request would sit there until the idle timeout or the next packet.
// Each test sends everything in one send() and then only reads: the second answer can only come
// from bytes the server already has. The server has no idle timeout; the client's receive
// deadline turns a request left waiting into a failure instead of a hang.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "kube/http/server.h"
#include "kube/http/tls_certs.h"
#include "tests/kube/http/openssl_server_context.h"

namespace tailor::kube::http {
namespace {

// Far longer than a loopback answer takes; only reached when a request is left waiting.
constexpr int kReceiveDeadlineSeconds = 20;

// Answers "answer:<path>:<body size>", so each answer says which request it is for.
Handler echo_handler() {
  return [](Exchange& ex) {
    const ServerRequest& req = ex.request();
    ex.respond({200, {}, "answer:" + req.path + ":" + std::to_string(req.body.size())});
  };
}

std::string post(const std::string& path, std::size_t body_size) {
  return "POST " + path +
         " HTTP/1.1\r\nHost: localhost\r\nContent-Length: " + std::to_string(body_size) +
         "\r\n\r\n" + std::string(body_size, 'b');
}

// A blocking TCP connection to the server whose receives give up after the deadline.
class Socket {
 public:
  explicit Socket(std::uint16_t port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    timeval deadline{kReceiveDeadlineSeconds, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &deadline, sizeof deadline);
  }
  ~Socket() { ::close(fd_); }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;

  int fd() const { return fd_; }
  bool connected() const { return connected_; }
  bool send_all(std::string_view data) const {
    while (!data.empty()) {
      ssize_t sent = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (sent <= 0) return false;
      data.remove_prefix(static_cast<std::size_t>(sent));
    }
    return true;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// Reads until `last` has arrived; what was read so far when the deadline passes or the server
// closes the connection.
template <class Receive>
std::string receive_until(std::string_view last, Receive receive) {
  std::string received;
  char buffer[16384];
  while (received.find(last) == std::string::npos) {
    long n = receive(buffer, sizeof buffer);
    if (n <= 0) break;
    received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

// How the two requests are laid out in the one send.
struct Pipeline {
  const char* name;
  std::size_t first_body;  // bytes of the first request's body
  bool one_record;         // TLS: both requests in one record (otherwise a record each)
};

const Pipeline kPipelines[] = {
    {"two small requests in one record", 0, true},
    {"two small requests, a record each", 0, false},
    // Several 16 KiB records: Asio's engine reads 17 KiB at a time, so the second request is
    // at the end of a later read, behind the first one's last record.
    {"a 100 KB body, then a small request", 100 * 1000, false},
    {"a 100 KB body and a small request in one stream of records", 100 * 1000, true},
};

std::string expected_answers(const Pipeline& p) {
  return "answer:/first:" + std::to_string(p.first_body) + "|answer:/second:0";
}

// The two answer bodies in order, joined by "|" (their headers dropped).
std::string answer_bodies(const std::string& received) {
  std::string bodies;
  for (std::size_t at = 0; (at = received.find("answer:", at)) != std::string::npos;) {
    std::size_t end = received.find("HTTP/1.1", at);
    if (!bodies.empty()) bodies += "|";
    bodies += received.substr(at, end == std::string::npos ? std::string::npos : end - at);
    at = end == std::string::npos ? received.size() : end;
  }
  return bodies;
}

ServerOptions without_idle_timeout() {
  ServerOptions options;
  options.idle_timeout = std::chrono::seconds(0);
  return options;
}

TEST(HttpServerPipelining, PlainConnectionsAnswerBothRequests) {
  Server server(without_idle_timeout(), echo_handler());
  server.start();
  for (const Pipeline& p : kPipelines) {
    SCOPED_TRACE(p.name);
    Socket socket(server.port());
    ASSERT_TRUE(socket.connected());
    ASSERT_TRUE(socket.send_all(post("/first", p.first_body) + post("/second", 0)));
    std::string received = receive_until("answer:/second:0", [&](char* data, std::size_t size) {
      return static_cast<long>(::recv(socket.fd(), data, size, 0));
    });
    EXPECT_EQ(answer_bodies(received), expected_answers(p));
  }
}

class TlsPipeliningTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto ca = make_ca("pipelining-ca");
    cert_ = new CertificateAndKey(make_server_certificate(ca, "server", {"localhost"}, {}));
  }
  static void TearDownTestSuite() { delete cert_; }

  static CertificateAndKey* cert_;
};
CertificateAndKey* TlsPipeliningTest::cert_ = nullptr;

using testing::SslConnection;
using testing::SslContext;

// The records of `requests` (one SSL_write each), encrypted into memory so that they can leave
// in one send(); the connection's socket BIO is given back afterwards.
std::string records_of(SSL* ssl, const std::vector<std::string>& requests) {
  BIO* socket_bio = SSL_get_wbio(ssl);
  BIO_up_ref(socket_bio);
  BIO* memory = BIO_new(BIO_s_mem());
  SSL_set0_wbio(ssl, memory);
  for (const std::string& request : requests) {
    std::size_t written = 0;
    EXPECT_EQ(SSL_write_ex(ssl, request.data(), request.size(), &written), 1);
  }
  char* data = nullptr;
  long size = BIO_get_mem_data(memory, &data);
  std::string records(data, static_cast<std::size_t>(size));
  SSL_set0_wbio(ssl, socket_bio);
  return records;
}

TEST_F(TlsPipeliningTest, TlsConnectionsAnswerBothRequests) {
  ServerOptions options = without_idle_timeout();
  options.tls = TlsServerConfig{cert_->cert_pem, cert_->key_pem};
  Server server(options, echo_handler());
  server.start();
  SslContext ctx(SSL_CTX_new(TLS_client_method()), &SSL_CTX_free);
  for (const Pipeline& p : kPipelines) {
    SCOPED_TRACE(p.name);
    Socket socket(server.port());
    ASSERT_TRUE(socket.connected());
    SslConnection ssl(SSL_new(ctx.get()), &SSL_free);
    SSL_set_fd(ssl.get(), socket.fd());
    ASSERT_EQ(SSL_connect(ssl.get()), 1);
    std::string first = post("/first", p.first_body);
    std::string second = post("/second", 0);
    std::vector<std::string> requests{first + second};
    if (!p.one_record) requests = {first, second};
    ASSERT_TRUE(socket.send_all(records_of(ssl.get(), requests)));
    std::string received = receive_until("answer:/second:0", [&](char* data, std::size_t size) {
      std::size_t read = 0;
      return SSL_read_ex(ssl.get(), data, size, &read) == 1 ? static_cast<long>(read) : -1L;
    });
    EXPECT_EQ(answer_bodies(received), expected_answers(p));
  }
}

}  // namespace
}  // namespace tailor::kube::http
