// tailor cluster up's usage certificates: each node agent's names its node as a kubelet's
// does, all chain to the one usage CA, the keys are the owner's alone, and the flags name them.
#include "cli/cluster_usage_tls.h"

#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace tailor::cli {
namespace {

namespace fs = std::filesystem;

using X509Ptr = std::unique_ptr<X509, decltype(&X509_free)>;

X509Ptr read_certificate(const fs::path& path) {
  std::stringstream pem;
  pem << std::ifstream(path).rdbuf();
  const std::string text = pem.str();
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(text.data(), int(text.size())),
                                                &BIO_free);
  return X509Ptr(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), &X509_free);
}

std::string subject(const X509* cert) {
  std::unique_ptr<BIO, decltype(&BIO_free)> out(BIO_new(BIO_s_mem()), &BIO_free);
  X509_NAME_print_ex(out.get(), X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
  char* data = nullptr;
  const long size = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(size));
}

bool signed_by(X509* cert, X509* ca) { return X509_verify(cert, X509_get0_pubkey(ca)) == 1; }

class ClusterUsageTls : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/cluster-usage-tls-XXXXXX";
    dir_ = ::mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(ClusterUsageTls, EachAgentsCertificateNamesItsNodeAndChainsToTheUsageCa) {
  write_usage_certificates(dir_, {"tailor-node-1", "tailor-node-2"});
  const fs::path tls = dir_ / "usage-tls";
  X509Ptr ca = read_certificate(tls / "ca.crt");
  ASSERT_TRUE(ca);
  for (const char* node : {"tailor-node-1", "tailor-node-2"}) {
    X509Ptr agent = read_certificate(tls / (std::string(node) + ".crt"));
    ASSERT_TRUE(agent) << node;
    EXPECT_EQ(subject(agent.get()), "CN=system:node:" + std::string(node) + ",O=system:nodes");
    EXPECT_TRUE(signed_by(agent.get(), ca.get())) << node;
    EXPECT_EQ(fs::status(tls / (std::string(node) + ".key")).permissions(),
              fs::perms::owner_read | fs::perms::owner_write);
  }
  X509Ptr controller = read_certificate(tls / "controller.crt");
  ASSERT_TRUE(controller);
  EXPECT_TRUE(signed_by(controller.get(), ca.get()));
  EXPECT_EQ(fs::status(tls / "controller.key").permissions(),
            fs::perms::owner_read | fs::perms::owner_write);
}

TEST_F(ClusterUsageTls, FlagsNameTheFilesWritten) {
  write_usage_certificates(dir_, {"tailor-node-1"});
  const std::string tls = (dir_ / "usage-tls").string();
  EXPECT_EQ(controller_usage_tls_flags(dir_),
            (std::vector<std::string>{"--usage-tls-cert-file=" + tls + "/controller.crt",
                                      "--usage-tls-key-file=" + tls + "/controller.key",
                                      "--usage-client-ca-file=" + tls + "/ca.crt"}));
  EXPECT_EQ(agent_usage_tls_flags(dir_, "tailor-node-1"),
            (std::vector<std::string>{"--usage-ca-file=" + tls + "/ca.crt",
                                      "--usage-cert-file=" + tls + "/tailor-node-1.crt",
                                      "--usage-key-file=" + tls + "/tailor-node-1.key"}));
  for (const auto& flags :
       {controller_usage_tls_flags(dir_), agent_usage_tls_flags(dir_, "tailor-node-1")}) {
    for (const std::string& flag : flags) {
      EXPECT_TRUE(fs::exists(flag.substr(flag.find('=') + 1))) << flag;
    }
  }
}

// A second `cluster up` in the same directory replaces the certificates: a new CA, so nothing
// signed for the last environment is trusted by this one.
TEST_F(ClusterUsageTls, ASecondClusterUpMakesANewCa) {
  write_usage_certificates(dir_, {"tailor-node-1"});
  X509Ptr old_agent = read_certificate(dir_ / "usage-tls" / "tailor-node-1.crt");
  write_usage_certificates(dir_, {"tailor-node-1"});
  X509Ptr ca = read_certificate(dir_ / "usage-tls" / "ca.crt");
  ASSERT_TRUE(old_agent && ca);
  EXPECT_FALSE(signed_by(old_agent.get(), ca.get()));
}

}  // namespace
}  // namespace tailor::cli
