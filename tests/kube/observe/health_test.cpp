#include "kube/observe/health.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

namespace tailor::kube::health {
namespace {

http::ServerRequest get(std::string path,
                        std::vector<std::pair<std::string, std::string>> query = {}) {
  http::ServerRequest r;
  r.method = "GET";
  r.path = std::move(path);
  r.query = std::move(query);
  return r;
}

class HealthTest : public ::testing::Test {
 protected:
  void SetUp() override {
    checks.add_livez("log", [] {});
    checks.add_readyz("informer-sync", [this] {
      if (!synced) throw std::runtime_error("2 informers not started yet: [pods nodes]");
    });
  }
  http::ServerResponse serve(std::string path,
                             std::vector<std::pair<std::string, std::string>> query = {}) {
    auto answer = checks.serve(get(std::move(path), std::move(query)));
    if (!answer) throw std::logic_error("no answer");
    return *answer;
  }
  Checks checks;
  std::atomic<bool> synced{false};
};

TEST_F(HealthTest, PlainOkWhenAllPass) {
  synced = true;
  for (auto path : {"/livez", "/readyz", "/healthz"}) {
    auto r = serve(path);
    EXPECT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, "ok") << path;
    EXPECT_EQ(http::find_header(r.headers, "content-type"), "text/plain; charset=utf-8");
    EXPECT_EQ(http::find_header(r.headers, "x-content-type-options"), "nosniff");
  }
}

TEST_F(HealthTest, VerboseListsEveryCheck) {
  synced = true;
  EXPECT_EQ(serve("/readyz", {{"verbose", ""}}).body,
            "[+]ping ok\n[+]log ok\n[+]informer-sync ok\nreadyz check passed\n");
  EXPECT_EQ(serve("/livez", {{"verbose", "1"}}).body,
            "[+]ping ok\n[+]log ok\nlivez check passed\n");
}

TEST_F(HealthTest, FailureIs500AlwaysVerboseWithReasonWithheld) {
  auto r = serve("/readyz");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(
      r.body,
      "[+]ping ok\n[+]log ok\n[-]informer-sync failed: reason withheld\nreadyz check failed\n");
  EXPECT_EQ(serve("/healthz").status, 500);
  EXPECT_EQ(serve("/livez").status, 200);  // readiness checks do not affect liveness
}

TEST_F(HealthTest, ExcludeSkipsChecksAndWarnsAboutUnknownNames) {
  auto r = serve(
      "/readyz",
      {{"exclude", "informer-sync"}, {"exclude", "nope"}, {"exclude", "etcd"}, {"verbose", ""}});
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body,
            "[+]ping ok\n[+]log ok\n[+]informer-sync excluded: ok\n"
            "warn: some health checks cannot be excluded: no matches for \"etcd\",\"nope\"\n"
            "readyz check passed\n");
}

TEST_F(HealthTest, SingleCheckShowsTheReason) {
  auto r = serve("/readyz/informer-sync");
  EXPECT_EQ(r.status, 500);
  EXPECT_EQ(r.body, "internal server error: 2 informers not started yet: [pods nodes]\n");
  synced = true;
  EXPECT_EQ(serve("/readyz/informer-sync").body, "ok");
  EXPECT_EQ(serve("/livez/ping").body, "ok");
}

TEST_F(HealthTest, UnknownPathsAreNotHealthPaths) {
  EXPECT_FALSE(checks.serve(get("/livez/informer-sync")));  // not a liveness check
  EXPECT_FALSE(checks.serve(get("/readyz/nope")));
  EXPECT_FALSE(checks.serve(get("/metrics")));
  EXPECT_FALSE(checks.serve(get("/readyzz")));
}

TEST_F(HealthTest, NonStandardExceptionsStillFail) {
  checks.add_readyz("weird", [] { throw 42; });
  synced = true;
  EXPECT_EQ(serve("/readyz/weird").body, "internal server error: unknown error\n");
}

TEST(HealthChecksTest, NamesMustBeUniqueAndPathSafe) {
  Checks checks;
  EXPECT_THROW(checks.add_livez("ping", [] {}), std::invalid_argument);
  EXPECT_THROW(checks.add_readyz("a/b", [] {}), std::invalid_argument);
  EXPECT_THROW(checks.add_readyz("", [] {}), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::kube::health
