// Escalation prevention's arithmetic: which of a role's permissions the writer lacks, split into
// one verb on one resource (or URL, or name) each and compacted as upstream prints them.
#include "embedded/auth/escalation.h"

#include <gtest/gtest.h>

namespace tailor::embedded {
namespace {

// The writer holds get on configmaps and get on /metrics, and nothing else.
AuthorizationDecision holds(const RequestAttributes& a) {
  const bool ok = a.verb == "get" && ((a.resource_request && a.api_group.empty() &&
                                       a.resource == "configmaps" && a.subresource.empty()) ||
                                      (!a.resource_request && a.path == "/metrics"));
  return {ok, ""};
}

TEST(MissingPermissionsTest, NothingMissingWhenEverythingIsHeld) {
  EXPECT_TRUE(
      missing_permissions({{.verbs = {"get"}, .api_groups = {""}, .resources = {"configmaps"}},
                           {.verbs = {"get"}, .non_resource_urls = {"/metrics"}}},
                          {.name = "u"}, "ns", holds)
          .empty());
}

TEST(MissingPermissionsTest, CompactsWhatIsMissingAndSortsIt) {
  std::vector<std::string> missing = missing_permissions(
      {{.verbs = {"get", "delete"},
        .api_groups = {"", "apps"},
        .resources = {"configmaps", "pods/resize"}},
       {.verbs = {"get", "post"}, .non_resource_urls = {"/metrics", "/healthz"}},
       {.verbs = {"update"},
        .api_groups = {""},
        .resources = {"configmaps"},
        .resource_names = {"a", "b"}}},
      {.name = "u"}, "ns", holds);
  EXPECT_EQ(
      missing,
      (std::vector<std::string>{
          R"({APIGroups:[""], Resources:["configmaps"], ResourceNames:["a"], Verbs:["update"]})",
          R"({APIGroups:[""], Resources:["configmaps"], ResourceNames:["b"], Verbs:["update"]})",
          R"({APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]})",
          R"({APIGroups:[""], Resources:["pods/resize"], Verbs:["get" "delete"]})",
          R"({APIGroups:["apps"], Resources:["configmaps"], Verbs:["get" "delete"]})",
          R"({APIGroups:["apps"], Resources:["pods/resize"], Verbs:["get" "delete"]})",
          R"({NonResourceURLs:["/healthz"], Verbs:["get" "post"]})",
          R"({NonResourceURLs:["/metrics"], Verbs:["post"]})"}));
}

TEST(MissingPermissionsTest, AWildcardNeedsAWildcard) {
  EXPECT_EQ(missing_permissions({{.verbs = {"get"}, .api_groups = {""}, .resources = {"*"}}},
                                {.name = "u"}, "ns", holds),
            std::vector<std::string>{R"({APIGroups:[""], Resources:["*"], Verbs:["get"]})"});
}

}  // namespace
}  // namespace tailor::embedded
