// Protobuf bodies over HTTP to a live tailor-cluster: objects built with the generated
// messages are stored as their JSON; malformed bodies get a Status error and store nothing.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "envelope.h"
#include "proto/k8s/core.pb.h"
#include "tests/embedded/raw_http_fixture.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;
namespace core = ::k8s::io::api::core::v1;

constexpr const char* kConfigMaps = "/api/v1/namespaces/default/configmaps";

class HttpProtobufTest : public RawHttpClusterTest {
 protected:
  kube::http::ClientResponse post_protobuf(const std::string& target, const std::string& body) {
    return send("POST", target, "application/vnd.kubernetes.protobuf", body);
  }

  // The namespace's ConfigMaps other than kube-root-ca.crt, which the root CA publisher keeps in
  // every namespace.
  std::size_t stored_config_maps() {
    kube::http::ClientResponse r = send("GET", kConfigMaps, "", "");
    EXPECT_EQ(r.status, 200) << r.body;
    const bj::value list = bj::parse(r.body);
    std::size_t n = 0;
    for (const bj::value& item : list.at("items").as_array()) {
      n += item.at("metadata").at("name") != bj::value("kube-root-ca.crt");
    }
    return n;
  }
};

core::ConfigMap config_map(const std::string& name) {
  core::ConfigMap cm;
  cm.mutable_metadata()->set_name(name);
  (*cm.mutable_data())["k"] = "v";
  (*cm.mutable_binarydata())["b"] = std::string("\x01\x02", 2);
  return cm;
}

TEST_F(HttpProtobufTest, ConfigMapIsStoredAsItsJson) {
  kube::http::ClientResponse r =
      post_protobuf(kConfigMaps, protobuf_body("v1", "ConfigMap", config_map("cm")));
  ASSERT_EQ(r.status, 201) << r.body;
  bj::value stored = bj::parse(send("GET", std::string(kConfigMaps) + "/cm", "", "").body);
  EXPECT_EQ(stored.at("data"), bj::parse(R"({"k":"v"})"));
  EXPECT_EQ(stored.at("binaryData"), bj::parse(R"({"b":"AQI="})"));
  EXPECT_EQ(stored.at("metadata").at("namespace"), bj::value("default"));
  EXPECT_FALSE(stored.at("metadata").at("uid").as_string().empty());
}

TEST_F(HttpProtobufTest, MalformedBodiesAreRejectedAndNothingIsStored) {
  std::string good = protobuf_body("v1", "ConfigMap", config_map("cm"));
  const std::vector<std::pair<std::string, std::string>> bodies = {
      {"no magic", R"({"kind":"ConfigMap"})"},
      {"truncated", good.substr(0, good.size() - 5)},
      {"other kind", protobuf_body("v1", "Secret", core::Secret())},
      {"unknown kind", envelope("v1", "Gadget", "")},
  };
  for (const auto& [what, body] : bodies) {
    kube::http::ClientResponse r = post_protobuf(kConfigMaps, body);
    EXPECT_EQ(r.status, 400) << what << ": " << r.body;
    bj::value status = bj::parse(r.body);
    EXPECT_EQ(status.at("kind"), bj::value("Status")) << what;
    EXPECT_EQ(status.at("reason"), bj::value("BadRequest")) << what;
  }
  EXPECT_EQ(stored_config_maps(), 0u);
}

TEST_F(HttpProtobufTest, ProtobufForAResourceWithoutSchemaIsUnsupportedMediaType) {
  kube::http::ClientResponse r =
      post_protobuf("/apis/coordination.k8s.io/v1/namespaces/default/leases",
                    envelope("coordination.k8s.io/v1", "Lease", ""));
  EXPECT_EQ(r.status, 415) << r.body;
  EXPECT_EQ(bj::parse(r.body).at("reason"), bj::value("UnsupportedMediaType"));
}

constexpr const char* kReviews = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";

TEST_F(HttpProtobufTest, AccessReviewInJson) {
  kube::http::ClientResponse r =
      send("POST", kReviews, "application/json",
           R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",)"
           R"("spec":{"resourceAttributes":{"verb":"delete","resource":"nodes"}}})");
  ASSERT_EQ(r.status, 201) << r.body;
  bj::value review = bj::parse(r.body);
  EXPECT_EQ(review.at("status").at("allowed"), bj::value(true));
  EXPECT_EQ(review.at("spec").at("resourceAttributes").at("verb"), bj::value("delete"));
}

TEST_F(HttpProtobufTest, AccessReviewWithoutAttributesIsInvalid) {
  kube::http::ClientResponse r =
      send("POST", kReviews, "application/json", R"({"kind":"SelfSubjectAccessReview","spec":{}})");
  EXPECT_EQ(r.status, 422) << r.body;
  EXPECT_EQ(bj::parse(r.body).at("reason"), bj::value("Invalid"));
}

TEST_F(HttpProtobufTest, AccessReviewsCannotBeListed) {
  kube::http::ClientResponse r = send("GET", kReviews, "", "");
  EXPECT_EQ(r.status, 405) << r.body;
}

}  // namespace
}  // namespace tailor::embedded::testing
