#include "kube/observe/endpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/kube/observe/http_get.h"

namespace tailor::kube::observe {
namespace {

using tailor::kube::testing::http_get;
using ::testing::HasSubstr;

TEST(EndpointTest, ServesMetricsAndHealthOverHttp) {
  metrics::Registry registry;
  registry.counter({.name = "scrapes_total", .help = "Test counter."}).with().Increment(3);
  health::Checks checks;
  bool ready = false;
  checks.add_readyz("leader", [&] {
    if (!ready) throw std::runtime_error("not leading");
  });
  Endpoint endpoint("127.0.0.1", 0, registry, checks);
  endpoint.start();
  ASSERT_NE(endpoint.port(), 0);

  auto m = http_get(endpoint.port(), "/metrics");
  EXPECT_EQ(m.status, 200);
  EXPECT_EQ(m.header("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_THAT(m.body, HasSubstr("tailor_scrapes_total 3\n"));

  EXPECT_EQ(http_get(endpoint.port(), "/livez").body, "ok");
  auto not_ready = http_get(endpoint.port(), "/readyz");
  EXPECT_EQ(not_ready.status, 500);
  EXPECT_THAT(not_ready.body, HasSubstr("[-]leader failed: reason withheld\n"));
  ready = true;
  auto verbose = http_get(endpoint.port(), "/readyz?verbose&exclude=ping");
  EXPECT_EQ(verbose.status, 200);
  EXPECT_EQ(verbose.body, "[+]ping excluded: ok\n[+]leader ok\nreadyz check passed\n");

  auto missing = http_get(endpoint.port(), "/nope");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(missing.body, "404 page not found\n");
  endpoint.stop();
}

TEST(EndpointTest, ServesAddedRoutesUntilRemoved) {
  metrics::Registry registry;
  health::Checks checks;
  Routes routes;
  Endpoint endpoint("127.0.0.1", 0, registry, checks, &routes);
  endpoint.start();
  EXPECT_EQ(http_get(endpoint.port(), "/metrics/resource").status, 404);
  routes.add("/metrics/resource", [](const http::ServerRequest&) {
    return http::ServerResponse{200, {{"Content-Type", kMetricsContentType}}, "scrape_error 0\n"};
  });
  auto added = http_get(endpoint.port(), "/metrics/resource");
  EXPECT_EQ(added.status, 200);
  EXPECT_EQ(added.body, "scrape_error 0\n");
  EXPECT_THAT(http_get(endpoint.port(), "/metrics").body,
              ::testing::Not(HasSubstr("scrape_error")));
  routes.remove("/metrics/resource");
  EXPECT_EQ(http_get(endpoint.port(), "/metrics/resource").status, 404);
  endpoint.stop();
}

TEST(EndpointTest, BindFailureNamesTheAddress) {
  metrics::Registry registry;
  health::Checks checks;
  Endpoint first("127.0.0.1", 0, registry, checks);
  first.start();
  Endpoint second("127.0.0.1", first.port(), registry, checks);
  try {
    second.start();
    FAIL() << "second bind succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("127.0.0.1:" + std::to_string(first.port())));
  }
}

}  // namespace
}  // namespace tailor::kube::observe
