// Raw HTTP requests to an in-process tailor-cluster as its admin (bearer token), for the tests
// that send what a REST client would not: unknown fields, protobuf bodies, other media types.
#pragma once

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "kube/http/client.h"
#include "tests/embedded/cluster_fixture.h"

namespace tailor::embedded::testing {

// The cluster's admin client (its CA trusted), and a request sent as the admin (bearer token);
// an empty content_type sends no Content-Type header.
inline kube::http::ClientOptions admin_client_options(const Cluster& cluster) {
  return {.base_url = cluster.url(), .tls = {.ca_pem = cluster.ca_pem()}};
}

inline kube::http::ClientResponse send_as_admin(kube::http::Client& client, const Cluster& cluster,
                                                const std::string& method,
                                                const std::string& target,
                                                const std::string& content_type,
                                                const std::string& body,
                                                const std::string& accept = "application/json") {
  kube::http::ClientRequest request;
  request.method = method;
  request.target = target;
  request.headers = {{"Authorization", "Bearer " + cluster.token()}, {"Accept", accept}};
  if (!content_type.empty()) request.headers.emplace_back("Content-Type", content_type);
  request.body = body;
  return client.send(request);
}

// The message of a Status response.
inline std::string status_message(const kube::http::ClientResponse& r) {
  return std::string(boost::json::parse(r.body).at("message").as_string());
}

class RawHttpClusterTest : public ClusterTest {
 protected:
  // An empty content_type sends no Content-Type header.
  kube::http::ClientResponse send(const std::string& method, const std::string& target,
                                  const std::string& content_type, const std::string& body,
                                  const std::string& accept = "application/json") {
    if (!client_) client_ = std::make_unique<kube::http::Client>(admin_client_options(*cluster_));
    return send_as_admin(*client_, *cluster_, method, target, content_type, body, accept);
  }

  void TearDown() override {
    client_.reset();  // its connections go before the cluster does
    ClusterTest::TearDown();
  }

  std::unique_ptr<kube::http::Client> client_;
};

using ApiOnlyRawHttpTest = WithoutControlLoops<RawHttpClusterTest>;

}  // namespace tailor::embedded::testing
