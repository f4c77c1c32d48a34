#include "kube/http/tls_io.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <sys/socket.h>

#include <cerrno>

namespace tailor::kube::http {

namespace net = boost::asio;
using boost::system::error_code;

namespace {

// OpenSSL's read-ahead buffer: one recv() takes up to this much (16 records).
constexpr std::size_t kReadAhead = 256 * 1024;

// Writes with send(MSG_NOSIGNAL): a server gone mid-request is an error, not a SIGPIPE
// (BIO_s_socket writes with write()).
int send_write(BIO* bio, const char* data, int length) {
  BIO_clear_retry_flags(bio);
  ssize_t sent;
  do {
    sent = ::send(static_cast<int>(BIO_get_fd(bio, nullptr)), data,
                  static_cast<std::size_t>(length), MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) BIO_set_retry_write(bio);
  return static_cast<int>(sent);
}

BIO_METHOD* make_send_method() {
  // A socket BIO (fd, close flag, ctrl) whose write is send_write.
  BIO_METHOD* method =
      BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR, "tailor send");
  const BIO_METHOD* socket = BIO_s_socket();
  BIO_meth_set_write(method, send_write);
  BIO_meth_set_ctrl(method, BIO_meth_get_ctrl(socket));
  BIO_meth_set_create(method, BIO_meth_get_create(socket));
  BIO_meth_set_destroy(method, BIO_meth_get_destroy(socket));
  return method;
}

BIO* send_bio(int fd) {
  static BIO_METHOD* const method = make_send_method();
  BIO* bio = BIO_new(method);
  BIO_set_fd(bio, fd, BIO_NOCLOSE);
  return bio;
}

}  // namespace

TlsIo::TlsIo(net::ip::tcp::socket& socket, SSL* ssl) : socket_(socket), ssl_(ssl) {
  socket_.non_blocking(true);
  int fd = socket_.native_handle();
  SSL_set_read_ahead(ssl_, 1);
  SSL_set_default_read_buffer_len(ssl_, kReadAhead);
  // Asio frees an idle connection's buffers; the 256 KiB read buffer would be freed and
  // allocated again for every record.
  SSL_clear_mode(ssl_, SSL_MODE_RELEASE_BUFFERS);
  // Replaces Asio's BIO pair (for reading and writing alike) before any byte went through it;
  // SSL_set_bio releases it.
  SSL_set_bio(ssl_, BIO_new_socket(fd, BIO_NOCLOSE), send_bio(fd));
  SSL_set_connect_state(ssl_);
}

// The server's certificate is checked inside (the context's verify mode and the verify callback
// Asio's stream attached); a failure is OpenSSL's error, as Asio's handshake reported it.
TlsIo::Attempt TlsIo::handshake(net::const_buffer) {
  ERR_clear_error();
  errno = 0;
  int result = SSL_do_handshake(ssl_);
  if (result == 1) return {};
  return not_done(ssl_, result);
}

// Decrypts every whole record already received that fits the buffer; waits for the socket only
// when none is there.
TlsIo::Attempt TlsIo::read_some(net::mutable_buffer buffer) {
  if (buffer.size() == 0) return {};
  auto* data = static_cast<char*>(buffer.data());
  std::size_t total = 0;
  ERR_clear_error();  // SSL_get_error reads the queue; errors are taken off it where they arise
  while (total < buffer.size()) {
    errno = 0;
    std::size_t n = 0;
    int result = SSL_read_ex(ssl_, data + total, buffer.size() - total, &n);
    if (result == 1) {
      total += n;
      if (SSL_has_pending(ssl_) == 0) break;  // the next record is not here yet
      continue;
    }
    if (total > 0) {  // hand over what was read; the condition shows again on the next call
      ERR_clear_error();
      break;
    }
    return not_done(ssl_, result);
  }
  return {.bytes = total};
}

TlsIo::Attempt TlsIo::write_some(net::const_buffer buffer) {
  if (buffer.size() == 0) return {};
  ERR_clear_error();
  errno = 0;
  std::size_t n = 0;
  int result = SSL_write_ex(ssl_, buffer.data(), buffer.size(), &n);
  if (result == 1) return {.bytes = n};
  return not_done(ssl_, result);
}

// A read or write OpenSSL did not complete: the readiness it waits for, or the error.
TlsIo::Attempt TlsIo::not_done(SSL* ssl, int result) {
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
      return {.wait = net::socket_base::wait_read};
    case SSL_ERROR_WANT_WRITE:
      return {.wait = net::socket_base::wait_write};
    default:
      return {.ec = error_of(ssl, result)};
  }
}

// The error codes Asio's SSL stream reports for the same conditions (the client tells a stale
// keep-alive connection by them): eof for close_notify, stream_truncated for a connection
// closed without one, the system error for a reset, OpenSSL's error otherwise.
error_code TlsIo::error_of(SSL* ssl, int result) {
  int system_error = errno;
  int kind = SSL_get_error(ssl, result);
  unsigned long error = ERR_get_error();
  ERR_clear_error();
  if (kind == SSL_ERROR_ZERO_RETURN) return net::error::eof;
  if (kind == SSL_ERROR_SYSCALL && error == 0) {
    if (system_error != 0) return {system_error, boost::system::system_category()};
    return net::ssl::error::stream_truncated;
  }
  if (ERR_GET_REASON(error) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
    return net::ssl::error::stream_truncated;
  }
  return {static_cast<int>(error), net::error::get_ssl_category()};
}

}  // namespace tailor::kube::http
