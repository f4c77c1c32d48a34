// Who a request comes from, as kube-apiserver's union of authenticators answers: a client
// certificate the cluster's CA signed (user = CN, groups = O), else a bearer token — the
// cluster's administrator token (user tailor-admin in system:masters) or a ServiceAccount token
// this cluster signed (checked against the store: the ServiceAccount, and the pod it is bound
// to, still exist with the uids the token names). Every authenticated user is also in
// system:authenticated. Anything else is 401 Unauthorized: anonymous requests are refused
// (--anonymous-auth=false), since the TLS layer surfaces only verified certificates and a
// certificate from another CA must stay a 401, as kube-apiserver answers it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "embedded/auth/jwt.h"
#include "embedded/auth/user.h"
#include "embedded/storage/object_store.h"
#include "kube/http/server.h"

namespace tailor::embedded {

inline constexpr const char* kAdminUser = "tailor-admin";

struct AuthenticatorOptions {
  std::string admin_token;
  const SigningKey* signing_key = nullptr;  // null: no ServiceAccount tokens
  std::string issuer{};
  std::vector<std::string> audiences{};
  std::function<kube::TimePoint()> clock{};  // unset: system clock
};

// The user of a ServiceAccount token; nullopt for one that is not valid now.
std::optional<UserInfo> service_account_token_user(const ObjectStore& store,
                                                   const AuthenticatorOptions& options,
                                                   std::string_view token);

// Throws 401 Unauthorized.
UserInfo authenticate(const ObjectStore& store, const AuthenticatorOptions& options,
                      const kube::http::ServerRequest& request);

}  // namespace tailor::embedded
