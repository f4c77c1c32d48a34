// The reflection walk from Kubernetes' protobuf messages to Kubernetes' JSON, on messages built
// with the generated classes: Go's omitempty / pointer / inline rules and the apimachinery types.
#include "embedded/protobuf/message_json.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "proto/k8s/apps.pb.h"
#include "proto/k8s/core.pb.h"
#include "proto/k8s/policy.pb.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;
namespace core = ::k8s::io::api::core::v1;
namespace apps = ::k8s::io::api::apps::v1;
namespace policy = ::k8s::io::api::policy::v1;

bj::value json(std::string_view text) { return bj::parse(text); }

TEST(MessageJsonTest, PointerZeroIsShownButOmitemptyZeroIsNot) {
  apps::Deployment d;
  d.mutable_spec()->set_replicas(0);         // *int32: an explicit zero
  d.mutable_spec()->set_minreadyseconds(0);  // int32 omitempty
  d.mutable_spec()->set_paused(false);       // bool omitempty
  EXPECT_EQ(bj::value(message_to_json(d)), json(R"({"spec":{"replicas":0}})"));
}

TEST(MessageJsonTest, UnsetPointerIsOmitted) {
  apps::Deployment d;
  d.mutable_spec()->set_minreadyseconds(5);
  EXPECT_EQ(bj::value(message_to_json(d)), json(R"({"spec":{"minReadySeconds":5}})"));
}

TEST(MessageJsonTest, FieldsWithoutOmitemptyAreShownWhenEmpty) {
  core::Container c;
  c.set_image("busybox");
  c.add_ports()->set_name("http");
  EXPECT_EQ(bj::value(message_to_json(c)),
            json(R"({"name":"","image":"busybox","ports":[{"name":"http","containerPort":0}]})"));
}

TEST(MessageJsonTest, EmptyStructsAreShownEmptyListsAndMapsAreNot) {
  core::Container c;
  c.set_name("app");
  c.mutable_resources();
  c.mutable_resources()->mutable_limits();  // an empty map stays absent
  EXPECT_EQ(bj::value(message_to_json(c)), json(R"({"name":"app","resources":{}})"));
}

TEST(MessageJsonTest, QuantitiesAreCanonicalStrings) {
  core::ResourceRequirements r;
  (*r.mutable_limits())["memory"].set_string("1Gi");
  (*r.mutable_limits())["cpu"].set_string("1000m");
  (*r.mutable_requests())["cpu"].set_string("250m");
  EXPECT_EQ(bj::value(message_to_json(r)),
            json(R"({"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"250m"}})"));
}

TEST(MessageJsonTest, MapKeysAreSortedAsGoWritesThem) {
  core::ConfigMap cm;
  (*cm.mutable_data())["zeta"] = "1";
  (*cm.mutable_data())["alpha"] = "2";
  (*cm.mutable_data())["mid"] = "3";
  std::string text = bj::serialize(message_to_json(cm));
  EXPECT_EQ(text, R"({"data":{"alpha":"2","mid":"3","zeta":"1"}})");
}

TEST(MessageJsonTest, BytesAreBase64) {
  core::Secret s;
  (*s.mutable_data())["key"] = std::string("\x00\xff\x10", 3);
  (*s.mutable_stringdata())["plain"] = "text";
  s.set_type("Opaque");
  EXPECT_EQ(bj::value(message_to_json(s)),
            json(R"({"data":{"key":"AP8Q"},"type":"Opaque","stringData":{"plain":"text"}})"));
}

TEST(MessageJsonTest, TimesAreRfc3339AndZeroTimesNull) {
  core::PodStatus st;
  st.mutable_starttime()->set_seconds(1700000000);
  st.mutable_starttime()->set_nanos(999);  // metav1.Time keeps whole seconds
  core::PodCondition* zero = st.add_conditions();
  zero->set_type("Ready");
  zero->set_status("True");
  zero->mutable_lasttransitiontime();  // empty: Go's zero time
  core::PodCondition* go_zero = st.add_conditions();
  go_zero->set_type("Initialized");
  go_zero->set_status("True");
  go_zero->mutable_lasttransitiontime()->set_seconds(-62135596800);
  EXPECT_EQ(bj::value(message_to_json(st)),
            json(R"({"conditions":[{"type":"Ready","status":"True","lastTransitionTime":null},)"
                 R"({"type":"Initialized","status":"True","lastTransitionTime":null}],)"
                 R"("startTime":"2023-11-14T22:13:20Z"})"));
}

TEST(MessageJsonTest, IntOrStringIsANumberOrAString) {
  core::ServicePort numbered;
  numbered.set_port(80);
  numbered.mutable_targetport()->set_type(0);
  numbered.mutable_targetport()->set_intval(8080);
  EXPECT_EQ(bj::value(message_to_json(numbered)), json(R"({"port":80,"targetPort":8080})"));
  core::ServicePort named;
  named.set_port(80);
  named.mutable_targetport()->set_type(1);
  named.mutable_targetport()->set_strval("http");
  EXPECT_EQ(bj::value(message_to_json(named)), json(R"({"port":80,"targetPort":"http"})"));
}

TEST(MessageJsonTest, EmbeddedStructsAreInlined) {
  core::EnvVar env;
  env.set_name("PASSWORD");
  core::SecretKeySelector* ref = env.mutable_valuefrom()->mutable_secretkeyref();
  ref->mutable_localobjectreference()->set_name("db");
  ref->set_key("password");
  ref->set_optional(false);
  EXPECT_EQ(bj::value(message_to_json(env)),
            json(R"({"name":"PASSWORD","valueFrom":{"secretKeyRef":)"
                 R"({"name":"db","key":"password","optional":false}}})"));
}

TEST(MessageJsonTest, ProbesAndVolumesInlineTheirHandlerAndSource) {
  core::PodSpec spec;
  core::Volume* v = spec.add_volumes();
  v->set_name("data");
  v->mutable_volumesource()->mutable_emptydir()->mutable_sizelimit()->set_string("1Gi");
  core::Container* c = spec.add_containers();
  c->set_name("app");
  core::Probe* p = c->mutable_livenessprobe();
  p->mutable_handler()->mutable_httpget()->set_path("/healthz");
  p->mutable_handler()->mutable_httpget()->mutable_port()->set_intval(8080);
  p->set_periodseconds(5);
  EXPECT_EQ(bj::value(message_to_json(spec)),
            json(R"({"volumes":[{"name":"data","emptyDir":{"sizeLimit":"1Gi"}}],)"
                 R"("containers":[{"name":"app","livenessProbe":{"httpGet":)"
                 R"({"path":"/healthz","port":8080},"periodSeconds":5}}]})"));
}

TEST(MessageJsonTest, MapsOfTimes) {
  policy::PodDisruptionBudgetStatus st;
  (*st.mutable_disruptedpods())["web-1"].set_seconds(0);
  EXPECT_EQ(bj::value(message_to_json(st)),
            json(R"({"disruptedPods":{"web-1":"1970-01-01T00:00:00Z"},"disruptionsAllowed":0,)"
                 R"("currentHealthy":0,"desiredHealthy":0,"expectedPods":0})"));
}

TEST(MessageJsonTest, UnknownFieldWithAValueIsRejectedWithItsPath) {
  core::PodSpec spec;
  core::Container* c = spec.add_containers();
  c->set_name("app");
  c->GetReflection()->MutableUnknownFields(c)->AddVarint(99, 1);
  try {
    message_to_json(spec);
    FAIL() << "an unknown field with a value must not be dropped";
  } catch (const ProtobufContentError& e) {
    EXPECT_STREQ(e.what(),
                 "field 99 of k8s.io.api.core.v1.Container at containers[0] is not supported "
                 "by this server");
  }
}

TEST(MessageJsonTest, UnknownFieldsWithZeroValuesAreWhatGoWritesForUnsetFields) {
  core::Container c;
  c.set_name("app");
  c.GetReflection()->MutableUnknownFields(&c)->AddVarint(98, 0);
  c.GetReflection()->MutableUnknownFields(&c)->AddLengthDelimited(99, "");
  EXPECT_EQ(bj::value(message_to_json(c)), json(R"({"name":"app"})"));
}

TEST(MessageJsonTest, InvalidQuantityIsRejectedWithItsPath) {
  core::ResourceRequirements r;
  (*r.mutable_limits())["cpu"].set_string("lots");
  try {
    message_to_json(r);
    FAIL() << "an invalid quantity must be rejected";
  } catch (const ProtobufContentError& e) {
    EXPECT_TRUE(std::string(e.what()).starts_with("invalid quantity \"lots\" at limits[cpu]: "))
        << e.what();
  }
}

TEST(MessageJsonTest, IntOrStringOfUnknownTypeIsRejected) {
  core::ServicePort p;
  p.mutable_targetport()->set_type(7);
  EXPECT_THROW(message_to_json(p), ProtobufContentError);
}

}  // namespace
}  // namespace tailor::embedded
