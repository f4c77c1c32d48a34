// Protobuf request bodies to JSON objects: real kubectl bodies decode to exactly the JSON
// kubectl itself prints for them; broken envelopes get kube-apiserver's decode errors.
#include "embedded/protobuf/body_decoder.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "captured_bodies.h"
#include "embedded/api/resources.h"
#include "envelope.h"
#include "proto/k8s/apps.pb.h"
#include "proto/k8s/batch.pb.h"
#include "proto/k8s/core.pb.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;
namespace core = ::k8s::io::api::core::v1;
namespace apps = ::k8s::io::api::apps::v1;
namespace batch = ::k8s::io::api::batch::v1;

const ResourceInfo& resource(const std::string& group, const std::string& name) {
  const ResourceInfo* r = find_resource(group, "v1", name);
  if (!r) throw std::logic_error("no resource " + name);
  return *r;
}

struct Captured {
  const char* name;
  std::string group, resource;
  std::string_view body, json;
};

class CapturedBodyTest : public ::testing::TestWithParam<Captured> {};

TEST_P(CapturedBodyTest, DecodesToTheJsonKubectlPrints) {
  const Captured& c = GetParam();
  bj::object decoded = decode_protobuf_body(resource(c.group, c.resource), c.body);
  EXPECT_EQ(bj::value(decoded), bj::parse(c.json)) << bj::serialize(decoded);
}

INSTANTIATE_TEST_SUITE_P(
    Kubectl132, CapturedBodyTest,
    ::testing::Values(Captured{"Deployment", "apps", "deployments", kDeploymentBody,
                               kDeploymentJson},
                      Captured{"Secret", "", "secrets", kSecretBody, kSecretJson},
                      Captured{"Service", "", "services", kServiceBody, kServiceJson},
                      Captured{"SelfSubjectAccessReview", "authorization.k8s.io",
                               "selfsubjectaccessreviews", kAccessReviewBody, kAccessReviewJson}),
    [](const auto& info) { return std::string(info.param.name); });

TEST(BodyDecoderTest, JobFromGeneratedMessages) {
  batch::Job job;
  job.mutable_metadata()->set_name("pi");
  job.mutable_metadata()->mutable_creationtimestamp();
  batch::JobSpec* spec = job.mutable_spec();
  spec->set_backofflimit(0);
  spec->set_completions(3);
  core::PodSpec* pod = spec->mutable_template_()->mutable_spec();
  pod->set_restartpolicy("Never");
  core::Container* c = pod->add_containers();
  c->set_name("pi");
  c->set_image("perl:5.34");
  c->add_command("perl");
  c->add_args("-e");
  c->add_args("print 1");
  core::EnvVar* env = c->add_env();
  env->set_name("MODE");
  env->set_value("fast");
  (*c->mutable_resources()->mutable_limits())["memory"].set_string("64Mi");
  c->mutable_resources()->add_claims()->set_name("gpu");
  bj::object decoded =
      decode_protobuf_body(resource("batch", "jobs"), protobuf_body("batch/v1", "Job", job));
  EXPECT_EQ(bj::value(decoded),
            bj::parse(R"({"kind":"Job","apiVersion":"batch/v1",)"
                      R"("metadata":{"name":"pi","creationTimestamp":null},)"
                      R"("spec":{"completions":3,"backoffLimit":0,"template":{"spec":{)"
                      R"("containers":[{"name":"pi","image":"perl:5.34","command":["perl"],)"
                      R"("args":["-e","print 1"],"env":[{"name":"MODE","value":"fast"}],)"
                      R"("resources":{"limits":{"memory":"64Mi"},"claims":[{"name":"gpu"}]}}],)"
                      R"("restartPolicy":"Never"}}}})"))
      << bj::serialize(decoded);
}

// A decode failure: the status code, and the message kube-apiserver would give.
struct BadBody {
  const char* name;
  std::string group, resource;
  std::string body;
  int code;
  std::string message;
};

std::string deployment_raw() {
  apps::Deployment d;
  d.mutable_metadata()->set_name("web");
  d.mutable_spec()->set_replicas(2);
  d.mutable_spec()->mutable_template_()->mutable_spec()->add_containers()->set_name("app");
  return d.SerializeAsString();
}

std::vector<BadBody> bad_bodies() {
  std::string raw = deployment_raw();
  return {
      {"NoMagic", "apps", "deployments", R"({"kind":"Deployment"})", 400,
       "the object provided is unrecognized (must be of type Deployment): provided data does not "
       "appear to be a protobuf message, expected prefix [107 56 115 0] "
       "(7b226b696e64223a224465706c6f796d656e74227d)"},
      {"Empty", "apps", "deployments", "", 400,
       "the object provided is unrecognized (must be of type Deployment): provided data does not "
       "appear to be a protobuf message, expected prefix [107 56 115 0] (<empty>)"},
      {"TruncatedEnvelope", "apps", "deployments",
       std::string(kDeploymentBody.substr(0, kDeploymentBody.size() - 40)), 400,
       "the object provided is unrecognized (must be of type Deployment): the runtime.Unknown "
       "envelope is truncated or not valid protobuf "
       "(6b3873000a150a07617070732f7631120a4465706c6f796d656e7412af01 ...)"},
      {"TruncatedObject", "apps", "deployments",
       envelope("apps/v1", "Deployment", raw.substr(0, raw.size() - 3)), 400,
       "Deployment in version \"v1\" cannot be handled as a Deployment: the protobuf encoding "
       "of the object is truncated or not valid"},
      {"MissingKind", "apps", "deployments", envelope("apps/v1", "", raw), 400,
       "the object provided is unrecognized (must be of type Deployment): Object 'Kind' is "
       "missing in the runtime.Unknown envelope "
       "(6b3873000a0b0a07617070732f7631120012160a050a03776562120d0802 ...)"},
      {"UnknownKind", "apps", "deployments", envelope("apps/v1", "Rollout", raw), 400,
       "Rollout in version \"v1\" cannot be handled as a Deployment: no kind \"Rollout\" is "
       "registered for version \"apps/v1\""},
      {"OtherKind", "", "configmaps", std::string(kSecretBody), 400,
       "the kind in the data (Secret) does not match the expected kind (ConfigMap)"},
      {"OtherGroup", "apps", "deployments", std::string(kSecretBody), 400,
       "the API version in the data (v1) does not match the expected API version (apps/v1)"},
      {"UnknownFieldWithValue", "apps", "deployments",
       envelope("apps/v1", "Deployment", raw + std::string("\xf8\x06\x01", 3)), 400,
       "Deployment in version \"v1\" cannot be handled as a Deployment: field 111 of "
       "k8s.io.api.apps.v1.Deployment is not supported by this server"},
      {"NoProtobufSchema", "coordination.k8s.io", "leases",
       envelope("coordination.k8s.io/v1", "Lease", ""), 415,
       "the body of the request was in an unknown format - accepted media types include: "
       "application/json, application/yaml (got application/vnd.kubernetes.protobuf)"},
  };
}

class BadBodyTest : public ::testing::TestWithParam<BadBody> {};

TEST_P(BadBodyTest, IsRejectedWithKubernetesMessage) {
  const BadBody& b = GetParam();
  try {
    decode_protobuf_body(resource(b.group, b.resource), b.body);
    FAIL() << "decoded a bad body";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.code(), b.code);
    EXPECT_EQ(e.reason(), b.code == 415 ? "UnsupportedMediaType" : "BadRequest");
    EXPECT_EQ(e.message(), b.message);
  }
}

INSTANTIATE_TEST_SUITE_P(Envelopes, BadBodyTest, ::testing::ValuesIn(bad_bodies()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(BodyDecoderTest, GzipContentEncodingIsRejected) {
  ::k8s::io::apimachinery::pkg::runtime::Unknown unknown;
  unknown.mutable_typemeta()->set_apiversion("v1");
  unknown.mutable_typemeta()->set_kind("Namespace");
  unknown.set_contentencoding("gzip");
  std::string body = std::string("k8s\0", 4) + unknown.SerializeAsString();
  try {
    decode_protobuf_body(resource("", "namespaces"), body);
    FAIL() << "decoded a gzip body";
  } catch (const StatusError& e) {
    EXPECT_EQ(e.message(),
              "Namespace in version \"v1\" cannot be handled as a Namespace: "
              "content encoding \"gzip\" is not supported");
  }
}

}  // namespace
}  // namespace tailor::embedded::testing
