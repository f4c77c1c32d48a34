// The service variables as the kubelet sets them: the API server's from the `kubernetes` Service of
// the default namespace (its ClusterIP and port), none without it, CreateContainerConfigError when
// it cannot be read; the agent's own address only where no Service is read at all. With
// enableServiceLinks those of every Service of the pod's namespace (envvars.FromServices), the
// pod's own env winning over them.
#include "node-agent/runtime/container_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <stdexcept>

namespace tailor::node::runtime {
namespace {

std::map<std::string, std::string> as_map(const Environment& env) {
  return {env.begin(), env.end()};
}

TEST(ServiceEnvironment, TheKubernetesServicesClusterIpAndPortAsTheKubeletSetsThem) {
  PodRuntimeOptions options{.api_host = "10.200.3.1", .api_port = 41234};
  options.kubernetes_service = [] { return ServiceAddress{.host = "10.201.3.1", .port = 443}; };
  EXPECT_EQ(as_map(service_environment(options)),
            (std::map<std::string, std::string>{{"KUBERNETES_SERVICE_HOST", "10.201.3.1"},
                                                {"KUBERNETES_SERVICE_PORT", "443"},
                                                {"KUBERNETES_SERVICE_PORT_HTTPS", "443"},
                                                {"KUBERNETES_PORT", "tcp://10.201.3.1:443"},
                                                {"KUBERNETES_PORT_443_TCP", "tcp://10.201.3.1:443"},
                                                {"KUBERNETES_PORT_443_TCP_PROTO", "tcp"},
                                                {"KUBERNETES_PORT_443_TCP_PORT", "443"},
                                                {"KUBERNETES_PORT_443_TCP_ADDR", "10.201.3.1"}}));
}

TEST(ServiceEnvironment, NoServiceNoVariablesAnUnreadableOneIsAConfigError) {
  PodRuntimeOptions options{.api_host = "10.200.3.1", .api_port = 41234};
  options.kubernetes_service = [] { return std::optional<ServiceAddress>(); };
  EXPECT_TRUE(service_environment(options).empty());
  options.kubernetes_service = []() -> std::optional<ServiceAddress> {
    throw std::runtime_error("connection refused");
  };
  try {
    service_environment(options);
    FAIL() << "no error";
  } catch (const ContainerConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "services have not yet been read at least once, cannot construct envvars: "
                 "connection refused");
  }
}

TEST(ServiceEnvironment, WithoutAServiceReaderTheAgentsOwnAddress) {
  const PodRuntimeOptions options{.api_host = "127.0.0.1", .api_port = 6443};
  EXPECT_EQ(as_map(service_environment(options)).at("KUBERNETES_SERVICE_HOST"), "127.0.0.1");
  EXPECT_TRUE(service_environment(PodRuntimeOptions{}).empty());
}

using Variables = std::vector<std::pair<std::string, std::string>>;

struct LinkCase {
  ServiceLink service;
  Variables variables;  // in order
};

TEST(ServiceLinkVariables, NamedAsEnvvarsFromServices) {
  const LinkCase cases[] = {
      {{.name = "web", .cluster_ip = "10.0.0.10", .ports = {{.name = "", .port = 80}}},
       {{"WEB_SERVICE_HOST", "10.0.0.10"},
        {"WEB_SERVICE_PORT", "80"},
        {"WEB_PORT", "tcp://10.0.0.10:80"},
        {"WEB_PORT_80_TCP", "tcp://10.0.0.10:80"},
        {"WEB_PORT_80_TCP_PROTO", "tcp"},
        {"WEB_PORT_80_TCP_PORT", "80"},
        {"WEB_PORT_80_TCP_ADDR", "10.0.0.10"}}},
      // '-' as '_', upper case; every named port, the first one the plain _PORT; each protocol.
      {{.name = "tailor-controller",
        .cluster_ip = "10.0.0.20",
        .ports = {{.name = "webhook", .port = 443, .protocol = "TCP"},
                  {.name = "dns-udp", .port = 53, .protocol = "UDP"}}},
       {{"TAILOR_CONTROLLER_SERVICE_HOST", "10.0.0.20"},
        {"TAILOR_CONTROLLER_SERVICE_PORT", "443"},
        {"TAILOR_CONTROLLER_SERVICE_PORT_WEBHOOK", "443"},
        {"TAILOR_CONTROLLER_SERVICE_PORT_DNS_UDP", "53"},
        {"TAILOR_CONTROLLER_PORT", "tcp://10.0.0.20:443"},
        {"TAILOR_CONTROLLER_PORT_443_TCP", "tcp://10.0.0.20:443"},
        {"TAILOR_CONTROLLER_PORT_443_TCP_PROTO", "tcp"},
        {"TAILOR_CONTROLLER_PORT_443_TCP_PORT", "443"},
        {"TAILOR_CONTROLLER_PORT_443_TCP_ADDR", "10.0.0.20"},
        {"TAILOR_CONTROLLER_PORT_53_UDP", "udp://10.0.0.20:53"},
        {"TAILOR_CONTROLLER_PORT_53_UDP_PROTO", "udp"},
        {"TAILOR_CONTROLLER_PORT_53_UDP_PORT", "53"},
        {"TAILOR_CONTROLLER_PORT_53_UDP_ADDR", "10.0.0.20"}}},
      // An IPv6 ClusterIP in brackets in the URLs.
      {{.name = "v6", .cluster_ip = "fd00::a", .ports = {{.port = 8080, .protocol = "SCTP"}}},
       {{"V6_SERVICE_HOST", "fd00::a"},
        {"V6_SERVICE_PORT", "8080"},
        {"V6_PORT", "sctp://[fd00::a]:8080"},
        {"V6_PORT_8080_SCTP", "sctp://[fd00::a]:8080"},
        {"V6_PORT_8080_SCTP_PROTO", "sctp"},
        {"V6_PORT_8080_SCTP_PORT", "8080"},
        {"V6_PORT_8080_SCTP_ADDR", "fd00::a"}}},
      // Headless and unallocated Services give nothing.
      {{.name = "headless", .cluster_ip = "None", .ports = {{.port = 80}}}, {}},
      {{.name = "external", .cluster_ip = "", .ports = {{.port = 80}}}, {}},
  };
  for (const LinkCase& c : cases) {
    EXPECT_EQ(service_link_variables({c.service}), c.variables) << c.service.name;
  }
}

ServiceLink service(const std::string& name, const std::string& ip) {
  return {.name = name, .cluster_ip = ip, .ports = {{.port = 80}}};
}

std::vector<std::string> names(const std::vector<ServiceLink>& services) {
  std::vector<std::string> out;
  for (const ServiceLink& s : services) out.push_back(s.name + "=" + s.cluster_ip);
  return out;
}

TEST(PodServiceLinks, TheMasterServiceAlwaysTheNamespacesOnlyWithLinks) {
  const ServiceLink master = service("kubernetes", "10.0.0.1");
  const std::vector<ServiceLink> local = {service("web", "10.0.0.3"), service("db", "10.0.0.2")};
  EXPECT_EQ(names(pod_service_links(master, local, true)),
            (std::vector<std::string>{"db=10.0.0.2", "kubernetes=10.0.0.1", "web=10.0.0.3"}));
  EXPECT_EQ(names(pod_service_links(master, local, false)),
            (std::vector<std::string>{"kubernetes=10.0.0.1"}));
  EXPECT_EQ(names(pod_service_links(std::nullopt, local, false)), std::vector<std::string>{});
  // A `kubernetes` Service of the pod's own namespace takes the master's place.
  EXPECT_EQ(names(pod_service_links(master, {service("kubernetes", "10.0.0.9")}, true)),
            (std::vector<std::string>{"kubernetes=10.0.0.9"}));
}

RuntimePod pod_in(const std::string& ns, bool links) {
  RuntimePod pod;
  pod.pod.metadata.name = "p";
  pod.pod.metadata.namespace_ = ns;
  pod.run.enable_service_links = links;
  return pod;
}

TEST(ContainerEnvironment, TheNamespacesServicesUnlessLinksAreOffThePodsEnvWins) {
  PodRuntimeOptions options;
  options.kubernetes_service = [] { return ServiceAddress{.host = "10.0.0.1", .port = 443}; };
  std::vector<std::string> asked;
  options.namespace_services = [&asked](const std::string& ns) {
    asked.push_back(ns);
    return std::vector<ServiceLink>{
        {.name = "web", .cluster_ip = "10.0.0.10", .ports = {{.name = "http", .port = 80}}}};
  };
  ContainerRunSpec run{.name = "c"};
  run.env = {{.name = "WEB_SERVICE_PORT", .value = "8080"},
             {.name = "URL", .value = "http://$(WEB_SERVICE_HOST):$(WEB_SERVICE_PORT)"}};
  const auto env = as_map(container_environment(pod_in("team", true), run, options, "10.1.0.5"));
  EXPECT_EQ(asked, std::vector<std::string>{"team"});
  EXPECT_EQ(env.at("WEB_SERVICE_HOST"), "10.0.0.10");
  EXPECT_EQ(env.at("WEB_SERVICE_PORT_HTTP"), "80");
  EXPECT_EQ(env.at("WEB_PORT_80_TCP_ADDR"), "10.0.0.10");
  EXPECT_EQ(env.at("KUBERNETES_SERVICE_HOST"), "10.0.0.1");
  // The pod's value, once; service variables expand in its own.
  EXPECT_EQ(env.at("WEB_SERVICE_PORT"), "8080");
  EXPECT_EQ(env.at("URL"), "http://10.0.0.10:8080");
  const Environment list = container_environment(pod_in("team", true), run, options, "10.1.0.5");
  EXPECT_EQ(std::count_if(list.begin(), list.end(),
                          [](const auto& v) { return v.first == "WEB_SERVICE_PORT"; }),
            1);

  // enableServiceLinks: false: the `kubernetes` variables only; the namespace is not read.
  asked.clear();
  const auto off = as_map(container_environment(pod_in("team", false), run, options, "10.1.0.5"));
  EXPECT_TRUE(asked.empty());
  EXPECT_EQ(off.count("WEB_SERVICE_HOST"), 0u);
  EXPECT_EQ(off.at("KUBERNETES_SERVICE_HOST"), "10.0.0.1");
  EXPECT_EQ(off.at("URL"), "http://$(WEB_SERVICE_HOST):8080");

  // Services that cannot be listed: the kubelet's CreateContainerConfigError.
  options.namespace_services = [](const std::string&) -> std::vector<ServiceLink> {
    throw std::runtime_error("forbidden");
  };
  EXPECT_THROW(container_environment(pod_in("team", true), run, options, "10.1.0.5"),
               ContainerConfigError);
}

}  // namespace
}  // namespace tailor::node::runtime
