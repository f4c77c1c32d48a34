#include "kube/http/tls_sender.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <sys/socket.h>

#include <cerrno>

namespace tailor::kube::http {

namespace {

// 16 records of 16 KiB: one send() each, few enough system calls that the per-record work
// (encryption) dominates, small enough to stay in the cache between the copy and the send.
constexpr std::size_t kBlock = 256 * 1024;
// Buffers up to this size stay between answers, so a watch's events (a chunk each, each one
// flushed) do not allocate; larger ones were grown by a list or a large object.
constexpr std::size_t kKeep = 32 * 1024;

long bio_ctrl(BIO*, int command, long, void*) { return command == BIO_CTRL_FLUSH ? 1 : 0; }

BIO_METHOD* make_method(int (*write)(BIO*, const char*, int)) {
  BIO_METHOD* method =
      BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "tailor tls sender");
  BIO_meth_set_write(method, write);
  BIO_meth_set_ctrl(method, bio_ctrl);
  return method;
}

}  // namespace

TlsSender::TlsSender(SSL* ssl, int fd) : ssl_(ssl), fd_(fd), own_wbio_(SSL_get_wbio(ssl)) {
  BIO_up_ref(own_wbio_);  // SSL_set0_wbio releases the BIO it replaces
  static BIO_METHOD* const method = make_method(&TlsSender::bio_write);
  BIO* bio = BIO_new(method);
  BIO_set_data(bio, this);
  BIO_set_init(bio, 1);
  SSL_set0_wbio(ssl_, bio);
}

TlsSender::~TlsSender() { SSL_set0_wbio(ssl_, own_wbio_); }

int TlsSender::bio_write(BIO* bio, const char* data, int length) {
  auto& sender = *static_cast<TlsSender*>(BIO_get_data(bio));
  if (sender.gathering_) {
    sender.wire_.append(data, static_cast<std::size_t>(length));
    return length;
  }
  return sender.send_all(data, static_cast<std::size_t>(length)) ? length : -1;
}

bool TlsSender::append(std::string_view text) {
  while (!text.empty() && !failed_) {
    std::size_t n = std::min(text.size(), kBlock - block_.size());
    block_.append(text.substr(0, n));
    text.remove_prefix(n);
    if (block_.size() == kBlock) encrypt_block();
  }
  return !failed_;
}

bool TlsSender::flush() {
  if (!block_.empty()) encrypt_block();
  release_large_buffers();
  return !failed_;
}

// Without this each idle keep-alive connection would hold ~512 KiB (a full block and its
// records) after one large answer until it closes.
void TlsSender::release_large_buffers() {
  if (block_.capacity() > kKeep) std::string().swap(block_);
  if (wire_.capacity() > kKeep) std::string().swap(wire_);
}

// Asio's engine set SSL_MODE_ENABLE_PARTIAL_WRITE: each SSL_write_ex may take one record only.
bool TlsSender::encrypt_block() {
  gathering_ = true;
  std::size_t done = 0;
  while (done < block_.size()) {
    std::size_t written = 0;
    if (SSL_write_ex(ssl_, block_.data() + done, block_.size() - done, &written) != 1) {
      ERR_clear_error();  // the peer has gone; Asio reads the queue on its next operation
      failed_ = true;
      break;
    }
    done += written;
  }
  gathering_ = false;
  block_.clear();
  if (!failed_ && !send_all(wire_.data(), wire_.size())) failed_ = true;
  wire_.clear();
  return !failed_;
}

// MSG_NOSIGNAL: a peer gone mid-body is an error to return, not a SIGPIPE. A peer that stops
// reading is waited for without a time limit, as by kube-apiserver, which sets no WriteTimeout
// (it would end watches; kubernetes#111886, #119415); stop() ends the wait by shutting the
// socket down.
bool TlsSender::send_all(const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t sent = ::send(fd_, data, size, MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) return false;
      pollfd p{fd_, POLLOUT, 0};
      ::poll(&p, 1, -1);
      continue;
    }
    data += sent;
    size -= static_cast<std::size_t>(sent);
  }
  return true;
}

}  // namespace tailor::kube::http
