// How a test reaches an in-process tailor-cluster as a client: its URL, CA and token, with no
// client-side rate limit (tests issue bursts a real client would spread out).
#pragma once

#include "embedded/server/cluster.h"
#include "kube/client/config.h"

namespace tailor::embedded::testing {

inline kube::RestConfig cluster_rest_config(const Cluster& cluster) {
  kube::RestConfig config;
  config.server = cluster.url();
  config.ca_pem = cluster.ca_pem();
  config.bearer_token = cluster.token();
  config.qps = 0;
  return config;
}

}  // namespace tailor::embedded::testing
