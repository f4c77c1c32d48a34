// What upstream's EndpointSlice and endpoints controllers write for a Service with a selector: the
// endpoints' conditions from the pods' Ready condition and deletion, named targetPorts resolved per
// pod (pods resolving differently in different slices), pods without an IP or terminal left out,
// the placeholder slice, and the Endpoints' addresses and notReadyAddresses.
#include "embedded/controllers/endpoint_slices.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace tailor::embedded {
namespace {
namespace bj = boost::json;

bj::object service(const std::string& extra_spec = "") {
  return bj::parse(
             R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"shop",
      "uid":"svc-uid","labels":{"team":"a"}},"spec":{"clusterIP":"10.201.3.20","selector":{"app":"web"},
      "ports":[{"name":"http","port":80,"protocol":"TCP","targetPort":"web"}])" +
             extra_spec + "}}")
      .as_object();
}

// A pod of app=web with a container port "web" (`port`), Ready or not, deleted or not.
bj::object pod(const std::string& name, const std::string& ip, int port, bool ready,
               bool deleting = false, const std::string& phase = "Running",
               const std::string& app = "web") {
  bj::object p = bj::parse(R"({"metadata":{"namespace":"shop","labels":{}},
      "spec":{"nodeName":"n1","containers":[{"name":"c","ports":[]}]},"status":{"conditions":[]}})")
                     .as_object();
  bj::object& meta = p["metadata"].as_object();
  meta["name"] = name;
  meta["uid"] = name + "-uid";
  meta["labels"].as_object()["app"] = app;
  if (deleting) meta["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  p["spec"].as_object()["containers"].as_array()[0].as_object()["ports"] =
      bj::array{bj::object{{"name", "web"}, {"containerPort", port}, {"protocol", "TCP"}}};
  bj::object& status = p["status"].as_object();
  status["phase"] = phase;
  if (!ip.empty()) status["podIP"] = ip;
  status["conditions"] =
      bj::array{bj::object{{"type", "Ready"}, {"status", ready ? "True" : "False"}}};
  return p;
}

std::vector<const bj::object*> ptrs(const std::vector<bj::object>& pods) {
  std::vector<const bj::object*> out;
  for (const auto& p : pods) out.push_back(&p);
  return out;
}

// "ip ready/serving/terminating" of each endpoint.
std::vector<std::string> endpoint_lines(const bj::object& slice) {
  std::vector<std::string> out;
  for (const bj::value& e : slice.at("endpoints").as_array()) {
    const bj::object& c = e.at("conditions").as_object();
    out.push_back(std::string(e.at("addresses").as_array()[0].as_string()) + " " +
                  (c.at("ready").as_bool() ? "R" : "-") + (c.at("serving").as_bool() ? "S" : "-") +
                  (c.at("terminating").as_bool() ? "T" : "-"));
  }
  return out;
}

TEST(EndpointSlices, ConditionsFollowReadinessAndDeletion) {
  const std::vector<bj::object> pods = {
      pod("a", "10.200.3.5", 8080, true),
      pod("b", "10.200.3.6", 8080, false),
      pod("c", "10.200.3.7", 8080, true, /*deleting=*/true),
      pod("d", "", 8080, true),                                    // no IP yet
      pod("e", "10.200.3.8", 8080, false, false, "Succeeded"),     // terminal
      pod("f", "10.200.3.9", 8080, true, false, "Running", "db"),  // not selected
  };
  const auto slices = desired_endpoint_slices(service(), ptrs(pods));
  ASSERT_EQ(slices.size(), 1u);
  const bj::object& s = slices[0];
  EXPECT_EQ(endpoint_lines(s),
            (std::vector<std::string>{"10.200.3.5 RS-", "10.200.3.6 ---", "10.200.3.7 -ST"}));
  EXPECT_EQ(bj::serialize(s.at("ports")), R"([{"name":"http","port":8080,"protocol":"TCP"}])");
  EXPECT_EQ(s.at("addressType"), "IPv4");
  const bj::object& meta = s.at("metadata").as_object();
  EXPECT_EQ(meta.at("labels").at("kubernetes.io/service-name"), "web");
  EXPECT_EQ(meta.at("labels").at("endpointslice.kubernetes.io/managed-by"),
            "endpointslice-controller.k8s.io");
  EXPECT_EQ(meta.at("labels").at("team"), "a") << "the Service's labels";
  EXPECT_EQ(meta.at("ownerReferences").at(0).at("uid"), "svc-uid");
  EXPECT_EQ(meta.at("ownerReferences").at(0).at("controller"), true);
  const bj::object& first = s.at("endpoints").at(0).as_object();
  EXPECT_EQ(first.at("nodeName"), "n1");
  EXPECT_EQ(first.at("targetRef").at("name"), "a");
  EXPECT_EQ(first.at("targetRef").at("kind"), "Pod");
  EXPECT_EQ(std::string(meta.at("name").as_string()).substr(0, 4), "web-");
}

TEST(EndpointSlices, NamedTargetPortsResolvePerPodIntoSlicesOfTheirOwn) {
  const std::vector<bj::object> pods = {pod("a", "10.200.3.5", 8080, true),
                                        pod("b", "10.200.3.6", 9090, true),
                                        pod("c", "10.200.3.7", 8080, true)};
  const auto slices = desired_endpoint_slices(service(), ptrs(pods));
  ASSERT_EQ(slices.size(), 2u);
  std::map<std::int64_t, std::vector<std::string>> by_port;
  for (const auto& s : slices) {
    by_port[s.at("ports").at(0).at("port").as_int64()] = endpoint_lines(s);
  }
  EXPECT_EQ(by_port[8080], (std::vector<std::string>{"10.200.3.5 RS-", "10.200.3.7 RS-"}));
  EXPECT_EQ(by_port[9090], (std::vector<std::string>{"10.200.3.6 RS-"}));
  EXPECT_NE(slices[0].at("metadata").at("name"), slices[1].at("metadata").at("name"));
  // The same pods give the same names: nothing is rewritten without a change.
  EXPECT_EQ(desired_endpoint_slices(service(), ptrs(pods)), slices);
}

TEST(EndpointSlices, NumberTargetPortsAndAPortThatDoesNotResolve) {
  const bj::object svc = service();
  bj::object numbered = svc;
  numbered["spec"].as_object()["ports"] = bj::parse(
      R"([{"name":"http","port":80,"protocol":"TCP","targetPort":8000},
          {"name":"admin","port":81,"protocol":"TCP","targetPort":"admin"}])");
  const std::vector<bj::object> pods = {pod("a", "10.200.3.5", 8080, true)};
  const auto slices = desired_endpoint_slices(numbered, ptrs(pods));
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_EQ(bj::serialize(slices[0].at("ports")),
            R"([{"name":"http","port":8000,"protocol":"TCP"}])")
      << "admin names no port of the pod: left out";
}

TEST(EndpointSlices, NoPodsLeaveThePlaceholderSlice) {
  const auto slices = desired_endpoint_slices(service(), {});
  ASSERT_EQ(slices.size(), 1u);
  EXPECT_TRUE(slices[0].at("endpoints").as_array().empty());
  EXPECT_FALSE(slices[0].contains("ports"));
}

TEST(EndpointSlices, PublishNotReadyAddressesMakesEveryEndpointReady) {
  const std::vector<bj::object> pods = {pod("a", "10.200.3.5", 8080, false)};
  const auto slices =
      desired_endpoint_slices(service(R"(,"publishNotReadyAddresses":true)"), ptrs(pods));
  EXPECT_EQ(endpoint_lines(slices.at(0)), (std::vector<std::string>{"10.200.3.5 R--"}));
}

TEST(EndpointSlices, HeadlessServicesLabelledAndHostnamesSet) {
  bj::object svc = service();
  svc["spec"].as_object()["clusterIP"] = "None";
  bj::object p = pod("a", "10.200.3.5", 8080, true);
  p["spec"].as_object()["hostname"] = "a-0";
  p["spec"].as_object()["subdomain"] = "web";
  const std::vector<bj::object> pods = {p};
  const auto slices = desired_endpoint_slices(svc, ptrs(pods));
  EXPECT_EQ(slices.at(0).at("metadata").at("labels").at("service.kubernetes.io/headless"), "");
  EXPECT_EQ(slices.at(0).at("endpoints").at(0).at("hostname"), "a-0");
}

TEST(Endpoints, ReadyAddressesNotReadyOnesAndNoTerminatingOnes) {
  const std::vector<bj::object> pods = {
      pod("b", "10.200.3.6", 8080, false), pod("a", "10.200.3.5", 8080, true),
      pod("c", "10.200.3.7", 8080, true, /*deleting=*/true), pod("d", "10.200.3.8", 9090, true)};
  const bj::object e = desired_endpoints(service(), ptrs(pods));
  EXPECT_EQ(e.at("metadata").at("name"), "web");
  EXPECT_EQ(e.at("metadata").at("labels").at("team"), "a");
  const bj::array& subsets = e.at("subsets").as_array();
  ASSERT_EQ(subsets.size(), 2u);
  std::map<std::int64_t, const bj::object*> by_port;
  for (const auto& s : subsets) by_port[s.at("ports").at(0).at("port").as_int64()] = &s.as_object();
  const bj::object& s8080 = *by_port.at(8080);
  ASSERT_EQ(s8080.at("addresses").as_array().size(), 1u);
  EXPECT_EQ(s8080.at("addresses").at(0).at("ip"), "10.200.3.5");
  EXPECT_EQ(s8080.at("addresses").at(0).at("targetRef").at("name"), "a");
  ASSERT_EQ(s8080.at("notReadyAddresses").as_array().size(), 1u);
  EXPECT_EQ(s8080.at("notReadyAddresses").at(0).at("ip"), "10.200.3.6");
  EXPECT_EQ(by_port.at(9090)->at("addresses").at(0).at("ip"), "10.200.3.8");
  // No pods: no subsets at all.
  EXPECT_FALSE(desired_endpoints(service(), {}).contains("subsets"));
}

}  // namespace
}  // namespace tailor::embedded
