#include "embedded/auth/user.h"

namespace tailor::embedded {

std::string service_account_user_name(const std::string& ns, const std::string& name) {
  return kServiceAccountPrefix + ns + ":" + name;
}

UserInfo service_account_user(const std::string& ns, const std::string& name,
                              const std::string& uid) {
  return {.name = service_account_user_name(ns, name),
          .uid = uid,
          .groups = {kAllServiceAccounts, std::string(kAllServiceAccounts) + ":" + ns,
                     kAllAuthenticated}};
}

UserInfo anonymous_user() { return {.name = kAnonymousUser, .groups = {kAllUnauthenticated}}; }

}  // namespace tailor::embedded
