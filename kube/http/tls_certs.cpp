#include "kube/http/tls_certs.h"

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>
#include <stdexcept>

namespace tailor::kube::http {
namespace {

template <auto Free>
struct Deleter {
  template <class T>
  void operator()(T* p) const {
    Free(p);
  }
};
using KeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using CertPtr = std::unique_ptr<X509, Deleter<X509_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using ExtPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;

[[noreturn]] void fail(const std::string& what) {
  char detail[256] = "";
  ERR_error_string_n(ERR_get_error(), detail, sizeof detail);
  throw std::runtime_error("tls certificates: " + what + ": " + detail);
}

void check(int ok, const char* what) {
  if (ok <= 0) fail(what);
}

KeyPtr new_key() {
  KeyPtr key(EVP_EC_gen("P-256"));
  if (!key) fail("cannot generate a P-256 key");
  return key;
}

std::string to_pem(auto write) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio) fail("BIO_new");
  check(write(bio.get()), "PEM write");
  char* data = nullptr;
  long length = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

std::string key_pem(EVP_PKEY* key) {
  return to_pem([&](BIO* bio) {
    return PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
  });
}

std::string cert_pem(X509* cert) {
  return to_pem([&](BIO* bio) { return PEM_write_bio_X509(bio, cert); });
}

KeyPtr read_key(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  KeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) fail("cannot read the CA private key");
  return key;
}

CertPtr read_cert(const std::string& pem) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  CertPtr cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) fail("cannot read the CA certificate");
  return cert;
}

void add_name_entry(X509_NAME* name, const char* field, const std::string& value) {
  check(
      X509_NAME_add_entry_by_txt(name, field, MBSTRING_UTF8,
                                 reinterpret_cast<const unsigned char*>(value.c_str()), -1, -1, 0),
      "subject name entry");
}

// A certificate for key with the given subject and validity, not yet signed.
CertPtr new_certificate(EVP_PKEY* key, const std::string& common_name,
                        const std::vector<std::string>& organizations, int valid_days) {
  CertPtr cert(X509_new());
  if (!cert) fail("X509_new");
  check(X509_set_version(cert.get(), 2), "X509_set_version");
  unsigned char serial[16];
  check(RAND_bytes(serial, sizeof serial), "RAND_bytes");
  serial[0] &= 0x7F;  // a positive serial number
  BIGNUM* bn = BN_bin2bn(serial, sizeof serial, nullptr);
  check(BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(cert.get())) != nullptr, "serial");
  BN_free(bn);
  // Backdated a little, so clocks a bit behind still accept it.
  X509_gmtime_adj(X509_getm_notBefore(cert.get()), -3600);
  X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(valid_days) * 24 * 3600);
  X509_NAME* subject = X509_get_subject_name(cert.get());
  for (const auto& organization : organizations) add_name_entry(subject, "O", organization);
  add_name_entry(subject, "CN", common_name);
  check(X509_set_pubkey(cert.get(), key), "X509_set_pubkey");
  return cert;
}

void add_extension(X509* cert, X509* issuer, int nid, const std::string& value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtPtr ext(X509V3_EXT_conf_nid(nullptr, &ctx, nid, value.c_str()));
  if (!ext) fail("extension " + value);
  check(X509_add_ext(cert, ext.get(), -1), "X509_add_ext");
}

CertificateAndKey issue(const CertificateAndKey& ca, const std::string& common_name,
                        const std::vector<std::string>& organizations, const std::string& usage,
                        const std::string& subject_alt_names, int valid_days) {
  KeyPtr ca_key = read_key(ca.key_pem);
  CertPtr ca_cert = read_cert(ca.cert_pem);
  KeyPtr key = new_key();
  CertPtr cert = new_certificate(key.get(), common_name, organizations, valid_days);
  check(X509_set_issuer_name(cert.get(), X509_get_subject_name(ca_cert.get())), "issuer");
  add_extension(cert.get(), ca_cert.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca_cert.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(cert.get(), ca_cert.get(), NID_ext_key_usage, usage);
  add_extension(cert.get(), ca_cert.get(), NID_authority_key_identifier, "keyid:always");
  if (!subject_alt_names.empty()) {
    add_extension(cert.get(), ca_cert.get(), NID_subject_alt_name, subject_alt_names);
  }
  check(X509_sign(cert.get(), ca_key.get(), EVP_sha256()), "X509_sign");
  return {cert_pem(cert.get()), key_pem(key.get())};
}

}  // namespace

CertificateAndKey make_ca(const std::string& common_name, int valid_days) {
  KeyPtr key = new_key();
  CertPtr cert = new_certificate(key.get(), common_name, {}, valid_days);
  check(X509_set_issuer_name(cert.get(), X509_get_subject_name(cert.get())), "issuer");
  add_extension(cert.get(), cert.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(cert.get(), cert.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(cert.get(), cert.get(), NID_subject_key_identifier, "hash");
  check(X509_sign(cert.get(), key.get(), EVP_sha256()), "X509_sign");
  return {cert_pem(cert.get()), key_pem(key.get())};
}

CertificateAndKey make_server_certificate(const CertificateAndKey& ca,
                                          const std::string& common_name,
                                          const std::vector<std::string>& dns_names,
                                          const std::vector<std::string>& ips, int valid_days) {
  std::string names;
  for (const auto& dns : dns_names) names += (names.empty() ? "DNS:" : ",DNS:") + dns;
  for (const auto& ip : ips) names += (names.empty() ? "IP:" : ",IP:") + ip;
  return issue(ca, common_name, {}, "serverAuth", names, valid_days);
}

CertificateAndKey make_client_certificate(const CertificateAndKey& ca,
                                          const std::string& common_name,
                                          const std::vector<std::string>& organizations,
                                          int valid_days) {
  return issue(ca, common_name, organizations, "clientAuth", "", valid_days);
}

}  // namespace tailor::kube::http
