#include "embedded/auth/authenticator.h"

#include <openssl/crypto.h>

#include <algorithm>
#include <boost/json.hpp>

#include "embedded/auth/stored_objects.h"
#include "embedded/auth/token_claims.h"
#include "embedded/storage/object_meta.h"
#include "kube/model/time.h"

namespace tailor::embedded {
namespace {

kube::TimePoint now(const AuthenticatorOptions& o) {
  return o.clock ? o.clock() : kube::TimePoint(std::chrono::system_clock::now());
}

UserInfo with_authenticated(UserInfo user) {
  if (std::find(user.groups.begin(), user.groups.end(), kAllAuthenticated) == user.groups.end())
    user.groups.push_back(kAllAuthenticated);
  return user;
}

// The bound object still exists with that uid and is not past its deletion (a deleted pod's
// token stops working, as the kubelet's projected tokens do).
bool bound_object_alive(const ObjectStore& store, const TokenSubject& s, kube::TimePoint at) {
  if (s.bound_kind.empty()) return true;
  ObjectPtr o = find_object(store, builtin("", s.bound_kind == "Pod" ? "pods" : "secrets"), s.ns,
                            s.bound.name);
  if (!o || meta_string(*o, "uid") != s.bound.uid) return false;
  const std::string deletion = meta_string(*o, "deletionTimestamp");
  if (deletion.empty()) return true;
  std::optional<kube::TimePoint> when = kube::try_parse_rfc3339(deletion);
  return when && *when > at;
}

std::string bearer_token(const kube::http::ServerRequest& request) {
  std::string_view header = request.header("Authorization");
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() <= kBearer.size() || !header.starts_with(kBearer)) return "";
  return std::string(header.substr(kBearer.size()));
}

// In time that does not depend on where the texts differ, so that a client cannot find the
// administrator token byte by byte from response times (only its length may show).
bool same_secret(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace

std::optional<UserInfo> service_account_token_user(const ObjectStore& store,
                                                   const AuthenticatorOptions& options,
                                                   std::string_view token) {
  if (!options.signing_key) return std::nullopt;
  std::optional<bj::object> claims = verified_claims(*options.signing_key, token);
  if (!claims) return std::nullopt;
  const kube::TimePoint at = now(options);
  std::optional<TokenSubject> s =
      check_token_claims(*claims, options.issuer, options.audiences, at);
  if (!s) return std::nullopt;
  ObjectPtr sa = find_object(store, builtin("", "serviceaccounts"), s->ns, s->service_account.name);
  if (!sa || meta_string(*sa, "uid") != s->service_account.uid) return std::nullopt;
  if (!bound_object_alive(store, *s, at)) return std::nullopt;
  UserInfo user = service_account_user(s->ns, s->service_account.name, s->service_account.uid);
  const std::string prefix = "authentication.kubernetes.io/";
  if (s->bound_kind == "Pod") {
    user.extra[prefix + "pod-name"] = {s->bound.name};
    user.extra[prefix + "pod-uid"] = {s->bound.uid};
  }
  if (!s->node_name.empty()) user.extra[prefix + "node-name"] = {s->node_name};
  const bj::value* jti = claims->if_contains("jti");
  if (jti && jti->is_string() && !jti->get_string().empty())
    user.extra[prefix + "credential-id"] = {"JTI=" + std::string(jti->get_string())};
  return user;
}

UserInfo authenticate(const ObjectStore& store, const AuthenticatorOptions& options,
                      const kube::http::ServerRequest& request) {
  if (!request.peer_common_name.empty()) {
    return with_authenticated(
        {.name = request.peer_common_name, .groups = request.peer_organizations});
  }
  const std::string token = bearer_token(request);
  if (!token.empty() && same_secret(token, options.admin_token)) {
    return {.name = kAdminUser, .groups = {kSystemMasters, kAllAuthenticated}};
  }
  if (!token.empty()) {
    if (std::optional<UserInfo> user = service_account_token_user(store, options, token))
      return *user;
  }
  throw unauthorized();
}

}  // namespace tailor::embedded
