#include "embedded/auth/token_claims.h"

#include <algorithm>
#include <boost/json.hpp>
#include <limits>

#include "embedded/auth/user.h"
#include "embedded/storage/object_meta.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

std::int64_t unix_seconds(kube::TimePoint t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}

bj::object identity_json(const ObjectIdentity& o) { return {{"name", o.name}, {"uid", o.uid}}; }

std::optional<std::int64_t> number_of(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return v->get_int64();
  // Past int64 a time saturates: a far exp never expires, a far nbf is never reached.
  constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
  if (v->is_uint64()) return kMax;
  if (!v->is_double()) return std::nullopt;
  const double d = v->get_double();
  if (d >= 0x1p63) return kMax;
  if (!(d >= -0x1p63)) return std::numeric_limits<std::int64_t>::min();  // and NaN
  return static_cast<std::int64_t>(d);
}

const bj::object* object_of(const bj::object& o, std::string_view key) {
  const bj::value* v = o.if_contains(key);
  return v && v->is_object() ? &v->get_object() : nullptr;
}

// aud is a string or an array of strings.
bool audience_matches(const bj::object& claims, const std::vector<std::string>& accepted) {
  const bj::value* aud = claims.if_contains("aud");
  auto accepted_one = [&](const bj::value& v) {
    return v.is_string() && std::find(accepted.begin(), accepted.end(),
                                      std::string(v.get_string())) != accepted.end();
  };
  if (!aud) return false;
  if (aud->is_string()) return accepted_one(*aud);
  if (!aud->is_array()) return false;
  return std::any_of(aud->get_array().begin(), aud->get_array().end(), accepted_one);
}

bool current(const bj::object& claims, kube::TimePoint now) {
  const std::int64_t t = unix_seconds(now), leeway = kTokenLeeway.count();
  std::optional<std::int64_t> exp = number_of(claims, "exp"), nbf = number_of(claims, "nbf"),
                              iat = number_of(claims, "iat");
  if (!exp || t - leeway > *exp) return false;
  if (nbf && t + leeway < *nbf) return false;
  return !iat || t + leeway >= *iat;
}

std::optional<TokenSubject> subject_of(const bj::object& k8s) {
  TokenSubject s;
  s.ns = string_at(k8s, "namespace");
  const bj::object* sa = object_of(k8s, "serviceaccount");
  if (s.ns.empty() || !sa) return std::nullopt;
  s.service_account = {string_at(*sa, "name"), string_at(*sa, "uid")};
  if (s.service_account.name.empty() || s.service_account.uid.empty()) return std::nullopt;
  for (const char* kind : {"Pod", "Secret"}) {
    std::string key = kind == std::string("Pod") ? "pod" : "secret";
    if (const bj::object* bound = object_of(k8s, key)) {
      s.bound_kind = kind;
      s.bound = {string_at(*bound, "name"), string_at(*bound, "uid")};
    }
  }
  if (const bj::object* node = object_of(k8s, "node")) s.node_name = string_at(*node, "name");
  return s;
}

}  // namespace

bj::object token_claims(const TokenSubject& subject, const TokenGrant& grant) {
  bj::array aud;
  for (const std::string& a : grant.audiences) aud.emplace_back(a);
  const std::int64_t iat = unix_seconds(grant.issued_at);
  bj::object k8s{{"namespace", subject.ns},
                 {"serviceaccount", identity_json(subject.service_account)}};
  if (subject.bound_kind == "Pod") k8s["pod"] = identity_json(subject.bound);
  if (subject.bound_kind == "Secret") k8s["secret"] = identity_json(subject.bound);
  if (!subject.node_name.empty()) k8s["node"] = bj::object{{"name", subject.node_name}};
  return {{"aud", std::move(aud)},
          {"exp", iat + grant.expiration_seconds},
          {"iat", iat},
          {"iss", grant.issuer},
          {"jti", grant.jti},
          {"kubernetes.io", std::move(k8s)},
          {"nbf", iat},
          {"sub", service_account_user_name(subject.ns, subject.service_account.name)}};
}

std::optional<TokenSubject> check_token_claims(const bj::object& claims, const std::string& issuer,
                                               const std::vector<std::string>& audiences,
                                               kube::TimePoint now) {
  if (string_at(claims, "iss") != issuer || !audience_matches(claims, audiences) ||
      !current(claims, now)) {
    return std::nullopt;
  }
  const bj::object* k8s = object_of(claims, "kubernetes.io");
  if (!k8s) return std::nullopt;
  std::optional<TokenSubject> s = subject_of(*k8s);
  if (!s || string_at(claims, "sub") != service_account_user_name(s->ns, s->service_account.name))
    return std::nullopt;
  return s;
}

}  // namespace tailor::embedded
