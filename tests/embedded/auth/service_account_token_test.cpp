// ServiceAccount tokens: ES256 signatures made and checked with OpenSSL, and the claims' checks
// (issuer, audience, expiry with go-jose's 60-s leeway, subject) — a forged, expired, premature or
// misaddressed token is refused.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/auth/jwt.h"
#include "embedded/auth/token_claims.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;
using std::chrono::seconds;

const kube::TimePoint kIssued = kube::TimePoint(seconds(1'800'000'000));
const std::vector<std::string> kApi = {kServiceAccountIssuer};

const SigningKey& key() {
  static const SigningKey k = SigningKey::generate();
  return k;
}

TokenSubject pod_bound() {
  return {.ns = "ns",
          .service_account = {"sa", "uid-sa"},
          .bound_kind = "Pod",
          .bound = {"web-0", "uid-pod"},
          .node_name = "node-1"};
}

bj::object claims(std::int64_t expiration = 3600) {
  return token_claims(
      pod_bound(),
      {.audiences = kApi, .issued_at = kIssued, .expiration_seconds = expiration, .jti = "jti-1"});
}

TEST(Base64UrlTest, RoundTripsWithoutPadding) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "\xff\xfe\xfd"}) {
    std::string e = base64url_encode(s);
    EXPECT_EQ(e.find('='), std::string::npos);
    EXPECT_EQ(base64url_decode(e), s) << e;
  }
  EXPECT_EQ(base64url_encode("\xfb\xff"), "-_8");
  EXPECT_FALSE(base64url_decode("a+b/"));
  EXPECT_FALSE(base64url_decode("a"));
}

TEST(JwtTest, SignedClaimsVerify) {
  const std::string token = encode_jwt(key(), claims());
  std::optional<bj::object> back = verified_claims(key(), token);
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, claims());
  const bj::value header = bj::parse(*base64url_decode(token.substr(0, token.find('.'))));
  EXPECT_EQ(header.at("alg"), "ES256");
  EXPECT_EQ(header.at("kid"), bj::value(key().key_id()));
}

// The bearer_token fuzz finding: claims read back with Boost.JSON's own parse came back an ulp
// away from what was signed (it does not round every mantissa correctly); tokens are read as
// every other JSON text here, as Go reads it.
TEST(JwtTest, SignedNumbersReadBackExactly) {
  bj::object c = claims();
  c["x"] = 3e99;  // the finding's number, correctly rounded (as the compiler reads it)
  c["y"] = 0.1 + 0.2;
  std::optional<bj::object> back = verified_claims(key(), encode_jwt(key(), c));
  ASSERT_TRUE(back);
  EXPECT_EQ(*back, c);
}

TEST(JwtTest, KeySurvivesPem) {
  SigningKey again = SigningKey::from_pem(key().private_pem());
  EXPECT_EQ(again.key_id(), key().key_id());
  EXPECT_TRUE(verified_claims(again, encode_jwt(key(), claims())));
  EXPECT_THROW(SigningKey::from_pem("not a key"), std::runtime_error);
}

TEST(JwtTest, ForgeriesAreRefused) {
  const std::string token = encode_jwt(key(), claims());
  const std::size_t dot = token.find('.'), last = token.rfind('.');
  // Another key's signature.
  EXPECT_FALSE(verified_claims(key(), encode_jwt(SigningKey::generate(), claims())));
  // Claims changed after signing (a longer expiry).
  bj::object longer = claims(365 * 24 * 3600);
  EXPECT_FALSE(verified_claims(
      key(),
      token.substr(0, dot + 1) + base64url_encode(bj::serialize(longer)) + token.substr(last)));
  // alg none, no signature.
  EXPECT_FALSE(verified_claims(
      key(), base64url_encode(R"({"alg":"none"})") + token.substr(dot, last - dot) + "."));
  // A signature of the wrong size, and one flipped bit.
  EXPECT_FALSE(verified_claims(key(), token.substr(0, last + 1) + "AAAA"));
  std::string flipped = *base64url_decode(token.substr(last + 1));
  flipped[5] = static_cast<char>(flipped[5] ^ 1);
  EXPECT_FALSE(verified_claims(key(), token.substr(0, last + 1) + base64url_encode(flipped)));
  // Not three parts, bad characters.
  EXPECT_FALSE(verified_claims(key(), "abc"));
  EXPECT_FALSE(verified_claims(key(), token + ".x"));
  EXPECT_FALSE(verified_claims(key(), "!!." + token.substr(dot + 1)));
}

TEST(TokenClaimsTest, NameTheServiceAccountAndWhatTheTokenIsBoundTo) {
  bj::object c = claims();
  EXPECT_EQ(c.at("sub"), "system:serviceaccount:ns:sa");
  EXPECT_EQ(c.at("iss"), kServiceAccountIssuer);
  EXPECT_EQ(c.at("iat"), 1'800'000'000);
  EXPECT_EQ(c.at("nbf"), 1'800'000'000);
  EXPECT_EQ(c.at("exp"), 1'800'003'600);
  EXPECT_EQ(c.at("kubernetes.io"),
            bj::parse(R"({"namespace":"ns","serviceaccount":{"name":"sa","uid":"uid-sa"},)"
                      R"("pod":{"name":"web-0","uid":"uid-pod"},"node":{"name":"node-1"}})"));
}

TEST(TokenClaimsTest, CurrentTokenForTheApiIsAccepted) {
  std::optional<TokenSubject> s =
      check_token_claims(claims(), kServiceAccountIssuer, kApi, kIssued + seconds(10));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->service_account.uid, "uid-sa");
  EXPECT_EQ(s->bound_kind, "Pod");
  EXPECT_EQ(s->bound.uid, "uid-pod");
}

TEST(TokenClaimsTest, ExpiryCountsWithTheLeeway) {
  const kube::TimePoint exp = kIssued + seconds(3600);
  EXPECT_TRUE(check_token_claims(claims(), kServiceAccountIssuer, kApi, exp + seconds(60)));
  EXPECT_FALSE(check_token_claims(claims(), kServiceAccountIssuer, kApi, exp + seconds(61)));
  EXPECT_TRUE(check_token_claims(claims(), kServiceAccountIssuer, kApi, kIssued - seconds(60)));
  EXPECT_FALSE(check_token_claims(claims(), kServiceAccountIssuer, kApi, kIssued - seconds(61)));
}

// Times at or past int64's ends saturate rather than wrap or overflow: a far exp never expires, a
// far nbf is never reached.
TEST(TokenClaimsTest, TimesPastInt64Saturate) {
  const kube::TimePoint now = kIssued + seconds(1);
  for (bj::value far : {bj::value(1e300), bj::value(18'446'744'073'709'551'615ull),
                        bj::value(9'223'372'036'854'775'807ll)}) {
    bj::object c = claims();
    c["exp"] = far;
    EXPECT_TRUE(check_token_claims(c, kServiceAccountIssuer, kApi, now)) << far;
    c = claims();
    c["nbf"] = far;
    EXPECT_FALSE(check_token_claims(c, kServiceAccountIssuer, kApi, now)) << far;
  }
  bj::object c = claims();
  c["exp"] = -1e300;
  EXPECT_FALSE(check_token_claims(c, kServiceAccountIssuer, kApi, now));
  c = claims();
  c["exp"] = 1'800'003'600.9;  // a fraction is cut, as go-jose's NumericDate does
  EXPECT_TRUE(check_token_claims(c, kServiceAccountIssuer, kApi, kIssued + seconds(3660)));
  EXPECT_FALSE(check_token_claims(c, kServiceAccountIssuer, kApi, kIssued + seconds(3661)));
}

TEST(TokenClaimsTest, WrongAudienceOrIssuerIsRefused) {
  const kube::TimePoint now = kIssued + seconds(1);
  EXPECT_FALSE(check_token_claims(claims(), kServiceAccountIssuer, {"vault"}, now));
  EXPECT_FALSE(check_token_claims(claims(), "https://other", kApi, now));
  bj::object vault = token_claims(pod_bound(), {.audiences = {"vault"}, .issued_at = kIssued});
  EXPECT_FALSE(check_token_claims(vault, kServiceAccountIssuer, kApi, now));
  EXPECT_TRUE(check_token_claims(vault, kServiceAccountIssuer, {"x", "vault"}, now));
}

TEST(TokenClaimsTest, SubjectMustAgreeWithTheKubernetesClaim) {
  bj::object c = claims();
  c["sub"] = "system:serviceaccount:ns:admin";
  EXPECT_FALSE(check_token_claims(c, kServiceAccountIssuer, kApi, kIssued));
  c = claims();
  c.erase("kubernetes.io");
  EXPECT_FALSE(check_token_claims(c, kServiceAccountIssuer, kApi, kIssued));
  c = claims();
  c.erase("exp");
  EXPECT_FALSE(check_token_claims(c, kServiceAccountIssuer, kApi, kIssued));
}

}  // namespace
}  // namespace tailor::embedded
