#include "kube/http/tls_ciphers.h"

#include <openssl/ssl.h>

namespace tailor::kube::http {

void prefer_aes_128_gcm(SSL_CTX* context) {
  SSL_CTX_set_ciphersuites(context,
                           "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:"
                           "TLS_CHACHA20_POLY1305_SHA256");
}

}  // namespace tailor::kube::http
