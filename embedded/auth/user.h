// Who a request comes from, as kube-apiserver's authenticators describe it (user.Info): a name,
// a uid, groups and extra values. Every authenticated user is in system:authenticated; the
// anonymous one is system:anonymous in system:unauthenticated.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace tailor::embedded {

struct UserInfo {
  std::string name{};
  std::string uid{};
  std::vector<std::string> groups{};
  std::map<std::string, std::vector<std::string>> extra{};
};

inline constexpr const char* kSystemMasters = "system:masters";
inline constexpr const char* kAllAuthenticated = "system:authenticated";
inline constexpr const char* kAllUnauthenticated = "system:unauthenticated";
inline constexpr const char* kAnonymousUser = "system:anonymous";
inline constexpr const char* kServiceAccountPrefix = "system:serviceaccount:";
inline constexpr const char* kAllServiceAccounts = "system:serviceaccounts";

// "system:serviceaccount:<ns>:<name>".
std::string service_account_user_name(const std::string& ns, const std::string& name);
// The user of a ServiceAccount's token: its name, uid and the groups system:serviceaccounts,
// system:serviceaccounts:<ns>, system:authenticated.
UserInfo service_account_user(const std::string& ns, const std::string& name,
                              const std::string& uid);
UserInfo anonymous_user();

}  // namespace tailor::embedded
