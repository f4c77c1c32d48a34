#include "embedded/auth/jwt.h"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <boost/json.hpp>
#include <stdexcept>
#include <vector>

#include "kube/model/json_value.h"

namespace tailor::embedded {

namespace bj = boost::json;

struct SigningKey::Key {
  EVP_PKEY* pkey = nullptr;
  ~Key() { EVP_PKEY_free(pkey); }
};

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

using Bio = std::unique_ptr<BIO, decltype(&BIO_free)>;
using DigestContext = std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)>;

std::string public_key_id(EVP_PKEY* pkey) {
  int size = i2d_PUBKEY(pkey, nullptr);
  if (size <= 0) throw std::runtime_error("cannot encode the signing key's public part");
  std::vector<unsigned char> der(static_cast<std::size_t>(size));
  unsigned char* p = der.data();
  i2d_PUBKEY(pkey, &p);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(der.data(), der.size(), digest);
  return base64url_encode({reinterpret_cast<const char*>(digest), sizeof digest});
}

using Signature = std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)>;
constexpr std::size_t kCoordinate = 32;  // P-256: r and s are 32 bytes each in a JWS

// OpenSSL's DER ECDSA-Sig-Value as JWS wants it (RFC 7518 3.4): r || s, fixed width.
std::string raw_signature(const unsigned char* der, std::size_t size) {
  Signature sig(d2i_ECDSA_SIG(nullptr, &der, static_cast<long>(size)), ECDSA_SIG_free);
  if (!sig) throw std::runtime_error("cannot read an ECDSA signature");
  std::string out(2 * kCoordinate, '\0');
  auto* p = reinterpret_cast<unsigned char*>(out.data());
  if (BN_bn2binpad(ECDSA_SIG_get0_r(sig.get()), p, kCoordinate) < 0 ||
      BN_bn2binpad(ECDSA_SIG_get0_s(sig.get()), p + kCoordinate, kCoordinate) < 0) {
    throw std::runtime_error("cannot write an ECDSA signature");
  }
  return out;
}

// The other way; nullopt when the size is not that of a P-256 signature.
std::optional<std::vector<unsigned char>> der_signature(std::string_view raw) {
  if (raw.size() != 2 * kCoordinate) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(raw.data());
  Signature sig(ECDSA_SIG_new(), ECDSA_SIG_free);
  BIGNUM* r = BN_bin2bn(p, kCoordinate, nullptr);
  BIGNUM* s = BN_bin2bn(p + kCoordinate, kCoordinate, nullptr);
  if (!sig || !r || !s || ECDSA_SIG_set0(sig.get(), r, s) != 1) {
    BN_free(r);
    BN_free(s);
    return std::nullopt;
  }
  int size = i2d_ECDSA_SIG(sig.get(), nullptr);
  if (size <= 0) return std::nullopt;
  std::vector<unsigned char> der(static_cast<std::size_t>(size));
  unsigned char* out = der.data();
  i2d_ECDSA_SIG(sig.get(), &out);
  return der;
}

DigestContext digest_context() {
  DigestContext ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
  if (!ctx) throw std::runtime_error("out of memory for a signature");
  return ctx;
}

}  // namespace

SigningKey::SigningKey(std::unique_ptr<Key> key)
    : key_(std::move(key)), key_id_(public_key_id(key_->pkey)) {}
SigningKey::~SigningKey() = default;
SigningKey::SigningKey(SigningKey&&) noexcept = default;
SigningKey& SigningKey::operator=(SigningKey&&) noexcept = default;

SigningKey SigningKey::generate() {
  auto key = std::make_unique<Key>();
  key->pkey = EVP_EC_gen("P-256");
  if (!key->pkey) throw std::runtime_error("cannot generate the service account signing key");
  return SigningKey(std::move(key));
}

SigningKey SigningKey::from_pem(const std::string& pem) {
  Bio bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())), BIO_free);
  auto key = std::make_unique<Key>();
  key->pkey = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr;
  if (!key->pkey || EVP_PKEY_get_base_id(key->pkey) != EVP_PKEY_EC ||
      EVP_PKEY_get_bits(key->pkey) != 256) {
    throw std::runtime_error(
        "the service account signing key is not a P-256 EC private key in PEM");
  }
  return SigningKey(std::move(key));
}

std::string SigningKey::private_pem() const {
  Bio bio(BIO_new(BIO_s_mem()), BIO_free);
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key_->pkey, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    throw std::runtime_error("cannot write the service account signing key");
  }
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return {data, static_cast<std::size_t>(size)};
}

std::string SigningKey::sign(std::string_view data) const {
  DigestContext ctx = digest_context();
  std::size_t size = 0;
  const auto* in = reinterpret_cast<const unsigned char*>(data.data());
  if (EVP_DigestSignInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_->pkey) != 1 ||
      EVP_DigestSign(ctx.get(), nullptr, &size, in, data.size()) != 1) {
    throw std::runtime_error("cannot sign a service account token");
  }
  std::vector<unsigned char> der(size);
  if (EVP_DigestSign(ctx.get(), der.data(), &size, in, data.size()) != 1) {
    throw std::runtime_error("cannot sign a service account token");
  }
  return raw_signature(der.data(), size);
}

bool SigningKey::verify(std::string_view data, std::string_view signature) const {
  std::optional<std::vector<unsigned char>> der = der_signature(signature);
  if (!der) return false;
  DigestContext ctx = digest_context();
  return EVP_DigestVerifyInit(ctx.get(), nullptr, EVP_sha256(), nullptr, key_->pkey) == 1 &&
         EVP_DigestVerify(ctx.get(), der->data(), der->size(),
                          reinterpret_cast<const unsigned char*>(data.data()), data.size()) == 1;
}

std::string base64url_encode(std::string_view data) {
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (unsigned char c : data) {
    bits = (bits << 8) | c;
    count += 8;
    while (count >= 6) {
      count -= 6;
      out += kAlphabet[(bits >> count) & 63];
    }
  }
  if (count > 0) out += kAlphabet[(bits << (6 - count)) & 63];
  return out;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  std::string out;
  unsigned bits = 0;
  int count = 0;
  for (char c : text) {
    std::size_t v = kAlphabet.find(c);
    if (v == std::string_view::npos) return std::nullopt;
    bits = (bits << 6) | static_cast<unsigned>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 255);
    }
  }
  if (count >= 6) return std::nullopt;  // one character alone cannot end a group
  return out;
}

std::string encode_jwt(const SigningKey& key, const bj::object& claims) {
  const bj::object header{{"alg", "ES256"}, {"kid", key.key_id()}};
  const std::string input =
      base64url_encode(bj::serialize(header)) + "." + base64url_encode(bj::serialize(claims));
  return input + "." + base64url_encode(key.sign(input));
}

std::optional<bj::object> verified_claims(const SigningKey& key, std::string_view token) {
  const std::size_t first = token.find('.');
  const std::size_t second = first == std::string_view::npos ? first : token.find('.', first + 1);
  if (second == std::string_view::npos || token.find('.', second + 1) != std::string_view::npos)
    return std::nullopt;
  std::optional<std::string> header = base64url_decode(token.substr(0, first));
  std::optional<std::string> payload =
      base64url_decode(token.substr(first + 1, second - first - 1));
  std::optional<std::string> signature = base64url_decode(token.substr(second + 1));
  if (!header || !payload || !signature) return std::nullopt;
  bj::error_code ec;
  bj::value h = kube::json::parse_value(*header, ec);
  if (ec || !h.is_object() || h.get_object().if_contains("alg") == nullptr ||
      h.get_object().at("alg") != "ES256")
    return std::nullopt;
  if (!key.verify(token.substr(0, second), *signature)) return std::nullopt;
  bj::value claims = kube::json::parse_value(*payload, ec);
  if (ec || !claims.is_object()) return std::nullopt;
  return std::move(claims.get_object());
}

}  // namespace tailor::embedded
