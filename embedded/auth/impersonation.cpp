#include "embedded/auth/impersonation.h"

#include <algorithm>
#include <cctype>

namespace tailor::embedded {
namespace {

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::vector<std::string> header_values(const kube::http::ServerRequest& request,
                                       std::string_view name) {
  std::vector<std::string> out;
  for (const auto& [key, value] : request.headers) {
    if (same_name(key, name)) out.push_back(value);
  }
  return out;
}

// The impersonate request the sender must be allowed: a user, a ServiceAccount, a group, a uid.
RequestAttributes acting_as(const UserInfo& sender, const std::string& resource,
                            const std::string& name) {
  RequestAttributes a{.user = sender, .verb = "impersonate", .resource_request = true};
  a.resource = resource;
  a.name = name;
  if (resource == "uids") a.api_group = "authentication.k8s.io";
  const std::string prefix = kServiceAccountPrefix;
  if (resource == "users" && name.starts_with(prefix)) {
    const std::string rest = name.substr(prefix.size());
    const std::size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      a.resource = "serviceaccounts";
      a.ns = rest.substr(0, colon);
      a.name = rest.substr(colon + 1);
    }
  }
  return a;
}

}  // namespace

UserInfo impersonate(
    UserInfo sender, const kube::http::ServerRequest& request,
    const std::function<AuthorizationDecision(const RequestAttributes&)>& authorize) {
  std::vector<std::string> users = header_values(request, "Impersonate-User");
  std::vector<std::string> groups = header_values(request, "Impersonate-Group");
  std::vector<std::string> uids = header_values(request, "Impersonate-Uid");
  if (users.empty() && groups.empty() && uids.empty()) return sender;
  if (users.size() != 1 || uids.size() > 1)
    throw bad_request("requested impersonation of groups or a uid without impersonating a user");
  auto check = [&](const std::string& resource, const std::string& name) {
    RequestAttributes a = acting_as(sender, resource, name);
    AuthorizationDecision d = authorize(a);
    if (!d.allowed) throw forbidden(a, d.reason);
  };
  check("users", users[0]);
  for (const std::string& g : groups) check("groups", g);
  for (const std::string& u : uids) check("uids", u);
  UserInfo user{.name = users[0], .uid = uids.empty() ? "" : uids[0], .groups = groups};
  RequestAttributes as_user = acting_as(sender, "users", users[0]);
  if (as_user.resource == "serviceaccounts" && groups.empty()) {
    user.groups = service_account_user(as_user.ns, as_user.name, "").groups;
  }
  if (std::find(user.groups.begin(), user.groups.end(), kAllAuthenticated) == user.groups.end())
    user.groups.push_back(kAllAuthenticated);
  return user;
}

}  // namespace tailor::embedded
