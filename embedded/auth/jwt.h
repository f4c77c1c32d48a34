// JSON Web Tokens signed with ES256 (ECDSA P-256 over SHA-256, OpenSSL), one of the two
// algorithms kube-apiserver signs ServiceAccount tokens with (RS256 for an RSA
// --service-account-signing-key-file, ES256 for an EC one): header {"alg":"ES256","kid":
// <base64url SHA-256 of the public key's DER>}, compact serialization. EC because a key is made
// at every start without a state directory, and P-256 takes microseconds where RSA 2048 takes
// up to a second on a loaded machine.
#pragma once

#include <boost/json/fwd.hpp>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace tailor::embedded {

class SigningKey {
 public:
  static SigningKey generate();                        // a new P-256 key
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
// The claims of a token that is well-formed, ES256 and signed by `key`; nullopt otherwise.
std::optional<boost::json::object> verified_claims(const SigningKey& key, std::string_view token);

}  // namespace tailor::embedded
