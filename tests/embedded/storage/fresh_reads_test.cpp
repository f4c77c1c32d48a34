// Reads at a resourceVersion the store has not reached (a client that saw a newer server): they
// wait for it as kube-apiserver's watch cache does, then answer 504 "Too large resource version".
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <future>
#include <string>

#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

class FreshReadsTest : public ApiOnlyRawHttpTest {
 protected:
  std::uint64_t current() const { return cluster_->store().resource_version(); }

  void create_configmap(const std::string& name) {
    auto r = send("POST", "/api/v1/namespaces/default/configmaps", "application/json",
                  R"({"metadata":{"name":")" + name + R"("}})");
    ASSERT_EQ(r.status, 201) << r.body;
  }
};

std::string too_large(std::uint64_t wanted, std::uint64_t current) {
  return R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
         R"("message":"Timeout: Too large resource version: )" +
         std::to_string(wanted) + ", current: " + std::to_string(current) +
         R"(","reason":"Timeout","details":{"causes":[{"reason":"ResourceVersionTooLarge",)"
         R"("message":"Too large resource version"}],"retryAfterSeconds":1},"code":504})";
}

TEST_F(FreshReadsTest, ListAtAVersionNotReachedIsTooLarge) {
  const std::uint64_t now = current();
  auto r = send("GET",
                "/api/v1/namespaces/default/configmaps?resourceVersion=" + std::to_string(now + 5),
                "", "");
  EXPECT_EQ(r.status, 504);
  EXPECT_EQ(r.body, too_large(now + 5, now));
}

TEST_F(FreshReadsTest, GetAtAVersionNotReachedIsTooLarge) {
  create_configmap("a");
  const std::uint64_t now = current();
  auto r = send(
      "GET", "/api/v1/namespaces/default/configmaps/a?resourceVersion=" + std::to_string(now + 1),
      "", "");
  EXPECT_EQ(r.status, 504);
  EXPECT_EQ(r.body, too_large(now + 1, now));
}

TEST_F(FreshReadsTest, ListWaitsForAVersionReachedMeanwhile) {
  const std::uint64_t next = current() + 1;
  auto list = std::async(std::launch::async, [&] {
    kube::http::Client client(admin_client_options(*cluster_));
    return send_as_admin(
        client, *cluster_, "GET",
        "/api/v1/namespaces/default/configmaps?resourceVersion=" + std::to_string(next), "", "");
  });
  // The list waits for `next`, which this create makes (or it came after: then it sees it too).
  create_configmap("made-meanwhile");
  kube::http::ClientResponse r = list.get();
  ASSERT_EQ(r.status, 200) << r.body;
  boost::json::value body = boost::json::parse(r.body);
  EXPECT_EQ(body.at("metadata").at("resourceVersion").as_string(), std::to_string(next));
  ASSERT_EQ(body.at("items").as_array().size(), 1u);
}

TEST_F(FreshReadsTest, ReachedAndAnyVersionsAnswerAtOnce) {
  const std::uint64_t now = current();
  for (std::string rv : {std::to_string(now), std::string("0"), std::string("1")}) {
    auto r = send("GET", "/api/v1/namespaces?resourceVersion=" + rv, "", "");
    EXPECT_EQ(r.status, 200) << rv << ": " << r.body;
  }
}

TEST_F(FreshReadsTest, ResourceVersionThatIsNotANumberIsABadRequest) {
  auto r = send("GET", "/api/v1/namespaces?resourceVersion=abc", "", "");
  EXPECT_EQ(r.status, 400);
  EXPECT_EQ(status_message(r),
            "resourceVersion: Invalid value: \"abc\": must be a non-negative integer");
}

}  // namespace
}  // namespace tailor::embedded::testing
