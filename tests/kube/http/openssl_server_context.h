// A plain OpenSSL server context holding a generated certificate, for tests that drive the
// server side of a TLS connection by hand (what a peer other than Tailor's server does).
#pragma once

#include <openssl/pem.h>
#include <openssl/ssl.h>

#include <memory>

#include "kube/http/tls_certs.h"

namespace tailor::kube::http::testing {

using SslContext = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using SslConnection = std::unique_ptr<SSL, decltype(&SSL_free)>;

inline SslContext openssl_server_context(const CertificateAndKey& cert) {
  SslContext ctx(SSL_CTX_new(TLS_server_method()), &SSL_CTX_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> cert_pem(
      BIO_new_mem_buf(cert.cert_pem.data(), static_cast<int>(cert.cert_pem.size())), &BIO_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> key_pem(
      BIO_new_mem_buf(cert.key_pem.data(), static_cast<int>(cert.key_pem.size())), &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> x509(
      PEM_read_bio_X509(cert_pem.get(), nullptr, nullptr, nullptr), &X509_free);
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(
      PEM_read_bio_PrivateKey(key_pem.get(), nullptr, nullptr, nullptr), &EVP_PKEY_free);
  SSL_CTX_use_certificate(ctx.get(), x509.get());
  SSL_CTX_use_PrivateKey(ctx.get(), key.get());
  return ctx;
}

}  // namespace tailor::kube::http::testing
