// Discovery documents kubectl reads: /version, aggregated discovery (apidiscovery.k8s.io/v2) and
// the legacy documents (/api, /apis, /api/v1, /apis/<group>/<version>), and the minimal
// OpenAPI v3 that `kubectl apply` needs (see ../shared/notes/kubectl-facts.md).
#pragma once

#include <optional>
#include <string>

namespace tailor::embedded {

inline constexpr const char* kAggregatedDiscoveryType =
    "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";

std::string version_document();
// Aggregated: core group for /api, the named groups for /apis.
std::string aggregated_discovery(bool core);
std::string legacy_api_versions(const std::string& server_address);  // /api
std::string legacy_api_groups();                                     // /apis
// /apis/<group>: nullopt when not served.
std::optional<std::string> legacy_api_group(const std::string& group);
// /api/v1, /apis/<group>/<version>: nullopt when not served.
std::optional<std::string> legacy_resource_list(const std::string& group,
                                                const std::string& version);
std::string openapi_v3_root();
// /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>: nullopt when not served.
std::optional<std::string> openapi_v3_group_version(const std::string& path);

}  // namespace tailor::embedded
