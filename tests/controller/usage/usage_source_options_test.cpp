#include "controller/usage/usage_source_options.h"

#include <gtest/gtest.h>

namespace tailor::controller::usage {
namespace {

UsageSourceOptions parsed(const std::vector<std::string>& args) {
  UsageSourceOptions o;
  kube::config::Schema schema("tailor-controller", "test");
  add_usage_source_options(schema, o);
  schema.parse(args);
  return o;
}

TEST(UsageSourceOptions, DefaultsAreVpasRecommender) {
  UsageSourceOptions o = parsed({});
  EXPECT_EQ(o.storage, "checkpoint");
  EXPECT_EQ(o.prometheus.address, "http://prometheus.monitoring.svc");
  EXPECT_EQ(o.prometheus.history_length_s, 8 * 24 * 3600);
  EXPECT_EQ(o.prometheus.resolution_s, 3600);
  EXPECT_EQ(o.prometheus.cadvisor_job, "kubernetes-cadvisor");
  EXPECT_EQ(o.prometheus.query_timeout, std::chrono::minutes(5));
  EXPECT_EQ(o.metrics_source, "usage-stream");
  EXPECT_EQ(o.metrics_api_interval, std::chrono::minutes(1));
}

TEST(UsageSourceOptions, VpaFlagsAsVpaTakesThem) {
  UsageSourceOptions o =
      parsed({"--storage=prometheus", "--prometheus-address=http://prom:9090",
              "--history-length=14d", "--history-resolution=5m",
              "--prometheus-cadvisor-job-name=cadvisor", "--container-pod-name-label=pod_name",
              "--container-name-label=name", "--prometheus-query-timeout=30s",
              "--metrics-source=metrics-api", "--metrics-api-interval=30s",
              "--prometheus-bearer-token-file=/var/run/token", "--prometheus-insecure"});
  EXPECT_EQ(o.storage, "prometheus");
  EXPECT_EQ(o.prometheus.address, "http://prom:9090");
  EXPECT_EQ(o.prometheus.history_length_s, 14 * 24 * 3600);
  EXPECT_EQ(o.prometheus.resolution_s, 300);
  EXPECT_EQ(o.prometheus.cadvisor_job, "cadvisor");
  EXPECT_EQ(o.prometheus.pod_label, "pod_name");
  EXPECT_EQ(o.prometheus.container_label, "name");
  EXPECT_EQ(o.prometheus.namespace_label, "namespace");
  EXPECT_EQ(o.prometheus.query_timeout, std::chrono::seconds(30));
  EXPECT_EQ(o.prometheus.bearer_token_file, "/var/run/token");
  EXPECT_TRUE(o.prometheus.insecure_skip_verify);
  EXPECT_EQ(o.metrics_source, "metrics-api");
  EXPECT_EQ(o.metrics_api_interval, std::chrono::seconds(30));
}

TEST(UsageSourceOptions, BadValuesAreRefusedWithTheReason) {
  struct Case {
    std::string arg, reason;
  } cases[] = {
      {"--storage=etcd", "must be one of checkpoint, prometheus"},
      {"--metrics-source=heapster", "must be one of usage-stream, metrics-api"},
      {"--history-length=1.5d", "not a valid duration string: \"1.5d\""},
      {"--history-resolution=0s", "must be a positive whole number of seconds"},
      {"--history-resolution=1500ms", "must be a positive whole number of seconds"},
  };
  for (const Case& c : cases) {
    try {
      parsed({c.arg});
      ADD_FAILURE() << c.arg << " was accepted";
    } catch (const kube::config::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace tailor::controller::usage
