// Raw HTTP requests to an in-process tailor-cluster as its admin (bearer token), for the tests
// that send what a REST client would not: unknown fields, protobuf bodies, other media types.
#pragma once

#include <memory>
#include <string>

#include "controller/kube/http/client.h"
#include "tests/embedded/cluster_fixture.h"

namespace tailor::kube::embedded::testing {

class RawHttpClusterTest : public ClusterTest {
 protected:
  // An empty content_type sends no Content-Type header.
  http::ClientResponse send(const std::string& method, const std::string& target,
                            const std::string& content_type, const std::string& body,
                            const std::string& accept = "application/json") {
    if (!client_) {
      client_ = std::make_unique<http::Client>(
          http::ClientOptions{.base_url = cluster_->url(), .tls = {.ca_pem = cluster_->ca_pem()}});
    }
    http::ClientRequest request;
    request.method = method;
    request.target = target;
    request.headers = {{"Authorization", "Bearer " + cluster_->token()}, {"Accept", accept}};
    if (!content_type.empty()) request.headers.emplace_back("Content-Type", content_type);
    request.body = body;
    return client_->send(request);
  }

  void TearDown() override {
    client_.reset();  // its connections go before the cluster does
    ClusterTest::TearDown();
  }

  std::unique_ptr<http::Client> client_;
};

using ApiOnlyRawHttpTest = WithoutControlLoops<RawHttpClusterTest>;

}  // namespace tailor::kube::embedded::testing
