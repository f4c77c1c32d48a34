// ClusterIP allocation as kube-apiserver's Service storage does it: the range's arithmetic, then
// the admission plugin over a real store (create, requested addresses, update, delete, restart,
// dry run), each against what kube-apiserver stores or answers.
#include "embedded/services/cluster_ips.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "embedded/api/resources.h"
#include "embedded/storage/status_error.h"

namespace tailor::embedded::testing {
namespace {

namespace bj = boost::json;

std::uint32_t ip(const char* text) { return *parse_ipv4(text); }

TEST(ServiceCidr, ParsesIpv4Addresses) {
  struct Case {
    std::string text;
    std::optional<std::uint32_t> want;
  };
  const std::vector<Case> cases = {
      {"10.0.0.1", 0x0a000001u},   {"255.255.255.255", 0xffffffffu}, {"0.0.0.0", 0u},
      {"10.0.0", std::nullopt},    {"10.0.0.256", std::nullopt},     {"10.0.0.01", std::nullopt},
      {"10.0.0.1.", std::nullopt}, {"a.b.c.d", std::nullopt},        {"fd00::1", std::nullopt},
      {"", std::nullopt}};
  for (const Case& c : cases) EXPECT_EQ(parse_ipv4(c.text), c.want) << c.text;
  EXPECT_EQ(format_ipv4(0x0a6001ffu), "10.96.1.255");
}

TEST(ServiceCidr, RangesAndTheirBands) {
  struct Case {
    std::string cidr;
    std::uint32_t size, band;
    std::string first;
  };
  // The lower band is kube-apiserver's calculateRangeOffset: min(max(16, size/16), 256).
  const std::vector<Case> cases = {{"10.0.0.0/24", 254, 16, "10.0.0.1"},
                                   {"10.201.7.0/24", 254, 16, "10.201.7.1"},
                                   {"10.0.0.0/28", 14, 0, "10.0.0.1"},
                                   {"10.0.0.0/20", 4094, 256, "10.0.0.1"},
                                   {"10.96.0.0/12", 1048574, 256, "10.96.0.1"}};
  for (const Case& c : cases) {
    const ServiceCidr r = ServiceCidr::parse(c.cidr);
    EXPECT_EQ(r.size(), c.size) << c.cidr;
    EXPECT_EQ(r.static_band(), c.band) << c.cidr;
    EXPECT_EQ(format_ipv4(r.first()), c.first) << c.cidr;
  }
  for (const char* bad : {"10.0.0.1/24", "10.0.0.0", "10.0.0.0/31", "10.0.0.0/7", "fd00::/108",
                          "10.0.0.0/24x", "10.0.0/24"}) {
    EXPECT_THROW(ServiceCidr::parse(bad), std::invalid_argument) << bad;
  }
  const ServiceCidr r = ServiceCidr::parse("10.0.0.0/24");
  EXPECT_FALSE(r.allocatable(ip("10.0.0.0")));  // network
  EXPECT_TRUE(r.allocatable(ip("10.0.0.1")));
  EXPECT_TRUE(r.allocatable(ip("10.0.0.254")));
  EXPECT_FALSE(r.allocatable(ip("10.0.0.255")));  // broadcast
  EXPECT_FALSE(r.allocatable(ip("10.0.1.1")));
  EXPECT_FALSE(r.allocatable(ip("9.255.255.255")));
}

TEST(ServiceCidr, NextFreeTakesTheUpperBandFirstThenTheLower) {
  const ServiceCidr r = ServiceCidr::parse("10.0.0.0/27");  // 30 addresses, band 16
  std::set<std::uint32_t> held;
  auto taken = [&](std::uint32_t a) { return held.count(a) > 0; };
  EXPECT_EQ(format_ipv4(*r.next_free(taken, 0)), "10.0.0.17");
  EXPECT_EQ(format_ipv4(*r.next_free(taken, 3)), "10.0.0.20");
  EXPECT_EQ(format_ipv4(*r.next_free(taken, 13)), "10.0.0.30");
  EXPECT_EQ(format_ipv4(*r.next_free(taken, 14)), "10.0.0.17");  // wraps inside the band
  held.insert(ip("10.0.0.30"));
  EXPECT_EQ(format_ipv4(*r.next_free(taken, 13)), "10.0.0.17");
  for (std::uint32_t a = ip("10.0.0.17"); a <= ip("10.0.0.30"); ++a) held.insert(a);
  EXPECT_EQ(format_ipv4(*r.next_free(taken, 5)), "10.0.0.1");  // upper band full
  for (std::uint32_t a = ip("10.0.0.1"); a <= ip("10.0.0.16"); ++a) held.insert(a);
  EXPECT_EQ(r.next_free(taken, 5), std::nullopt);
}

const ResourceInfo& services() { return *find_resource("", "v1", "services"); }

bj::object service(const std::string& name, const std::string& spec) {
  return bj::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":")" + name +
                   R"(","namespace":"default"},"spec":)" + spec + "}")
      .as_object();
}

class ClusterIpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_.create(*find_resource("", "v1", "namespaces"),
                  bj::parse(R"({"metadata":{"name":"default"}})").as_object());
    allocator_ = make_allocator();
  }

  std::unique_ptr<ClusterIpAllocator> make_allocator() {
    return std::make_unique<ClusterIpAllocator>(
        store_, ServiceCidr::parse("10.0.0.0/24"), [this] { return random_; },
        [this] { return now_; });
  }

  // Admission, then the store's create, as the API does; returns the stored spec.
  bj::object create(const std::string& name, const std::string& spec, bool dry_run = false) {
    bj::object o = service(name, spec);
    AdmissionRequest r{AdmissionOperation::Create, services(), "", "default", name, o, nullptr};
    r.dry_run = dry_run;
    allocator_->admit(r);
    if (dry_run) return o.at("spec").as_object();
    return store_.create(services(), std::move(o))->at("spec").as_object();
  }

  bj::object update(const std::string& name, const std::string& spec) {
    ObjectPtr old = store_.get(services(), "default", name);
    bj::object o = service(name, spec);
    AdmissionRequest r{AdmissionOperation::Update, services(), "", "default", name, o, old.get()};
    allocator_->admit(r);
    return store_.update(services(), std::move(o))->at("spec").as_object();
  }

  // The 422's message for creating `spec`.
  std::string refusal(const std::string& name, const std::string& spec, bool is_update = false) {
    try {
      is_update ? update(name, spec) : create(name, spec);
    } catch (const StatusError& e) {
      EXPECT_EQ(e.code(), 422) << e.message();
      return e.message();
    }
    return "not refused";
  }

  ObjectStore store_;
  std::uint64_t random_ = 0;
  std::chrono::steady_clock::time_point now_{};
  std::unique_ptr<ClusterIpAllocator> allocator_;
};

TEST_F(ClusterIpsTest, CreateAllocatesForEveryTypeThatHasAClusterIp) {
  struct Case {
    std::string name, spec, cluster_ip;
  };
  random_ = 4;  // upper band from 10.0.0.17: 10.0.0.21, then the next free ones
  const std::vector<Case> cases = {
      {"plain", R"({"ports":[{"port":80}]})", "10.0.0.21"},
      {"node-port", R"({"type":"NodePort"})", "10.0.0.22"},
      {"balancer", R"({"type":"LoadBalancer"})", "10.0.0.23"},
      {"empty-ip", R"({"clusterIP":""})", "10.0.0.24"},
      {"named", R"({"clusterIP":"10.0.0.21"})", "refused"},
      {"named-free", R"({"clusterIP":"10.0.0.5","clusterIPs":["10.0.0.5"]})", "10.0.0.5"},
      {"headless", R"({"clusterIP":"None"})", "None"},
      {"external", R"({"type":"ExternalName","externalName":"example.com"})", ""},
  };
  for (const Case& c : cases) {
    if (c.cluster_ip == "refused") {
      EXPECT_NE(refusal(c.name, c.spec), "not refused") << c.name;
      continue;
    }
    const bj::object spec = create(c.name, c.spec);
    EXPECT_EQ(spec.contains("clusterIP") ? spec.at("clusterIP").as_string() : "", c.cluster_ip)
        << c.name << ": " << spec;
    if (c.cluster_ip.empty()) {
      EXPECT_FALSE(spec.contains("clusterIPs")) << c.name;
    } else {
      EXPECT_EQ(spec.at("clusterIPs"), bj::array{bj::string(c.cluster_ip)}) << c.name;
    }
    if (c.cluster_ip.starts_with("10.")) {
      EXPECT_EQ(spec.at("ipFamilies"), bj::array{"IPv4"}) << c.name;
      EXPECT_EQ(spec.at("ipFamilyPolicy"), "SingleStack") << c.name;
    }
  }
}

TEST_F(ClusterIpsTest, RefusesWithKubeApiserversMessages) {
  create("first", R"({"clusterIP":"10.0.0.9"})");
  struct Case {
    std::string spec, message;
  };
  const std::vector<Case> cases = {
      {R"({"clusterIP":"10.0.1.9"})",
       R"(Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.1.9"}: failed to allocate IP 10.0.1.9: the provided IP (10.0.1.9) is not in the valid range. The range of valid IPs is 10.0.0.0/24)"},
      {R"({"clusterIP":"10.0.0.255"})",
       R"(Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.255"}: failed to allocate IP 10.0.0.255: the provided IP (10.0.0.255) is not in the valid range. The range of valid IPs is 10.0.0.0/24)"},
      {R"({"clusterIP":"10.0.0.9"})",
       R"(Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.9"}: failed to allocate IP 10.0.0.9: provided IP is already allocated)"},
      {R"({"clusterIP":"10.0.0.10","clusterIPs":["10.0.0.11"]})",
       R"(Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.11"}: first value must match `clusterIP`)"},
      {R"({"clusterIPs":["10.0.0.11"]})",
       R"(Service "x" is invalid: spec.clusterIPs: Invalid value: []string{"10.0.0.11"}: must be empty when `clusterIP` is not specified)"},
      {R"({"clusterIP":"ten"})",
       R"(Service "x" is invalid: spec.clusterIPs[0]: Invalid value: "ten": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff))"},
      {R"({"clusterIP":"fd00::1"})",
       R"(Service "x" is invalid: spec.clusterIPs[0]: Invalid value: []string{"fd00::1"}: IPv6 is not configured on this cluster)"},
  };
  for (const Case& c : cases) EXPECT_EQ(refusal("x", c.spec), c.message) << c.spec;
}

TEST_F(ClusterIpsTest, UpdateKeepsTheAddressAndRefusesAChange) {
  const std::string ip =
      create("web", R"({"ports":[{"port":80}]})").at("clusterIP").as_string().c_str();
  // A PUT without the fields (kubectl replace of the original manifest) keeps them.
  bj::object kept = update("web", R"({"ports":[{"port":81}]})");
  EXPECT_EQ(kept.at("clusterIP"), bj::value(ip));
  EXPECT_EQ(kept.at("clusterIPs"), bj::array{bj::string(ip)});
  // Only clusterIP changed: clusterIPs follow it, and the change is refused.
  EXPECT_EQ(
      refusal("web", R"({"clusterIP":"10.0.0.3","clusterIPs":[")" + ip + R"("]})", true),
      R"(Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.3"}: may not change once set)");
  EXPECT_EQ(
      refusal("web", R"({"clusterIP":"10.0.0.3","clusterIPs":["10.0.0.3"]})", true),
      R"(Service "web" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.0.0.3"}: may not change once set)");
  // ExternalName to ClusterIP: allocated then, as on create.
  create("ext", R"({"type":"ExternalName","externalName":"example.com"})");
  EXPECT_EQ(update("ext", R"({"type":"ClusterIP","clusterIP":"10.0.0.4"})").at("clusterIP"),
            "10.0.0.4");
}

TEST_F(ClusterIpsTest, DeleteReleasesAndARestartRebuildsFromTheStore) {
  create("a", R"({"clusterIP":"10.0.0.7"})");
  create("b", R"({"clusterIP":"10.0.0.8"})");
  store_.remove(services(), "default", "a");
  EXPECT_EQ(create("a2", R"({"clusterIP":"10.0.0.7"})").at("clusterIP"), "10.0.0.7");
  // A new allocator over the same store (a restarted tailor-cluster) knows who holds what.
  allocator_ = make_allocator();
  EXPECT_TRUE(allocator_->held(ip("10.0.0.7")));
  EXPECT_TRUE(allocator_->held(ip("10.0.0.8")));
  EXPECT_FALSE(allocator_->held(ip("10.0.0.9")));
  EXPECT_NE(refusal("c", R"({"clusterIP":"10.0.0.8"})"), "not refused");
}

TEST_F(ClusterIpsTest, WatchesEndedByTheStoreAreStartedOver) {
  create("a", R"({"clusterIP":"10.0.0.7"})");
  store_.stop_watches();
  create("b", R"({"clusterIP":"10.0.0.8"})");
  store_.remove(services(), "default", "a");
  EXPECT_FALSE(allocator_->held(ip("10.0.0.7")));
  EXPECT_TRUE(allocator_->held(ip("10.0.0.8")));
  EXPECT_NE(refusal("c", R"({"clusterIP":"10.0.0.8"})"), "not refused");
}

TEST_F(ClusterIpsTest, AnAddressAdmittedButNeverStoredLapses) {
  bj::object o = service("lost", R"({"clusterIP":"10.0.0.40"})");
  AdmissionRequest r{AdmissionOperation::Create, services(), "", "default", "lost", o, nullptr};
  allocator_->admit(r);  // a later plugin, or the store, refuses the write
  EXPECT_TRUE(allocator_->held(ip("10.0.0.40")));
  now_ += std::chrono::seconds(59);
  EXPECT_TRUE(allocator_->held(ip("10.0.0.40")));
  now_ += std::chrono::seconds(1);
  EXPECT_FALSE(allocator_->held(ip("10.0.0.40")));
}

TEST_F(ClusterIpsTest, DryRunChecksWithoutHolding) {
  create("a", R"({"clusterIP":"10.0.0.7"})");
  EXPECT_EQ(create("b", R"({"clusterIP":"10.0.0.8"})", true).at("clusterIP"), "10.0.0.8");
  EXPECT_FALSE(allocator_->held(ip("10.0.0.8")));
  bj::object o = service("c", R"({"clusterIP":"10.0.0.7"})");
  AdmissionRequest r{AdmissionOperation::Create, services(), "", "default", "c", o, nullptr};
  r.dry_run = true;
  EXPECT_THROW(allocator_->admit(r), StatusError);
}

}  // namespace
}  // namespace tailor::embedded::testing
