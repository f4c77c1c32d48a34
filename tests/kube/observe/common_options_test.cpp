#include "kube/observe/common_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/observe/version.h"
#include "tests/kube/observe/http_get.h"

namespace tailor::kube::observe {
namespace {

using ::testing::HasSubstr;

struct AddressCase {
  const char* text;
  BindAddress want;
};
void PrintTo(const AddressCase& c, std::ostream* os) { *os << c.text; }

class BindAddressTest : public ::testing::TestWithParam<AddressCase> {};

TEST_P(BindAddressTest, Parses) {
  EXPECT_EQ(parse_bind_address(GetParam().text), GetParam().want) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Forms, BindAddressTest,
    ::testing::Values(AddressCase{"127.0.0.1:8080", {"127.0.0.1", 8080, false}},
                      AddressCase{":8080", {"", 8080, false}},
                      AddressCase{"0.0.0.0:0", {"0.0.0.0", 0, false}},
                      AddressCase{"[::1]:9090", {"::1", 9090, false}},
                      AddressCase{"localhost:65535", {"127.0.0.1", 65535, false}},
                      AddressCase{"0", {"", 0, true}}));

class BadBindAddressTest : public ::testing::TestWithParam<const char*> {};

TEST_P(BadBindAddressTest, IsRejected) {
  try {
    parse_bind_address(GetParam());
    FAIL() << GetParam();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr(std::string("invalid bind address \"") + GetParam() + "\""));
  }
}

INSTANTIATE_TEST_SUITE_P(Forms, BadBindAddressTest,
                         ::testing::Values("8080", "", "host:", "1.2.3.4:65536", "1.2.3.4:-1",
                                           "1.2.3.4:80x", "example.com:80", "::1:80",
                                           "[1.2.3.4]:80", "300.1.1.1:80"));

TEST(BindAddressTest, PrintsBackWithBrackets) {
  EXPECT_EQ(parse_bind_address("[::1]:80").to_string(), "[::1]:80");
  EXPECT_EQ(parse_bind_address(":80").to_string(), ":80");
  EXPECT_EQ(parse_bind_address("0").to_string(), "0");
}

TEST(CommonOptionsTest, DefaultsFileAndFlags) {
  char tmpl[] = "/tmp/tailor-common-XXXXXX";
  std::string dir = ::mkdtemp(tmpl);
  std::shared_ptr<void> cleanup(nullptr, [&](void*) { std::filesystem::remove_all(dir); });
  std::ofstream(dir + "/c.yaml") << "clientConnection:\n  kubeconfig: /etc/kube/config\n"
                                    "logging:\n  format: json\n  verbosity: 3\n"
                                    "metricsBindAddress: 127.0.0.1:0\n";
  config::Schema schema("tailor-test", "d");
  CommonOptions o;
  add_common_options(schema, o);
  EXPECT_EQ(o.metrics_bind_address.to_string(), "127.0.0.1:8080");
  schema.parse({"--config", dir + "/c.yaml", "-v=5"});
  EXPECT_EQ(o.kubeconfig, "/etc/kube/config");
  EXPECT_EQ(o.log_format, log::Format::Json);
  EXPECT_EQ(o.verbosity, 5);
  EXPECT_EQ(o.metrics_bind_address, (BindAddress{"127.0.0.1", 0, false}));
  EXPECT_FALSE(o.health_probe_bind_address);
  EXPECT_THAT(schema.usage(), HasSubstr("  -v, --v int "));
  EXPECT_THAT(schema.usage(), HasSubstr("(default \"text\") [config: logging.format]"));
}

TEST(CommonOptionsTest, BadValuesAreClearErrors) {
  config::Schema schema("tailor-test", "d");
  CommonOptions o;
  add_common_options(schema, o);
  auto error_of = [&](std::vector<std::string> args) -> std::string {
    try {
      schema.parse(args);
    } catch (const config::ConfigError& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of({"--log-format=yaml"}),
            "invalid value \"yaml\" for flag --log-format: unknown log format \"yaml\" "
            "(supported: text, json)");
  EXPECT_EQ(error_of({"-v", "-1"}), "invalid value \"-1\" for flag --v: must be at least 0");
  EXPECT_EQ(error_of({"--metrics-bind-address=8080"}),
            "invalid value \"8080\" for flag --metrics-bind-address: invalid bind address "
            "\"8080\": want host:port, or 0 to disable");
}

TEST(CommonOptionsTest, StartsOneOrTwoEndpoints) {
  metrics::Registry registry;
  registry.gauge({.name = "up_value", .help = "h"}).with().Set(1);
  health::Checks checks;
  CommonOptions o;
  o.metrics_bind_address = parse_bind_address("127.0.0.1:0");
  auto one = start_endpoints(o, registry, checks);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(testing::http_get(one[0]->port(), "/livez").body, "ok");

  one.clear();
  o.health_probe_bind_address = parse_bind_address("[::1]:0");  // a separate health endpoint
  auto two = start_endpoints(o, registry, checks);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_THAT(testing::http_get(two[0]->port(), "/metrics").body, HasSubstr("tailor_up_value 1"));

  o.metrics_bind_address = parse_bind_address("0");
  o.health_probe_bind_address.reset();
  EXPECT_TRUE(start_endpoints(o, registry, checks).empty());
}

TEST(CommonOptionsTest, InitProcessHandlesHelpErrorsAndLogging) {
  auto init = [](std::vector<const char*> argv, std::string& out, std::string& err) {
    config::Schema schema("tailor-test", "A test process.");
    CommonOptions o;
    add_common_options(schema, o);
    std::ostringstream o_out, o_err;
    argv.insert(argv.begin(), "tailor-test");
    auto code = init_process(schema, o, static_cast<int>(argv.size()), argv.data(), o_out, o_err);
    out = o_out.str();
    err = o_err.str();
    return code;
  };
  std::string out, err;
  EXPECT_EQ(init({"--help"}, out, err), 0);
  EXPECT_THAT(out, HasSubstr("Usage: tailor-test [flags]"));
  EXPECT_EQ(init({"--version"}, out, err), 0);
  EXPECT_EQ(out, "tailor-test " + std::string(tailor_version()) + "\n");
  EXPECT_EQ(init({"--v=x"}, out, err), 2);
  EXPECT_EQ(
      err, "error: invalid value \"x\" for flag --v: not an integer\nRun with --help for usage.\n");
  EXPECT_EQ(init({"--v=3", "--log-format=json"}, out, err), std::nullopt);
  EXPECT_EQ(log::global().format(), log::Format::Json);
  EXPECT_TRUE(log::v(3).enabled());
  apply_logging(CommonOptions{});
}

TEST(CommonOptionsTest, ApplyLoggingConfiguresTheGlobalLogger) {
  CommonOptions o;
  o.log_format = log::Format::Json;
  o.verbosity = 4;
  apply_logging(o);
  EXPECT_EQ(log::global().format(), log::Format::Json);
  EXPECT_TRUE(log::v(4).enabled());
  EXPECT_FALSE(log::v(5).enabled());
  apply_logging(CommonOptions{});
}

}  // namespace
}  // namespace tailor::kube::observe
