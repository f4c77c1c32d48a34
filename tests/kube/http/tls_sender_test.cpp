// TlsSender over a TLS connection on a socket pair: answers of every size reach the client
// whole, and after a large answer the sender lets its 256 KiB block and the block's records go,
// so an idle keep-alive connection does not hold ~512 KiB until it closes.
#include "kube/http/tls_sender.h"

#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <future>
#include <memory>
#include <string>
#include <thread>

#include "kube/http/tls_certs.h"
#include "tests/kube/http/openssl_server_context.h"

namespace tailor::kube::http {
namespace {

using testing::SslConnection;
using testing::SslContext;

// What a keep-alive connection may hold between answers (the sender keeps buffers of up to
// 32 KiB each, so that a watch's small events do not allocate).
constexpr std::size_t kIdleBuffers = 64 * 1024;

// Reads `size` bytes of plain text from the client's end; fewer if the connection ends.
std::string read_plain(SSL* ssl, std::size_t size) {
  std::string text;
  char buffer[16384];
  while (text.size() < size) {
    std::size_t read = 0;
    if (SSL_read_ex(ssl, buffer, std::min(sizeof buffer, size - text.size()), &read) != 1) break;
    text.append(buffer, read);
  }
  return text;
}

class TlsSenderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto ca = make_ca("sender-ca");
    server_ctx_ =
        testing::openssl_server_context(make_server_certificate(ca, "server", {"localhost"}, {}));
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds_), 0);
    server_.reset(SSL_new(server_ctx_.get()));
    client_.reset(SSL_new(client_ctx_.get()));
    SSL_set_fd(server_.get(), fds_[0]);
    SSL_set_fd(client_.get(), fds_[1]);
    auto connected = std::async(std::launch::async, [&] { return SSL_connect(client_.get()); });
    ASSERT_EQ(SSL_accept(server_.get()), 1) << ERR_error_string(ERR_get_error(), nullptr);
    ASSERT_EQ(connected.get(), 1);
  }
  void TearDown() override {
    ::close(fds_[0]);
    ::close(fds_[1]);
  }

  // Sends text through the sender in pieces of `piece` bytes, as a list's objects are, while
  // the client reads it; what the client received.
  std::string send_answer(TlsSender& sender, const std::string& text, std::size_t piece) {
    auto received =
        std::async(std::launch::async, [&] { return read_plain(client_.get(), text.size()); });
    for (std::size_t at = 0; at < text.size(); at += piece) {
      EXPECT_TRUE(sender.append(std::string_view(text).substr(at, piece)));
    }
    EXPECT_TRUE(sender.flush());
    return received.get();
  }

  SslContext server_ctx_{nullptr, &SSL_CTX_free};
  SslContext client_ctx_{SSL_CTX_new(TLS_client_method()), &SSL_CTX_free};
  SslConnection server_{nullptr, &SSL_free};
  SslConnection client_{nullptr, &SSL_free};
  int fds_[2] = {-1, -1};
};

// One answer after another on the same connection, as keep-alive requests are.
TEST_F(TlsSenderTest, LetsGoOfLargeBuffersAfterEachAnswer) {
  struct Answer {
    const char* name;
    std::size_t size;
    std::size_t piece;
  };
  const Answer answers[] = {
      {"a small answer", 100, 100},
      {"a 1 MiB list in 1 KiB objects", 1 << 20, 1024},
      {"a small answer after the list", 200, 200},
      {"a 300 KiB object in one piece", 300 * 1024, 300 * 1024},
      {"a 20 KiB watch event", 20 * 1024, 20 * 1024},
  };
  TlsSender sender(server_.get(), fds_[0]);
  for (const Answer& answer : answers) {
    SCOPED_TRACE(answer.name);
    std::string text(answer.size, '\0');
    for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
    EXPECT_EQ(send_answer(sender, text, answer.piece), text);
    EXPECT_LE(sender.buffer_capacity(), kIdleBuffers);
  }
}

}  // namespace
}  // namespace tailor::kube::http
