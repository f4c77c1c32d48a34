// SelfSubjectAccessReview answers: the single admin is allowed; a spec must name exactly one of
// resource and non-resource attributes, with kube-apiserver's validation messages.
#include "embedded/protobuf/access_review.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

bj::object review(std::string_view spec) {
  return bj::parse(R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
                   R"("spec":)" +
                   std::string(spec) + "}")
      .as_object();
}

TEST(AccessReviewTest, ResourceRequestIsAllowed) {
  bj::object answer =
      review_self_access(review(R"({"resourceAttributes":{"verb":"create","resource":"pods"}})"));
  EXPECT_EQ(answer.at("status").at("allowed"), bj::value(true));
  EXPECT_FALSE(answer.at("status").at("reason").as_string().empty());
  EXPECT_EQ(answer.at("spec"),
            bj::parse(R"({"resourceAttributes":{"verb":"create","resource":"pods"}})"));
  EXPECT_EQ(answer.at("metadata"), bj::parse(R"({"creationTimestamp":null})"));
  EXPECT_EQ(answer.at("kind"), bj::value("SelfSubjectAccessReview"));
}

TEST(AccessReviewTest, NonResourceRequestIsAllowed) {
  bj::object answer =
      review_self_access(review(R"({"nonResourceAttributes":{"path":"/healthz","verb":"get"}})"));
  EXPECT_EQ(answer.at("status").at("allowed"), bj::value(true));
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
    review_self_access(review(c.spec));
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
