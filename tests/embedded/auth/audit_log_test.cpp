// The audit log's events (auth/audit_log.h): audit.k8s.io/v1 Events at level Metadata with the
// authorization annotations, one JSON line per decision appended to the file.
#include "embedded/auth/audit_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

RequestAttributes resize_of(const std::string& pod) {
  RequestAttributes a;
  a.user = {.name = "system:serviceaccount:kube-system:tailor-controller",
            .uid = "u-1",
            .groups = {"system:serviceaccounts", "system:authenticated"}};
  a.verb = "patch";
  a.resource_request = true;
  a.api_version = "v1";
  a.resource = "pods";
  a.subresource = "resize";
  a.ns = "default";
  a.name = pod;
  return a;
}

const AuditedRequest kRequest{.audit_id = "7",
                              .method = "PATCH",
                              .request_uri = "/api/v1/namespaces/default/pods/web/resize",
                              .received = kube::parse_rfc3339("2026-11-27T10:00:00Z")};

// A bound token's request names the pod it was bound to, as upstream's user.extra does.
TEST(AuditLogTest, ABoundTokensPodIsInTheUsersExtra) {
  RequestAttributes a = resize_of("web");
  a.user.extra = {{"authentication.kubernetes.io/pod-name", {"tailor-controller-7d9-x2k"}},
                  {"authentication.kubernetes.io/pod-uid", {"p-1"}}};
  const bj::object e = audit_event(kRequest, a, {true, ""});
  EXPECT_EQ(e.at("user").at("extra"),
            (bj::object{{"authentication.kubernetes.io/pod-name", {"tailor-controller-7d9-x2k"}},
                        {"authentication.kubernetes.io/pod-uid", {"p-1"}}}));
  EXPECT_FALSE(
      audit_event(kRequest, resize_of("web"), {true, ""}).at("user").as_object().contains("extra"))
      << "none without extra values";
}

TEST(AuditLogTest, AllowedRequestIsAMetadataEventWithTheDecision) {
  const bj::object e =
      audit_event(kRequest, resize_of("web"), {true, "RBAC: allowed by ClusterRoleBinding x"});
  EXPECT_EQ(e.at("apiVersion"), "audit.k8s.io/v1");
  EXPECT_EQ(e.at("kind"), "Event");
  EXPECT_EQ(e.at("level"), "Metadata");
  EXPECT_EQ(e.at("auditID"), "7");
  EXPECT_EQ(e.at("stage"), "RequestReceived");
  EXPECT_EQ(e.at("verb"), "patch");
  EXPECT_EQ(e.at("requestURI"), "/api/v1/namespaces/default/pods/web/resize");
  EXPECT_EQ(e.at("requestReceivedTimestamp"), "2026-11-27T10:00:00.000000Z");
  EXPECT_EQ(e.at("user"),
            (bj::object{{"username",
                         "system:serviceaccount:kube-system:tailor-"
                         "controller"},
                        {"uid", "u-1"},
                        {"groups", {"system:serviceaccounts", "system:authenticated"}}}));
  EXPECT_EQ(e.at("objectRef"), (bj::object{{"resource", "pods"},
                                           {"namespace", "default"},
                                           {"name", "web"},
                                           {"apiVersion", "v1"},
                                           {"subresource", "resize"}}));
  EXPECT_EQ(e.at("annotations"),
            (bj::object{{"authorization.k8s.io/decision", "allow"},
                        {"authorization.k8s.io/reason", "RBAC: allowed by ClusterRoleBinding x"}}));
  EXPECT_FALSE(e.contains("responseStatus"));
}

TEST(AuditLogTest, ForbiddenRequestCarriesThe403) {
  const bj::object e = audit_event(kRequest, resize_of("web"), {false, ""});
  EXPECT_EQ(e.at("stage"), "ResponseComplete");
  EXPECT_EQ(e.at("responseStatus").at("code"), 403);
  EXPECT_EQ(e.at("responseStatus").at("reason"), "Forbidden");
  EXPECT_EQ(e.at("annotations").at("authorization.k8s.io/decision"), "forbid");
}

TEST(AuditLogTest, NonResourceRequestHasNoObjectRef) {
  RequestAttributes a;
  a.user = {.name = "bob"};
  a.verb = "get";
  a.path = "/metrics";
  const bj::object e = audit_event(kRequest, a, {false, ""});
  EXPECT_FALSE(e.contains("objectRef"));
}

TEST(AuditLogTest, AppendsOneLinePerDecisionNumberingThem) {
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("audit-" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(file);
  {
    AuditLog log(file.string());
    log.record({.request_uri = "/a"}, resize_of("a"), {true, ""});
    log.record({.request_uri = "/b"}, resize_of("b"), {false, ""});
  }
  std::ifstream in(file);
  std::string first, second, third;
  ASSERT_TRUE(std::getline(in, first));
  ASSERT_TRUE(std::getline(in, second));
  EXPECT_FALSE(std::getline(in, third));
  EXPECT_EQ(bj::parse(first).at("auditID"), "1");
  EXPECT_EQ(bj::parse(second).at("objectRef").at("name"), "b");
  std::filesystem::remove(file);
}

TEST(AuditLogTest, UnwritableFileIsAClearError) {
  try {
    AuditLog log("/nonexistent-dir/audit.log");
    FAIL() << "opened";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "--audit-log-path: cannot open /nonexistent-dir/audit.log for appending");
  }
}

}  // namespace
}  // namespace tailor::embedded
