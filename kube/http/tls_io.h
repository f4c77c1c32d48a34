// The client's TLS connection, straight between OpenSSL and the socket, handshake included.
// Asio's SSL stream feeds OpenSSL through a 17 KiB BIO pair and receives at most 17 KiB per
// recv(): a 1 GiB list is ~70,000 receive calls, each also running the loopback ACK and the
// sender's next transmit. Here OpenSSL reads ahead from the socket itself (one recv fills a
// 256 KiB buffer) and a read_some decrypts every whole record that fits the caller's buffer.
// The handshake runs here too: records that arrive in the same recv() as the server's Finished
// (a Go server's session tickets, 0.5-RTT data) stay in OpenSSL's read buffer; had Asio's engine
// done the handshake they would sit in its BIO pair and be lost when the BIOs are replaced.
// The SSL still comes from Asio's stream, with its verify callback (host name) attached.
// A Beast AsyncStream: operations wait for the socket with async_wait, so the caller's timer
// still ends them by closing the socket. Private to client.cpp (it exposes Asio).
#pragma once

#include <openssl/ssl.h>

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <cstddef>
#include <optional>

namespace tailor::kube::http {

class TlsIo {
 public:
  using executor_type = boost::asio::ip::tcp::socket::executor_type;

  // ssl: a client connection not yet handshaken, on the connected socket; it reads and writes
  // through socket BIOs from the start (the socket is made non-blocking).
  TlsIo(boost::asio::ip::tcp::socket& socket, SSL* ssl);

  executor_type get_executor() { return socket_.get_executor(); }

  // The client's handshake; completes with (error, 0).
  template <class Token>
  auto async_handshake(Token&& token) {
    return run(boost::asio::const_buffer(), &TlsIo::handshake, std::forward<Token>(token));
  }

  template <class Buffers, class Token>
  auto async_read_some(const Buffers& buffers, Token&& token) {
    return run(first_buffer<boost::asio::mutable_buffer>(buffers), &TlsIo::read_some,
               std::forward<Token>(token));
  }

  template <class Buffers, class Token>
  auto async_write_some(const Buffers& buffers, Token&& token) {
    return run(gather(buffers), &TlsIo::write_some, std::forward<Token>(token));
  }

 private:
  // One attempt: bytes done, or which readiness to wait for, or the error.
  struct Attempt {
    std::size_t bytes = 0;
    std::optional<boost::asio::socket_base::wait_type> wait{};
    boost::system::error_code ec{};
  };

  // One record's worth of plaintext: what a write gathers from small buffers.
  static constexpr std::size_t kRecord = 16 * 1024;

  Attempt handshake(boost::asio::const_buffer);
  Attempt read_some(boost::asio::mutable_buffer buffer);
  Attempt write_some(boost::asio::const_buffer buffer);
  static Attempt not_done(SSL* ssl, int result);
  static boost::system::error_code error_of(SSL* ssl, int result);

  template <class Buffer, class Buffers>
  static Buffer first_buffer(const Buffers& buffers) {
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      Buffer buffer(*it);
      if (buffer.size() != 0) return buffer;
    }
    return Buffer();
  }

  // Beast writes a request as several small buffers (start line, fields, body): copied into one
  // buffer they leave as one record and one send(). A first buffer of a record or more is
  // written as it is (a large body is not copied). After WANT_WRITE the operation retries with
  // the same gathered bytes, as OpenSSL requires.
  template <class Buffers>
  boost::asio::const_buffer gather(const Buffers& buffers) {
    auto first = first_buffer<boost::asio::const_buffer>(buffers);
    if (first.size() >= kRecord) return first;
    std::size_t size = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers) && size < kRecord; ++it) {
      size += boost::asio::buffer_copy(boost::asio::buffer(gathered_.data() + size, kRecord - size),
                                       boost::asio::const_buffer(*it));
    }
    return boost::asio::const_buffer(gathered_.data(), size);
  }

  // Tries the operation; waits for the socket while OpenSSL wants it. A result ready at once is
  // posted, never handed over from inside the initiating call (Asio's rule).
  template <class Buffer>
  struct Op {
    TlsIo* io;
    Buffer buffer;
    Attempt (TlsIo::*attempt)(Buffer);
    std::optional<Attempt> done{};
    bool initiating = true;

    template <class Self>
    void operator()(Self& self, boost::system::error_code waited = {}) {
      if (done) return self.complete(done->ec, done->bytes);
      if (waited) return self.complete(waited, 0);  // closed on a deadline or cancellation
      Attempt result = (io->*attempt)(buffer);
      if (result.wait) {
        initiating = false;
        return io->socket_.async_wait(*result.wait, std::move(self));
      }
      if (!initiating) return self.complete(result.ec, result.bytes);
      done = result;
      boost::asio::post(io->socket_.get_executor(), std::move(self));
    }
  };

  template <class Buffer, class Token>
  auto run(Buffer buffer, Attempt (TlsIo::*attempt)(Buffer), Token&& token) {
    return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
        Op<Buffer>{this, buffer, attempt}, token, socket_);
  }

  boost::asio::ip::tcp::socket& socket_;
  SSL* ssl_;
  std::array<char, kRecord> gathered_;
};

}  // namespace tailor::kube::http
