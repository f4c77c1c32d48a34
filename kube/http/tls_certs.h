// Generated X.509 certificates (PEM) for tests and for the embedded API server: a CA, server
// certificates with DNS/IP subject alternative names, client certificates with CN and O (the
// API server reads user name and groups from them). ECDSA P-256 keys, SHA-256 signatures.
#pragma once

#include <string>
#include <vector>

namespace tailor::kube::http {

struct CertificateAndKey {
  std::string cert_pem;
  std::string key_pem;
};

// A self-signed CA certificate (basicConstraints CA:TRUE, keyCertSign).
CertificateAndKey make_ca(const std::string& common_name, int valid_days = 365);

// A server certificate signed by ca; ips are literal addresses ("127.0.0.1", "::1").
CertificateAndKey make_server_certificate(const CertificateAndKey& ca,
                                          const std::string& common_name,
                                          const std::vector<std::string>& dns_names,
                                          const std::vector<std::string>& ips,
                                          int valid_days = 365);

// A client certificate signed by ca with subject CN=common_name, O=each organization.
CertificateAndKey make_client_certificate(const CertificateAndKey& ca,
                                          const std::string& common_name,
                                          const std::vector<std::string>& organizations,
                                          int valid_days = 365);

}  // namespace tailor::kube::http
