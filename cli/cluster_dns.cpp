#include "cli/cluster_dns.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "cli/cluster_watch.h"
#include "cli/command_flags.h"
#include "kube/client/config.h"
#include "kube/client/rest_client.h"

namespace tailor::cli {
namespace {
namespace bj = boost::json;
namespace fs = std::filesystem;
using namespace std::chrono_literals;

// A label of a DNS name (RFC 1123): what a hostname must be to be served.
bool dns_label(const std::string& s) {
  if (s.empty() || s.size() > 63 || s.front() == '-' || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

void write_atomically(const fs::path& file, const std::string& text) {
  // Written beside the watched directory and renamed into it: dnsmasq sees one complete file
  // (a temporary inside the directory would be read too, and its records kept).
  const fs::path temporary = file.parent_path().parent_path() / (file.filename().string() + ".tmp");
  {
    std::ofstream out(temporary);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, file);
}

// dnsmasq reads the files of --hostsdir only on inotify events after it watches the directory:
// true once process `pid` holds an inotify watch on `dir` (/proc/PID/fdinfo).
bool watches(pid_t pid, const fs::path& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return false;
  std::ostringstream ino;
  ino << "ino:" << std::hex << st.st_ino << " ";
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/proc/" + std::to_string(pid) + "/fdinfo", ec)) {
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("inotify wd:", 0) == 0 && line.find(ino.str()) != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

// dnsmasq runs as this process's child and must not outlive it: PR_SET_PDEATHSIG does not hold
// (dnsmasq changes its credentials, which clears it), so SIGTERM and SIGINT stop the child
// first, every return does (DnsmasqChild), and one left by a process killed with SIGKILL is
// found through DIR/dnsmasq.pid and stopped before a new one is started.
volatile sig_atomic_t g_child = 0;

void stop_child_and_exit(int signal) {
  if (g_child > 0) ::kill(g_child, SIGTERM);
  ::_exit(128 + signal);
}

// Alive and not a zombie (an orphan's zombie waits for whoever adopted it to reap it).
bool running(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, WNOHANG);  // our own exited child is a zombie until reaped
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto end = line.rfind(')');  // the state follows "(comm)"
  return end != std::string::npos && end + 2 < line.size() && line[end + 2] != 'Z';
}

// The dnsmasq of an earlier run on the same hosts directory (its command line names it).
void stop_leftover(const fs::path& pid_file, const fs::path& hosts_dir) {
  std::ifstream in(pid_file);
  pid_t pid = 0;
  if (!(in >> pid) || pid <= 0) return;
  std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
  const std::string args((std::istreambuf_iterator<char>(cmdline)),
                         std::istreambuf_iterator<char>());
  if (args.find("--hostsdir=" + hosts_dir.string() + '\0') == std::string::npos) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 100 && running(pid); ++i) std::this_thread::sleep_for(50ms);
  if (running(pid)) ::kill(pid, SIGKILL);
}

class DnsmasqChild {
 public:
  DnsmasqChild(const std::vector<std::string>& argv, const fs::path& pid_file) {
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid_ == 0) {
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      std::cerr << "exec " << argv[0] << ": " << std::strerror(errno) << "\n";
      ::_exit(127);
    }
    g_child = pid_;
    std::ofstream(pid_file) << pid_ << "\n";
  }
  ~DnsmasqChild() {
    g_child = 0;
    if (!running(pid_)) return;
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  DnsmasqChild(const DnsmasqChild&) = delete;
  DnsmasqChild& operator=(const DnsmasqChild&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

// The child's exit as words, or "" while it runs.
std::string exited(pid_t pid) {
  int status = 0;
  if (::waitpid(pid, &status, WNOHANG) != pid) return "";
  if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
  return "exited with status " + std::to_string(WEXITSTATUS(status));
}

}  // namespace

std::string cluster_dns_hosts(const std::vector<ProxyService>& services,
                              const std::vector<SliceView>& slices, const std::string& zone) {
  std::set<std::pair<std::string, std::string>> records;  // (name, IP)
  for (const ProxyService& service : services) {
    const std::string name = service.name + "." + service.ns + ".svc." + zone;
    if (service.cluster_ip != "None") {
      if (!service.cluster_ip.empty()) records.insert({name, service.cluster_ip});
      continue;
    }
    for (const SliceView& slice : slices) {
      if (slice.ns != service.ns || slice.service != service.name) continue;
      if (slice.address_type != "IPv4") continue;
      for (const SliceEndpoint& endpoint : slice.endpoints) {
        if (!endpoint.ready || endpoint.ip.empty()) continue;
        records.insert({name, endpoint.ip});
        if (dns_label(endpoint.hostname)) {
          records.insert({endpoint.hostname + "." + name, endpoint.ip});
        }
      }
    }
  }
  std::string out;
  for (const auto& [name, ip] : records) out += ip + " " + name + "\n";
  return out;
}

std::vector<std::string> dnsmasq_command(const std::string& dnsmasq, const std::string& listen,
                                         const fs::path& hosts_dir, const std::string& zone) {
  return {dnsmasq, "--keep-in-foreground",
          "--log-facility=-",  // stderr: the supervisor's log file
          "--conf-file=/dev/null",
          "--pid-file",  // none: the supervisor keeps the pid
          // Root keeps reading the hosts files of a DIR that "nobody" may not traverse.
          "--user=root", "--port=53", "--listen-address=" + listen,
          "--bind-interfaces",  // that address only, so environments side by side each have one
          "--no-hosts", "--hostsdir=" + hosts_dir.string(),
          "--local=/" + zone + "/",  // the zone is ours: a name not in the hosts file is NXDOMAIN
          "--no-negcache",           // a forwarded name the host learns is found at once
          "--domain-needed"};        // single-label names are not forwarded
}

std::string kube_dns_service(const std::string& dns_ip) {
  auto port = [](const char* name, const char* protocol) {
    return bj::object{{"name", name}, {"port", 53}, {"protocol", protocol}, {"targetPort", 53}};
  };
  const bj::object service{
      {"apiVersion", "v1"},
      {"kind", "Service"},
      {"metadata", bj::object{{"name", "kube-dns"},
                              {"namespace", "kube-system"},
                              {"labels", bj::object{{"k8s-app", "kube-dns"},
                                                    {"kubernetes.io/name", "CoreDNS"}}}}},
      {"spec", bj::object{{"type", "ClusterIP"},
                          {"clusterIP", dns_ip},
                          {"ports", bj::array{port("dns", "UDP"), port("dns-tcp", "TCP")}}}}};
  return bj::serialize(service);
}

std::string kube_dns_endpoint_slice(const std::string& dns_ip) {
  auto port = [](const char* name, const char* protocol) {
    return bj::object{{"name", name}, {"port", 53}, {"protocol", protocol}};
  };
  const bj::object slice{
      {"apiVersion", "discovery.k8s.io/v1"},
      {"kind", "EndpointSlice"},
      {"metadata", bj::object{{"name", "kube-dns"},
                              {"namespace", "kube-system"},
                              {"labels", bj::object{{"kubernetes.io/service-name", "kube-dns"}}}}},
      {"addressType", "IPv4"},
      {"endpoints",
       bj::array{bj::object{{"addresses", bj::array{bj::string(dns_ip)}},
                            {"conditions", bj::object{{"ready", true}, {"serving", true}}}}}},
      {"ports", bj::array{port("dns", "UDP"), port("dns-tcp", "TCP")}}};
  return bj::serialize(slice);
}

void publish_kube_dns_service(const fs::path& kubeconfig, const std::string& dns_ip) {
  kube::RestClient client(kube::load_kubeconfig(kubeconfig.string()));
  auto replace = [&client](kube::ResourceType type, const std::string& body) {
    const kube::ObjectRef list{.type = type, .namespace_ = "kube-system"};
    kube::ObjectRef named = list;
    named.name = "kube-dns";
    try {
      client.remove(named);
    } catch (const kube::ApiError& e) {
      if (!e.is_not_found()) throw;
    }
    client.create(list, body);
  };
  replace({"", "v1", "services"}, kube_dns_service(dns_ip));
  replace({"discovery.k8s.io", "v1", "endpointslices"}, kube_dns_endpoint_slice(dns_ip));
}

int run_cluster_dns(const std::vector<std::string>& args, std::ostream& err) {
  std::string kubeconfig, dir, listen, zone = kClusterDomain, dnsmasq = kDnsmasq;
  try {
    FlagReader flags(args);
    while (flags.next()) {
      const std::string& flag = flags.flag();
      if (flag == "--kubeconfig") {
        kubeconfig = flags.value();
      } else if (flag == "--dir") {
        dir = flags.value();
      } else if (flag == "--listen") {
        listen = flags.value();
      } else if (flag == "--zone") {
        zone = flags.value();
      } else if (flag == "--dnsmasq") {
        dnsmasq = flags.value();
      } else {
        throw std::invalid_argument("unknown flag " + flag);
      }
    }
    if (kubeconfig.empty() || dir.empty() || listen.empty()) {
      throw std::invalid_argument("--kubeconfig, --dir and --listen are required");
    }
  } catch (const std::invalid_argument& e) {
    err << "tailor cluster-dns: " << e.what() << "\n";
    return 2;
  }
  const fs::path hosts_dir = fs::path(dir) / "hosts";
  const fs::path hosts_file = hosts_dir / "cluster";
  try {
    fs::create_directories(hosts_dir);
    const fs::path pid_file = fs::path(dir) / "dnsmasq.pid";
    stop_leftover(pid_file, hosts_dir);
    std::signal(SIGTERM, stop_child_and_exit);
    std::signal(SIGINT, stop_child_and_exit);
    const DnsmasqChild dns(dnsmasq_command(dnsmasq, listen, hosts_dir, zone), pid_file);
    const pid_t child = dns.pid();
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (!watches(child, hosts_dir)) {
      if (const std::string how = exited(child); !how.empty()) {
        err << "tailor cluster-dns: dnsmasq " << how << " before it watched " << hosts_dir.string()
            << "\n";
        return 1;
      }
      if (std::chrono::steady_clock::now() > deadline) {
        err << "tailor cluster-dns: dnsmasq does not watch " << hosts_dir.string()
            << " after 30 s\n";
        return 1;
      }
      std::this_thread::sleep_for(20ms);
    }
    kube::RestClient client(kube::load_kubeconfig(kubeconfig));
    std::optional<std::string> written;
    const std::string how = watch_pair<ProxyService, SliceView>(
        client, {"", "v1", "services"}, decode_proxy_service,
        {"discovery.k8s.io", "v1", "endpointslices"}, decode_slice_view, 50ms,
        [child] { return exited(child); },
        [&](const std::vector<ProxyService>& services, const std::vector<SliceView>& slices) {
          const std::string text = cluster_dns_hosts(services, slices, zone);
          if (text == written) return;
          write_atomically(hosts_file, text);
          written = text;
        });
    err << "tailor cluster-dns: dnsmasq " << how << "\n";
    return 1;
  } catch (const std::exception& e) {
    err << "tailor cluster-dns: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace tailor::cli
