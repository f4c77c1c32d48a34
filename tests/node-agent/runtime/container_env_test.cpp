// The API server's service variables as the kubelet sets them: from the `kubernetes` Service of
// the default namespace (its ClusterIP and port), none without it, CreateContainerConfigError when
// it cannot be read; the agent's own address only where no Service is read at all.
#include "node-agent/runtime/container_env.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace tailor::node::runtime
