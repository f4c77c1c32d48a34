// ValidatePodCreate's container rules as a table: a pod as a client sends it, and kube-apiserver's
// answer (status code and message, which names every field error in order), or the quantities it
// stores when the pod is valid.
#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/api/rest.h"
#include "embedded/api/validation.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded {
namespace {

namespace bj = boost::json;

const ResourceInfo& pods() { return *find_resource("", "v1", "pods"); }

// A pod named "web" with the given spec.containers array.
bj::object pod(const std::string& containers) {
  return bj::parse(R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},
                       "spec":{"containers":)" +
                   containers + "}}")
      .as_object();
}

// One container "app" (image nginx) with `fields` added (`"resources":{...}` and so on).
std::string app(const std::string& fields) {
  return R"([{"name":"app","image":"nginx")" + (fields.empty() ? "" : "," + fields) + "}]";
}

// The create as the API runs it: defaults, then validation. "" when accepted.
std::pair<int, std::string> create(bj::object& object) {
  try {
    apply_create_defaults(pods(), object);
    validate_create(pods(), object);
    return {0, ""};
  } catch (const StatusError& e) {
    return {e.code(), e.message()};
  }
}

struct Refused {
  const char* name;
  std::string containers;
  int code;
  std::string message;
};

const std::string kInvalid = "Pod \"web\" is invalid: ";
const std::string kQuantityFormat =
    "Pod in version \"v1\" cannot be handled as a Pod: quantities must match the regular "
    "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const std::string kQualified =
    "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end "
    "with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const std::string kLabel =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "
    "must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex "
    "used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const std::string kRes = "spec.containers[0].resources.";

const Refused kRefused[] = {
    {"NegativeRequest", app(R"("resources":{"requests":{"cpu":"-1"}})"), 422,
     kInvalid + kRes + "requests[cpu]: Invalid value: \"-1\": must be greater than or equal to 0"},
    // The limit is defaulted into the request first, so both are negative.
    {"NegativeLimit", app(R"("resources":{"limits":{"memory":"-5"}})"), 422,
     kInvalid + "[" + kRes +
         "limits[memory]: Invalid value: \"-5\": must be greater than or equal to 0, " + kRes +
         "requests[memory]: Invalid value: \"-5\": must be greater than or equal to 0]"},
    {"RequestAboveLimit", app(R"("resources":{"requests":{"cpu":"2"},"limits":{"cpu":"1"}})"), 422,
     kInvalid + kRes +
         "requests: Invalid value: \"2\": must be less than or equal to cpu limit of 1"},
    {"BadResourceName", app(R"("resources":{"requests":{"BAD RESOURCE":"1"}})"), 422,
     kInvalid + "[" + kRes +
         "requests[BAD RESOURCE]: Invalid value: \"BAD RESOURCE\": " + kQualified + ", " + kRes +
         "requests[BAD RESOURCE]: Invalid value: \"BAD RESOURCE\": must be a standard " +
         "resource for containers]"},
    {"UnknownResource", app(R"("resources":{"requests":{"gpu":"1"}})"), 422,
     kInvalid + "[" + kRes +
         "requests[gpu]: Invalid value: \"gpu\": must be a standard resource type " +
         "or fully qualified, " + kRes +
         "requests[gpu]: Invalid value: \"gpu\": must be a standard " + "resource for containers]"},
    {"FractionalExtendedResource", app(R"("resources":{"limits":{"example.com/gpu":"1.5"}})"), 422,
     kInvalid + "[" + kRes +
         "limits[example.com/gpu]: Invalid value: \"1500m\": must be an integer, " + kRes +
         "requests[example.com/gpu]: Invalid value: \"1500m\": must be an integer]"},
    {"ExtendedRequestWithoutLimit", app(R"("resources":{"requests":{"example.com/gpu":"1"}})"), 422,
     kInvalid + kRes +
         "limits: Required value: Limit must be set for non overcommitable resources"},
    {"NotAQuantity", app(R"("resources":{"requests":{"cpu":"abc"}})"), 400, kQuantityFormat},
    {"InnerSpace", app(R"("resources":{"limits":{"memory":"1 Gi"}})"), 400, kQuantityFormat},
    {"UnknownSuffix", app(R"("resources":{"limits":{"memory":"1kk"}})"), 400,
     "Pod in version \"v1\" cannot be handled as a Pod: unable to parse quantity's suffix"},
    {"NoContainerName", R"([{"image":"nginx"}])", 422,
     kInvalid + "spec.containers[0].name: Required value"},
    {"ContainerNameNotALabel", R"([{"name":"Web_1","image":"nginx"}])", 422,
     kInvalid + "spec.containers[0].name: Invalid value: \"Web_1\": " + kLabel},
    {"DuplicateContainerName",
     R"([{"name":"app","image":"nginx"},{"name":"app","image":"busybox"}])", 422,
     kInvalid + "spec.containers[1].name: Duplicate value: \"app\""},
    {"NoImage", R"([{"name":"app"}])", 422, kInvalid + "spec.containers[0].image: Required value"},
    {"PortOutOfRange", app(R"("ports":[{"containerPort":70000,"hostPort":-1}])"), 422,
     kInvalid + "[spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be " +
         "between 1 and 65535, inclusive, spec.containers[0].ports[0].hostPort: Invalid value: "
         "-1: " +
         "must be between 1 and 65535, inclusive]"},
    {"PortMissing", app(R"("ports":[{"name":"http"}])"), 422,
     kInvalid + "spec.containers[0].ports[0].containerPort: Required value"},
    {"PortProtocol", app(R"("ports":[{"containerPort":80,"protocol":"HTTP"}])"), 422,
     kInvalid + "spec.containers[0].ports[0].protocol: Unsupported value: \"HTTP\": supported " +
         "values: \"SCTP\", \"TCP\", \"UDP\""},
    {"DuplicatePortName",
     app(R"("ports":[{"name":"web","containerPort":80},{"name":"web","containerPort":81}])"), 422,
     kInvalid + "spec.containers[0].ports[1].name: Duplicate value: \"web\""},
    {"ProbeWithoutHandler", app(R"("livenessProbe":{"periodSeconds":5})"), 422,
     kInvalid + "spec.containers[0].livenessProbe: Required value: must specify a handler type"},
    {"ProbeWithTwoHandlers",
     app(R"("readinessProbe":{"exec":{"command":["true"]},"tcpSocket":{"port":80}})"), 422,
     kInvalid + "spec.containers[0].readinessProbe.tcpSocket: Forbidden: may not specify more " +
         "than 1 handler type"},
    {"LivenessSuccessThreshold",
     app(R"("livenessProbe":{"tcpSocket":{"port":80},"successThreshold":2})"), 422,
     kInvalid + "spec.containers[0].livenessProbe.successThreshold: Invalid value: 2: must be 1"},
    {"InitContainerSharesAName",
     R"([{"name":"app","image":"nginx"}],"initContainers":[{"name":"app","image":"busybox"}])", 422,
     kInvalid + "spec.initContainers[0].name: Duplicate value: \"app\""},
    // validateDNSPolicy, validatePodDNSConfig.
    {"DnsPolicyUnknown", app("") + R"(,"dnsPolicy":"ClusterOnly")", 422,
     kInvalid + "spec.dnsPolicy: Unsupported value: \"ClusterOnly\": supported values: " +
         "\"ClusterFirst\", \"ClusterFirstWithHostNet\", \"Default\", \"None\""},
    {"DnsNoneWithoutConfig", app("") + R"(,"dnsPolicy":"None")", 422,
     kInvalid +
         "spec.dnsConfig: Required value: must provide `dnsConfig` when `dnsPolicy` is None"},
    {"DnsNoneWithoutNameservers",
     app("") + R"(,"dnsPolicy":"None","dnsConfig":{"searches":["a.example"]})", 422,
     kInvalid + "spec.dnsConfig.nameservers: Required value: must provide at least one DNS " +
         "nameserver when `dnsPolicy` is None"},
    {"DnsNameserverNotAnIp", app("") + R"(,"dnsConfig":{"nameservers":["dns.example"]})", 422,
     kInvalid + "spec.dnsConfig.nameservers[0]: Invalid value: \"dns.example\": must be a valid " +
         "IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"},
    {"DnsFourNameservers",
     app("") + R"(,"dnsConfig":{"nameservers":["192.0.2.1","192.0.2.2","192.0.2.3","::1"]})", 422,
     kInvalid + "spec.dnsConfig.nameservers: Invalid value: []string{\"192.0.2.1\", " +
         "\"192.0.2.2\", \"192.0.2.3\", \"::1\"}: must not have more than 3 nameservers"},
    {"DnsSearchNotASubdomain",
     app("") + R"(,"dnsConfig":{"searches":["Corp.Example.","_srv.ok.example","."]})", 422,
     kInvalid + "spec.dnsConfig.searches[0]: Invalid value: \"Corp.Example\": a lowercase RFC " +
         "1123 subdomain must consist of lower case alphanumeric characters, '_', '-' or '.', " +
         "and must start and end with an alphanumeric character (e.g. 'example.com', regex " +
         "used for validation is '_?[a-z0-9]([-_a-z0-9]*[a-z0-9])?(\\._?[a-z0-9]([-_a-z0-9]*" +
         "[a-z0-9])?)*')"},
    {"DnsOptionWithoutName", app("") + R"(,"dnsConfig":{"options":[{"value":"2"}]})", 422,
     kInvalid + "spec.dnsConfig.options[0]: Required value: Option.Name must not be empty"},
};

class RefusedPod : public ::testing::TestWithParam<Refused> {};

TEST_P(RefusedPod, GetsKubeApiserversAnswer) {
  bj::object object = pod(GetParam().containers);
  auto [code, message] = create(object);
  EXPECT_EQ(code, GetParam().code);
  EXPECT_EQ(message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(Table, RefusedPod, ::testing::ValuesIn(kRefused),
                         [](const auto& info) { return std::string(info.param.name); });

// Quantity.UnmarshalJSON trims surrounding whitespace and accepts numbers; the stored pod holds
// the canonical strings, so it can be resized like any other.
TEST(AcceptedPod, QuantitiesAreStoredCanonical) {
  bj::object object = pod(app(
      R"("resources":{"requests":{"cpu":" 1","memory":0.5},"limits":{"cpu":"1500m ","memory":"1Gi "}})"));
  ASSERT_EQ(create(object), std::make_pair(0, std::string()));
  const bj::value& resources = object.at("spec").at("containers").at(0).at("resources");
  EXPECT_EQ(bj::serialize(resources),
            R"({"requests":{"cpu":"1","memory":"500m"},"limits":{"cpu":"1500m","memory":"1Gi"}})");
}

TEST(AcceptedPod, PortsDefaultToTcpAndValidProbesPass) {
  bj::object object = pod(app(R"("ports":[{"name":"http","containerPort":8080}],
      "livenessProbe":{"httpGet":{"path":"/","port":8080}},
      "readinessProbe":{"exec":{"command":["true"]},"successThreshold":3},
      "resources":{"requests":{"cpu":"100m","example.com/gpu":"2"},"limits":{"example.com/gpu":"2"}})"));
  ASSERT_EQ(create(object), std::make_pair(0, std::string()));
  EXPECT_EQ(object.at("spec").at("containers").at(0).at("ports").at(0).at("protocol"), "TCP");
}

TEST(AcceptedPod, DnsConfigWithinTheLimitsPasses) {
  bj::object object = pod(app("") + R"(,"dnsPolicy":"None","dnsConfig":{
      "nameservers":["192.0.2.1","2001:db8::1"],"searches":["ns.svc.cluster.local.","_sip.example","."],
      "options":[{"name":"ndots","value":"2"},{"name":"edns0"}]})");
  EXPECT_EQ(create(object), std::make_pair(0, std::string()));
  bj::object defaulted = pod(app(""));
  ASSERT_EQ(create(defaulted), std::make_pair(0, std::string()));
  EXPECT_EQ(defaulted.at("spec").at("dnsPolicy"), "ClusterFirst");
}

}  // namespace
}  // namespace tailor::embedded
