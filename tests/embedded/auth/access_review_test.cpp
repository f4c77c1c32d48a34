// Access reviews: the spec is read into the attributes the authorizer decides on (for the
// requester, or for spec.user/groups in a SubjectAccessReview), the decision becomes the status;
// a spec must name exactly one of resource and non-resource attributes, with kube-apiserver's
// validation messages.
#include "embedded/auth/access_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object review(std::string_view spec, std::string_view kind = "SelfSubjectAccessReview") {
  return bj::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":")" + std::string(kind) +
                   R"(","spec":)" + std::string(spec) + "}")
      .as_object();
}

// Allows pods/resize patches to user "jane" alone, and records what it was asked.
struct RecordingAuthorizer {
  std::vector<RequestAttributes> asked;
  Authorizer function() {
    return [this](const RequestAttributes& a) {
      asked.push_back(a);
      const bool allowed = a.user.name == "jane" && a.resource == "pods" &&
                           a.subresource == "resize" && a.verb == "patch";
      return AuthorizationDecision{allowed, allowed ? "RBAC: allowed by test" : ""};
    };
  }
};

TEST(AccessReviewTest, SelfReviewAsksForTheRequester) {
  RecordingAuthorizer a;
  bj::object answer = review_self_access(
      review(R"({"resourceAttributes":{"verb":"patch","resource":"pods","subresource":"resize",)"
             R"("namespace":"ns","name":"web"}})"),
      UserInfo{.name = "jane"}, a.function());
  EXPECT_EQ(answer.at("status"), bj::parse(R"({"allowed":true,"reason":"RBAC: allowed by test"})"));
  ASSERT_EQ(a.asked.size(), 1u);
  EXPECT_TRUE(a.asked[0].resource_request);
  EXPECT_EQ(a.asked[0].ns, "ns");
  EXPECT_EQ(a.asked[0].name, "web");
  EXPECT_EQ(answer.at("metadata"), bj::parse(R"({"creationTimestamp":null})"));
  EXPECT_EQ(answer.at("kind"), bj::value("SelfSubjectAccessReview"));
}

TEST(AccessReviewTest, DeniedReviewHasNoReasonWhenNoneWasGiven) {
  RecordingAuthorizer a;
  bj::object answer = review_self_access(
      review(
          R"({"resourceAttributes":{"verb":"update","resource":"pods","subresource":"resize"}})"),
      UserInfo{.name = "jane"}, a.function());
  EXPECT_EQ(answer.at("status"), bj::parse(R"({"allowed":false})"));
}

TEST(AccessReviewTest, NonResourceRequestIsAPath) {
  RecordingAuthorizer a;
  review_self_access(review(R"({"nonResourceAttributes":{"path":"/healthz","verb":"get"}})"),
                     UserInfo{.name = "bob"}, a.function());
  ASSERT_EQ(a.asked.size(), 1u);
  EXPECT_FALSE(a.asked[0].resource_request);
  EXPECT_EQ(a.asked[0].path, "/healthz");
  EXPECT_EQ(a.asked[0].verb, "get");
}

TEST(AccessReviewTest, SubjectReviewAsksForTheNamedUserAndGroups) {
  RecordingAuthorizer a;
  bj::object answer = review_subject_access(
      review(R"({"user":"jane","groups":["devs"],"resourceAttributes":{"verb":"patch",)"
             R"("resource":"pods","subresource":"resize"}})",
             "SubjectAccessReview"),
      a.function());
  EXPECT_EQ(answer.at("status").at("allowed"), bj::value(true));
  ASSERT_EQ(a.asked.size(), 1u);
  EXPECT_EQ(a.asked[0].user.groups, std::vector<std::string>{"devs"});
}

TEST(AccessReviewTest, SubjectReviewNeedsAUserOrAGroup) {
  RecordingAuthorizer a;
  try {
    review_subject_access(
        review(R"({"resourceAttributes":{"verb":"get","resource":"pods"}})", "SubjectAccessReview"),
        a.function());
    FAIL() << "accepted";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 422);
    EXPECT_EQ(e.message(),
              "SubjectAccessReview.authorization.k8s.io \"\" is invalid: spec.user: Invalid value: "
              "\"\": at least one of user or group must be specified");
  }
  EXPECT_TRUE(a.asked.empty());
}

struct InvalidSpec {
  const char* name;
  const char* spec;
  std::string message;
  std::string field;
};

class InvalidSpecTest : public ::testing::TestWithParam<InvalidSpec> {};

TEST_P(InvalidSpecTest, IsUnprocessable) {
  const InvalidSpec& c = GetParam();
  try {
    review_self_access(review(c.spec), UserInfo{.name = "jane"}, nullptr);
    FAIL() << "accepted " << c.spec;
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), 422);
    EXPECT_EQ(e.reason(), "Invalid");
    EXPECT_EQ(e.message(), "SelfSubjectAccessReview.authorization.k8s.io \"\" is invalid: " +
                               c.field + ": " + c.message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Specs, InvalidSpecTest,
    ::testing::Values(
        InvalidSpec{"Empty", "{}",
                    "Invalid value: null: exactly one of nonResourceAttributes or "
                    "resourceAttributes must be specified",
                    "spec.resourceAttributes"},
        InvalidSpec{"Missing", "null",
                    "Invalid value: null: exactly one of nonResourceAttributes or "
                    "resourceAttributes must be specified",
                    "spec.resourceAttributes"},
        InvalidSpec{"Both",
                    R"({"resourceAttributes":{"verb":"get"},"nonResourceAttributes":{"path":"/"}})",
                    R"(Invalid value: {"path":"/"}: cannot be specified in combination with )"
                    "resourceAttributes",
                    "spec.nonResourceAttributes"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace tailor::embedded
