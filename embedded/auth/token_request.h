// serviceaccounts/{name}/token (TokenRequest, authentication.k8s.io/v1; kubectl create token):
// a bound token for the ServiceAccount, signed with the cluster's key, meant for spec.audiences
// (default: the API server's), valid spec.expirationSeconds (default 3600, 600 to 2^32), bound
// to spec.boundObjectRef (a Pod or Secret of the namespace, which must exist with the uid given).
#pragma once

#include <string>
#include <vector>

#include "embedded/api/extensions.h"
#include "embedded/auth/jwt.h"

namespace tailor::embedded {

struct TokenIssuer {
  const SigningKey* key;
  std::string issuer;
  std::vector<std::string> audiences;  // the API server's, when a request names none
};

SubresourceHandler token_request_handler(TokenIssuer issuer);

}  // namespace tailor::embedded
