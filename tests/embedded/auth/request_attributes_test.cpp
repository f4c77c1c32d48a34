// Request attributes read from the URL as kube-apiserver's RequestInfoFactory reads them.
#include "embedded/auth/request_attributes.h"

#include <gtest/gtest.h>

namespace tailor::embedded {
namespace {

struct UrlCase {
  const char* name;
  HttpRequestLine request;
  bool resource_request;
  std::string verb, group, resource, subresource, ns, object_name;
};

class RequestAttributesTest : public ::testing::TestWithParam<UrlCase> {};

TEST_P(RequestAttributesTest, ReadsTheUrl) {
  const UrlCase& c = GetParam();
  RequestAttributes a = request_attributes(c.request);
  EXPECT_EQ(a.resource_request, c.resource_request);
  EXPECT_EQ(a.verb, c.verb);
  EXPECT_EQ(a.api_group, c.group);
  EXPECT_EQ(a.resource, c.resource);
  EXPECT_EQ(a.subresource, c.subresource);
  EXPECT_EQ(a.ns, c.ns);
  EXPECT_EQ(a.name, c.object_name);
  EXPECT_EQ(a.path, c.request.path);
}

INSTANTIATE_TEST_SUITE_P(
    Urls, RequestAttributesTest,
    ::testing::Values(
        UrlCase{
            "List", {"GET", "/api/v1/namespaces/ns/pods"}, true, "list", "", "pods", "", "ns", ""},
        UrlCase{
            "Get", {"GET", "/api/v1/namespaces/ns/pods/x"}, true, "get", "", "pods", "", "ns", "x"},
        UrlCase{"Watch", {"GET", "/api/v1/pods", "true"}, true, "watch", "", "pods", "", "", ""},
        UrlCase{"WatchOneByFieldSelector",
                {"GET", "/api/v1/namespaces/ns/pods", "1", "metadata.name=x"},
                true,
                "watch",
                "",
                "pods",
                "",
                "ns",
                "x"},
        UrlCase{"Create",
                {"POST", "/apis/apps/v1/namespaces/ns/deployments"},
                true,
                "create",
                "apps",
                "deployments",
                "",
                "ns",
                ""},
        UrlCase{"Update",
                {"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/scale"},
                true,
                "update",
                "apps",
                "deployments",
                "scale",
                "ns",
                "d"},
        UrlCase{"PatchResize",
                {"PATCH", "/api/v1/namespaces/ns/pods/x/resize"},
                true,
                "patch",
                "",
                "pods",
                "resize",
                "ns",
                "x"},
        UrlCase{"Delete",
                {"DELETE", "/api/v1/namespaces/ns/pods/x"},
                true,
                "delete",
                "",
                "pods",
                "",
                "ns",
                "x"},
        UrlCase{"DeleteCollection",
                {"DELETE", "/api/v1/namespaces/ns/pods"},
                true,
                "deletecollection",
                "",
                "pods",
                "",
                "ns",
                ""},
        UrlCase{"Eviction",
                {"POST", "/api/v1/namespaces/ns/pods/x/eviction"},
                true,
                "create",
                "",
                "pods",
                "eviction",
                "ns",
                "x"},
        UrlCase{"TokenRequest",
                {"POST", "/api/v1/namespaces/ns/serviceaccounts/sa/token"},
                true,
                "create",
                "",
                "serviceaccounts",
                "token",
                "ns",
                "sa"},
        UrlCase{"ANamespaceIsInItself",
                {"GET", "/api/v1/namespaces/ns"},
                true,
                "get",
                "",
                "namespaces",
                "",
                "ns",
                "ns"},
        UrlCase{"NamespaceStatus",
                {"PUT", "/api/v1/namespaces/ns/status"},
                true,
                "update",
                "",
                "namespaces",
                "status",
                "ns",
                "ns"},
        UrlCase{"ListNamespaces",
                {"GET", "/api/v1/namespaces"},
                true,
                "list",
                "",
                "namespaces",
                "",
                "",
                ""},
        UrlCase{"ClusterScoped",
                {"GET", "/apis/rbac.authorization.k8s.io/v1/clusterroles/admin"},
                true,
                "get",
                "rbac.authorization.k8s.io",
                "clusterroles",
                "",
                "",
                "admin"},
        UrlCase{"Discovery", {"GET", "/api"}, false, "get", "", "", "", "", ""},
        UrlCase{
            "GroupVersionDiscovery", {"GET", "/apis/apps/v1"}, false, "get", "", "", "", "", ""},
        UrlCase{"CoreVersionDiscovery", {"GET", "/api/v1"}, false, "get", "", "", "", "", ""},
        UrlCase{"Metrics", {"GET", "/metrics"}, false, "get", "", "", "", "", ""},
        UrlCase{"NonResourcePost", {"POST", "/healthz"}, false, "post", "", "", "", "", ""}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tailor::embedded
