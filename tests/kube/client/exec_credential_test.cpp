// ExecCredential parsing, RFC 3339, the plugin runner, and CredentialSource's caching/refresh.
#include "kube/client/exec_credential.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>

#include "kube/client/credentials.h"

namespace tailor::kube {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using SysClock = std::chrono::system_clock;

const std::string kV1 = "client.authentication.k8s.io/v1";

std::string credential_json(const std::string& status, const std::string& version = kV1) {
  return R"({"apiVersion":")" + version + R"(","kind":"ExecCredential","status":)" + status + "}";
}

// expirationTimestamp takes RFC 3339 as Go's time.RFC3339 does (the model's parser).
TEST(ExecCredential, ExpirationTimestampForms) {
  struct Case {
    const char* text;
    std::int64_t epoch;
  };
  auto expiry_of = [](const std::string& text) {
    return parse_exec_credential(
        credential_json(R"({"token":"t","expirationTimestamp":")" + text + R"("})"), kV1);
  };
  for (const Case& c : {Case{"1970-01-01T00:00:00Z", 0}, Case{"2024-02-29T12:34:56Z", 1709210096},
                        Case{"2024-02-29T12:34:56.123456789Z", 1709210096},
                        Case{"2024-02-29T14:34:56+02:00", 1709210096},
                        Case{"2024-02-29T10:04:56-02:30", 1709210096}}) {
    auto credential = expiry_of(c.text);
    ASSERT_TRUE(credential.expiration) << c.text;
    EXPECT_EQ(SysClock::to_time_t(*credential.expiration), c.epoch) << c.text;
  }
  for (const char* bad :
       {"2024-02-29", "2024-02-29 12:34:56Z", "2024-13-01T00:00:00Z", "2024-02-29T12:34:56",
        "2024-02-29T12:34:56+0200", "2024-02-29T12:34:56.Z", "20x4-02-29T12:34:56Z"}) {
    EXPECT_THROW(expiry_of(bad), ConfigError) << bad;
  }
}

TEST(ExecCredentialParse, TokenAndExpiry) {
  ExecCredential credential = parse_exec_credential(
      credential_json(R"({"token":"abc","expirationTimestamp":"2030-01-01T00:00:00Z"})"), kV1);
  EXPECT_EQ(credential.token, "abc");
  ASSERT_TRUE(credential.expiration);
  EXPECT_EQ(SysClock::to_time_t(*credential.expiration), 1893456000);
}

TEST(ExecCredentialParse, ClientCertificate) {
  ExecCredential credential = parse_exec_credential(
      credential_json(R"({"clientCertificateData":"CERT","clientKeyData":"KEY"})",
                      "client.authentication.k8s.io/v1beta1"),
      "client.authentication.k8s.io/v1beta1");
  EXPECT_EQ(credential.client_cert_pem, "CERT");
  EXPECT_EQ(credential.client_key_pem, "KEY");
  EXPECT_TRUE(credential.token.empty());
  EXPECT_FALSE(credential.expiration);
}

TEST(ExecCredentialParse, RejectsBadOutput) {
  struct Case {
    std::string output;
    const char* complaint;
  };
  for (const Case& c : {
           Case{"not json", "not valid JSON"},
           Case{"[]", "not a JSON object"},
           Case{R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"Pod","status":{}})",
                "kind"},
           Case{credential_json(R"({"token":"x"})", "client.authentication.k8s.io/v1beta1"),
                "apiVersion"},
           Case{R"({"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"})",
                "missing status"},
           Case{credential_json("{}"), "neither a token nor a client certificate"},
           Case{credential_json(R"({"clientCertificateData":"C"})"), "must come together"},
           Case{credential_json(R"({"token":5})"), "token must be a string"},
           Case{credential_json(R"({"token":"x","expirationTimestamp":"tomorrow"})"), "RFC 3339"},
       }) {
    try {
      parse_exec_credential(c.output, kV1);
      ADD_FAILURE() << "accepted: " << c.output;
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(c.complaint), std::string::npos) << e.what();
    }
  }
}

TEST(ExecInfo, DescribesTheCluster) {
  ExecConfig exec{kV1, "plugin", {}, {}, "Never", true};
  RestConfig cluster;
  cluster.server = "https://10.0.0.1:6443";
  cluster.ca_pem = "PEM";
  cluster.tls_server_name = "kubernetes";
  auto info = boost::json::parse(exec_info_json(exec, cluster));
  EXPECT_EQ(info.at("kind").as_string(), "ExecCredential");
  EXPECT_EQ(info.at("apiVersion").as_string(), kV1);
  EXPECT_FALSE(info.at("spec").at("interactive").as_bool());
  EXPECT_EQ(info.at("spec").at("cluster").at("server").as_string(), "https://10.0.0.1:6443");
  EXPECT_EQ(info.at("spec").at("cluster").at("certificate-authority-data").as_string(), "UEVN");
  exec.provide_cluster_info = false;
  EXPECT_FALSE(
      boost::json::parse(exec_info_json(exec, cluster)).at("spec").as_object().contains("cluster"));
}

TEST(ExecPlugin, RunsACommandWithArgumentsAndEnvironment) {
  ExecConfig exec{kV1,
                  "sh",
                  {"-c", "printf '%s|%s' \"$GREETING\" \"$KUBERNETES_EXEC_INFO\""},
                  {{"GREETING", "hi"}},
                  "Never",
                  false};
  EXPECT_EQ(run_exec_plugin(exec, "{info}"), "hi|{info}");
}

TEST(ExecPlugin, ReportsFailures) {
  ExecConfig failing{kV1, "sh", {"-c", "echo oops >&2; exit 3"}, {}, "Never", false};
  try {
    run_exec_plugin(failing, "{}");
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("exited with status 3"), std::string::npos) << e.what();
  }
  ExecConfig missing{kV1, "/nonexistent/tailor-plugin", {}, {}, "Never", false};
  EXPECT_THROW(run_exec_plugin(missing, "{}"), ConfigError);
}

TEST(CredentialSource, CachesExecCredentialsUntilTheyExpire) {
  RestConfig config;
  config.server = "https://example";
  config.exec = ExecConfig{kV1, "plugin", {}, {}, "Never", false};
  int runs = 0;
  SysClock::time_point now = SysClock::from_time_t(1893455000);  // 1000 s before expiry
  CredentialSource source(
      config,
      [&](const ExecConfig&, const std::string&) {
        ++runs;
        return credential_json(R"({"token":"t)" + std::to_string(runs) +
                               R"(","expirationTimestamp":"2030-01-01T00:00:00Z"})");
      },
      [&] { return now; });
  EXPECT_EQ(source.current().authorization, "Bearer t1");
  EXPECT_EQ(source.current().authorization, "Bearer t1");
  EXPECT_EQ(runs, 1);
  now += 1000s;  // expired
  EXPECT_EQ(source.current().authorization, "Bearer t2");
  EXPECT_EQ(runs, 2);
}

TEST(CredentialSource, RefreshReRunsOnceForConcurrentFailures) {
  RestConfig config;
  config.exec = ExecConfig{kV1, "plugin", {}, {}, "Never", false};
  int runs = 0;
  CredentialSource source(config, [&](const ExecConfig&, const std::string&) {
    ++runs;
    return credential_json(R"({"token":"t)" + std::to_string(runs) + R"("})");
  });
  Credentials first = source.current();
  EXPECT_TRUE(source.refresh(first.generation));
  EXPECT_TRUE(source.refresh(first.generation));  // already refreshed by the first caller
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(source.current().authorization, "Bearer t2");
}

TEST(CredentialSource, ExecCertificateReplacesTheConfiguredOne) {
  RestConfig config;
  config.client_cert_pem = "OLD";
  config.client_key_pem = "OLDKEY";
  config.exec = ExecConfig{kV1, "plugin", {}, {}, "Never", false};
  CredentialSource source(config, [](const ExecConfig&, const std::string&) {
    return credential_json(R"({"clientCertificateData":"NEW","clientKeyData":"NEWKEY"})");
  });
  Credentials credentials = source.current();
  EXPECT_EQ(credentials.client_cert_pem, "NEW");
  EXPECT_EQ(credentials.client_key_pem, "NEWKEY");
  EXPECT_EQ(credentials.authorization, "");
}

TEST(CredentialSource, TokenFileIsReReadWhenItChanges) {
  fs::path file = fs::temp_directory_path() / ("tailor-cred-" + std::to_string(::getpid()));
  std::ofstream(file) << "first\n";
  RestConfig config;
  config.bearer_token = "static";  // the file wins, as in client-go
  config.bearer_token_file = file.string();
  CredentialSource source(config);
  Credentials before = source.current();
  EXPECT_EQ(before.authorization, "Bearer first");
  std::ofstream(file) << "second";
  fs::last_write_time(file, fs::last_write_time(file) + 1s);
  Credentials after = source.current();
  EXPECT_EQ(after.authorization, "Bearer second");
  EXPECT_NE(after.generation, before.generation);
  // Unchanged file and nothing new: refresh says retrying is pointless.
  EXPECT_FALSE(source.refresh(after.generation));
  fs::remove(file);
  EXPECT_THROW(source.current(), ConfigError);
}

TEST(CredentialSource, BasicAuth) {
  RestConfig config;
  config.username = "admin";
  config.password = "secret";
  EXPECT_EQ(CredentialSource(config).current().authorization, "Basic YWRtaW46c2VjcmV0");
}

}  // namespace
}  // namespace tailor::kube
