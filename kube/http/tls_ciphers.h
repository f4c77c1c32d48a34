// TLS 1.3 cipher suites in the order Go's crypto/tls uses on machines with AES hardware (kubectl,
// client-go, kube-apiserver): AES-128-GCM first. OpenSSL's default puts AES-256-GCM first, which
// costs ~5 % more per byte for the same protection level Kubernetes accepts.
#pragma once

typedef struct ssl_ctx_st SSL_CTX;

namespace tailor::kube::http {

void prefer_aes_128_gcm(SSL_CTX* context);

}  // namespace tailor::kube::http
