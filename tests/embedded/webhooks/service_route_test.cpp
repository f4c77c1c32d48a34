// A webhook's service reference routed as kube-apiserver routes it: Service, port, ready endpoint,
// targetPort by number or container-port name, and the upstream error when any of them is missing.
#include "embedded/webhooks/service_route.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <optional>

namespace tailor::embedded::webhooks {
namespace {

namespace bj = boost::json;

bj::object service(const std::string& ports, const std::string& extra = "") {
  return bj::parse(R"({"metadata":{"name":"hook","namespace":"default"},"spec":{"selector":)"
                   R"({"app":"hook"},"ports":)" +
                   ports + extra + "}}")
      .as_object();
}

// A pod labelled app=<app>, Ready <ready>, with a container port named "https" on 8443.
bj::object pod(const std::string& name, const std::string& app, const std::string& ready,
               const std::string& extra_spec = "") {
  return bj::parse(
             R"({"metadata":{"name":")" + name + R"(","labels":{"app":")" + app +
             R"("}},"spec":{)" + extra_spec +
             R"("containers":[{"name":"c","ports":[{"name":"https","containerPort":8443}]}]},)"
             R"("status":{"podIP":"10.0.0.7","conditions":[{"type":"Ready","status":")" +
             ready + R"("}]}})")
      .as_object();
}

const std::string kPort443To8443 = R"([{"port":443,"targetPort":8443}])";

struct RouteCase {
  const char* name;
  int reference_port;
  std::optional<bj::object> service;
  std::vector<bj::object> pods;
  ServiceRoute expected;
};

class ServiceRouting : public ::testing::TestWithParam<RouteCase> {};

TEST_P(ServiceRouting, AsKubeApiserverRoutesWebhookCalls) {
  const RouteCase& c = GetParam();
  std::vector<const bj::object*> pods;
  for (const bj::object& p : c.pods) pods.push_back(&p);
  ServiceRoute got = route_to_service({"default", "hook", c.reference_port, "/mutate"},
                                      c.service ? &*c.service : nullptr, pods);
  EXPECT_EQ(got.error, c.expected.error) << c.name;
  EXPECT_EQ(got.host, c.expected.host) << c.name;
  EXPECT_EQ(got.port, c.expected.port) << c.name;
  EXPECT_EQ(got.pod, c.expected.pod) << c.name;
}

ServiceRoute error(const std::string& text) { return {"", 0, "", text}; }

INSTANTIATE_TEST_SUITE_P(
    Cases, ServiceRouting,
    ::testing::Values(RouteCase{"no such Service",
                                443,
                                std::nullopt,
                                {pod("a", "hook", "True")},
                                error("service \"hook\" not found")},
                      RouteCase{"no Service port of that number",
                                8080,
                                service(kPort443To8443),
                                {pod("a", "hook", "True")},
                                error("no service port 8080 found for service \"hook\"")},
                      RouteCase{"ExternalName Service",
                                443,
                                service(kPort443To8443, R"(,"type":"ExternalName")"),
                                {pod("a", "hook", "True")},
                                error("unsupported service type \"ExternalName\"")},
                      RouteCase{"no pod selected",
                                443,
                                service(kPort443To8443),
                                {pod("a", "other", "True")},
                                error("no endpoints available for service \"hook\"")},
                      RouteCase{"selected pod not Ready",
                                443,
                                service(kPort443To8443),
                                {pod("a", "hook", "False")},
                                error("no endpoints available for service \"hook\"")},
                      RouteCase{"numeric targetPort at the pod's IP",
                                443,
                                service(kPort443To8443),
                                {pod("a", "other", "True"), pod("b", "hook", "False"),
                                 pod("c", "hook", "True")},
                                {"10.0.0.7", 8443, "c", ""}},
                      RouteCase{"named targetPort",
                                443,
                                service(R"([{"port":443,"targetPort":"https"}])"),
                                {pod("a", "hook", "True")},
                                {"10.0.0.7", 8443, "a", ""}},
                      RouteCase{"named targetPort the pod does not have",
                                443,
                                service(R"([{"port":443,"targetPort":"metrics"}])"),
                                {pod("a", "hook", "True")},
                                error("no endpoints available for service \"hook\"")},
                      RouteCase{"no targetPort: the Service port",
                                9443,
                                service(R"([{"name":"x","port":9443}])"),
                                {pod("a", "hook", "True")},
                                {"10.0.0.7", 9443, "a", ""}},
                      RouteCase{"hostNetwork pod at its IP",
                                443,
                                service(kPort443To8443),
                                {pod("a", "hook", "True", R"("hostNetwork":true,)")},
                                {"10.0.0.7", 8443, "a", ""}},
                      RouteCase{"Service without selector",
                                443,
                                bj::parse(R"({"spec":{"ports":[{"port":443}]}})").as_object(),
                                {pod("a", "hook", "True")},
                                error("no endpoints available for service \"hook\"")}),
    [](const ::testing::TestParamInfo<RouteCase>& info) { return std::to_string(info.index); });

TEST(ServiceRouting, APodBeingDeletedIsNoEndpoint) {
  bj::object deleting = pod("a", "hook", "True");
  deleting["metadata"].as_object()["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  bj::object svc = service(kPort443To8443);
  EXPECT_EQ(route_to_service({"default", "hook", 443, "/"}, &svc, {&deleting}).error,
            "no endpoints available for service \"hook\"");
}

}  // namespace
}  // namespace tailor::embedded::webhooks
