// The claims of a bound ServiceAccount token, as kube-apiserver writes and checks them (pure):
// iss, sub system:serviceaccount:<ns>:<name>, aud, iat = nbf, exp, jti, and the kubernetes.io
// claim naming the namespace, the ServiceAccount (name, uid) and the object the token is bound
// to (a pod or a secret: name, uid). Checked with go-jose's default leeway of 60 s.
#pragma once

#include <boost/json/fwd.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kube/model/time.h"

namespace tailor::embedded {

// The issuer and the API audiences of tailor-cluster (kubeadm's defaults).
inline constexpr const char* kServiceAccountIssuer = "https://kubernetes.default.svc.cluster.local";

struct ObjectIdentity {
  std::string name;
  std::string uid;
};

struct TokenSubject {
  std::string ns;
  ObjectIdentity service_account;
  std::string bound_kind{};  // "Pod", "Secret" or "" (unbound)
  ObjectIdentity bound{};
  std::string node_name{};  // of a bound pod, when scheduled
};

struct TokenGrant {
  std::string issuer = kServiceAccountIssuer;
  std::vector<std::string> audiences{};
  kube::TimePoint issued_at{};
  std::int64_t expiration_seconds = 3600;
  std::string jti{};
};

boost::json::object token_claims(const TokenSubject& subject, const TokenGrant& grant);

// The subject of claims that are this issuer's, meant for one of `audiences`, and current at
// `now`; nullopt otherwise (what failed does not reach the client: every failure is a 401).
std::optional<TokenSubject> check_token_claims(const boost::json::object& claims,
                                               const std::string& issuer,
                                               const std::vector<std::string>& audiences,
                                               kube::TimePoint now);

inline constexpr std::chrono::seconds kTokenLeeway{60};

}  // namespace tailor::embedded
