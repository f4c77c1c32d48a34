#include "cli/cluster_usage_tls.h"

#include <fstream>
#include <stdexcept>

#include "kube/http/tls_certs.h"

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;

constexpr int kValidDays = 365;
// Certificates are public; keys are their owner's alone.
constexpr fs::perms kPublic =
    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read;
constexpr fs::perms kPrivate = fs::perms::owner_read | fs::perms::owner_write;

fs::path tls_dir(const fs::path& dir) { return dir / "usage-tls"; }

void write_file(const fs::path& path, const std::string& text, fs::perms perms) {
  fs::remove(path);
  {
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write " + path.string());
    fs::permissions(path, perms);  // before the key is in it
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
  }
}

void write_pair(const fs::path& dir, const std::string& name,
                const kube::http::CertificateAndKey& pair) {
  write_file(dir / (name + ".crt"), pair.cert_pem, kPublic);
  write_file(dir / (name + ".key"), pair.key_pem, kPrivate);
}

}  // namespace

void write_usage_certificates(const fs::path& dir, const std::vector<std::string>& nodes) {
  const fs::path out = tls_dir(dir);
  fs::create_directories(out);
  // The CA's key is not kept: every certificate this environment needs is made here.
  const auto ca = kube::http::make_ca("tailor-usage-ca", kValidDays);
  write_file(out / "ca.crt", ca.cert_pem, kPublic);
  write_pair(out, "controller",
             kube::http::make_server_certificate(ca, "tailor-controller", {"localhost"},
                                                 {"127.0.0.1"}, kValidDays));
  for (const std::string& node : nodes) {
    write_pair(out, node,
               kube::http::make_client_certificate(ca, "system:node:" + node, {"system:nodes"},
                                                   kValidDays));
  }
}

std::vector<std::string> controller_usage_tls_flags(const fs::path& dir) {
  const fs::path in = tls_dir(dir);
  return {"--usage-tls-cert-file=" + (in / "controller.crt").string(),
          "--usage-tls-key-file=" + (in / "controller.key").string(),
          "--usage-client-ca-file=" + (in / "ca.crt").string()};
}

std::vector<std::string> agent_usage_tls_flags(const fs::path& dir, const std::string& node) {
  const fs::path in = tls_dir(dir);
  return {"--usage-ca-file=" + (in / "ca.crt").string(),
          "--usage-cert-file=" + (in / (node + ".crt")).string(),
          "--usage-key-file=" + (in / (node + ".key")).string()};
}

}  // namespace tailor::cli
