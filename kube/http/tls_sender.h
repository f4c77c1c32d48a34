// The sending side of a server's TLS connection, straight from OpenSSL to the socket. Asio's SSL
// stream passes every record through a 17 KiB BIO pair and its own buffer (two copies) and sends
// each 16 KiB record with a system call of its own; a 1 GiB list is ~70,000 of them, and on
// loopback each one also runs the transmit and the receiver's softirq. Installed as the SSL's
// write BIO after the handshake, the sender sends what Asio writes through the stream at once
// (headers, small responses, alerts), and gathers the records of a body given to append() into
// one send() per ~256 KiB.
#pragma once

#include <string>
#include <string_view>

typedef struct ssl_st SSL;
typedef struct bio_st BIO;

namespace tailor::kube::http {

class TlsSender {
 public:
  // ssl: a server connection whose handshake is complete; fd: its socket (blocking).
  TlsSender(SSL* ssl, int fd);
  ~TlsSender();  // gives the SSL its own write BIO back
  TlsSender(const TlsSender&) = delete;
  TlsSender& operator=(const TlsSender&) = delete;

  // Copies text into the current block; a full block is encrypted and sent. False once the
  // peer has gone (nothing more is sent).
  bool append(std::string_view text);
  // Encrypts and sends the rest of the block. Buffers grown by a large answer are then let go:
  // a keep-alive connection may wait minutes for its next request.
  bool flush();
  // Bytes the sender holds for its buffers between answers (tests check they are let go).
  std::size_t buffer_capacity() const { return block_.capacity() + wire_.capacity(); }

 private:
  static int bio_write(BIO* bio, const char* data, int length);
  bool encrypt_block();
  void release_large_buffers();
  bool send_all(const char* data, std::size_t size);

  SSL* ssl_;
  int fd_;
  BIO* own_wbio_;
  bool gathering_ = false;  // records go to wire_ (append/flush) instead of straight out
  bool failed_ = false;
  std::string block_;  // plain text, up to kBlock
  std::string wire_;   // the block's records
};

}  // namespace tailor::kube::http
