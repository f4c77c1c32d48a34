// What an HTTP request asks of the authorizer, read from its method, path and query as
// kube-apiserver's RequestInfoFactory reads them: /api/v1/... and /apis/<group>/<version>/... are
// resource requests (verb from the method: get/list/watch, create, update, patch,
// delete/deletecollection; the namespace a URL names, a namespace's own name for
// /api/v1/namespaces/<name>; name from a metadata.name field selector on list and watch);
// everything else is a non-resource request whose verb is the lower-case method.
#pragma once

#include <optional>
#include <string>

#include "embedded/auth/rbac_rules.h"

namespace tailor::embedded {

struct HttpRequestLine {
  std::string method;
  std::string path;
  std::optional<std::string> watch{};           // the watch query parameter
  std::optional<std::string> field_selector{};  // the fieldSelector query parameter
};

// user is left empty: the caller fills it in.
RequestAttributes request_attributes(const HttpRequestLine& request);

}  // namespace tailor::embedded
