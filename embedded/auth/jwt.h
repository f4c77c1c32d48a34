// JSON Web Tokens signed with RS256 (RSASSA-PKCS1-v1_5 over SHA-256, OpenSSL), as kube-apiserver
// signs ServiceAccount tokens with its --service-account-signing-key-file: header
// {"alg":"RS256","kid":<base64url SHA-256 of the public key's DER>}, compact serialization.
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tailor::embedded {

class SigningKey {
 public:
  static SigningKey generate();                        // a new RSA 2048 key
  static SigningKey from_pem(const std::string& pem);  // throws std::runtime_error
  ~SigningKey();
  SigningKey(SigningKey&&) noexcept;
  SigningKey& operator=(SigningKey&&) noexcept;

  std::string private_pem() const;
  const std::string& key_id() const { return key_id_; }
  std::string sign(std::string_view data) const;
  bool verify(std::string_view data, std::string_view signature) const;

 private:
  struct Key;
  explicit SigningKey(std::unique_ptr<Key> key);
  std::unique_ptr<Key> key_;
  std::string key_id_;
};

std::string base64url_encode(std::string_view data);
// nullopt on characters outside the URL-safe alphabet (padding is not used in JWTs).
std::optional<std::string> base64url_decode(std::string_view text);

std::string encode_jwt(const SigningKey& key, const boost::json::object& claims);
// The claims of a token that is well-formed, RS256 and signed by `key`; nullopt otherwise.
std::optional<boost::json::object> verified_claims(const SigningKey& key, std::string_view token);

}  // namespace tailor::embedded
