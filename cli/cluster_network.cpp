#include "cli/cluster_network.h"

#include <boost/json.hpp>
#include <fstream>
#include <stdexcept>

#include "cli/cluster_process.h"

namespace tailor::cli {
namespace {
namespace bj = boost::json;
namespace fs = std::filesystem;

// "ip link add" of a name that exists: the slot belongs to someone else.
bool taken(const std::runtime_error& e) {
  return std::string(e.what()).find("File exists") != std::string::npos;
}

void write_file(const fs::path& path, const std::string& text) {
  const fs::path temporary = path.string() + ".tmp";
  {
    std::ofstream out(temporary);
    out << text;
    if (!out.flush()) throw std::runtime_error("cannot write " + temporary.string());
  }
  fs::rename(temporary, path);  // containerd watches the dir: it never sees half a file
}

}  // namespace

PodNetwork pod_network(int slot) {
  if (slot < 0 || slot >= kPodNetworkSlots) {
    throw std::invalid_argument("pod network slot " + std::to_string(slot) + " is not in 0.." +
                                std::to_string(kPodNetworkSlots - 1));
  }
  const std::string prefix = "10.200." + std::to_string(slot) + ".";
  return {.slot = slot,
          .bridge = "tailor-br" + std::to_string(slot),
          .subnet = prefix + "0/24",
          .gateway = prefix + "1",
          .service_cidr = "10.201." + std::to_string(slot) + ".0/24",
          .cluster_dns = "10.201." + std::to_string(slot) + ".10"};
}

std::string pod_network_conflist(const PodNetwork& network, const fs::path& ipam_dir) {
  const bj::object ipam{
      {"type", "host-local"},
      {"ranges",
       bj::array{bj::array{bj::object{{"subnet", network.subnet}, {"gateway", network.gateway}}}}},
      {"routes", bj::array{bj::object{{"dst", "0.0.0.0/0"}}}},
      {"dataDir", ipam_dir.string()}};
  const bj::object bridge{{"type", "bridge"}, {"bridge", network.bridge}, {"isGateway", true},
                          {"ipMasq", false},  {"hairpinMode", true},      {"ipam", ipam}};
  const bj::object conflist{{"cniVersion", "1.0.0"},
                            {"name", "tailor-pods-" + std::to_string(network.slot)},
                            {"plugins", bj::array{bridge}}};
  return bj::serialize(conflist) + "\n";
}

PodNetwork set_up_pod_network(const fs::path& containerd_dir) {
  for (int slot = 0; slot < kPodNetworkSlots; ++slot) {
    const PodNetwork network = pod_network(slot);
    try {
      run_command({"ip", "link", "add", network.bridge, "type", "bridge"});
    } catch (const std::runtime_error& e) {
      if (taken(e)) continue;
      throw std::runtime_error("cannot create the pod network's bridge " + network.bridge + ": " +
                               e.what());
    }
    try {
      // The gateway's address now rather than at the first pod (the bridge plugin keeps an
      // address equal to its own): the cluster DNS listens on it before any pod runs.
      run_command({"ip", "addr", "add", network.gateway + "/24", "dev", network.bridge});
      run_command({"ip", "link", "set", network.bridge, "up"});
      fs::create_directories(containerd_dir / "cni");
      write_file(containerd_dir / "cni" / kConflistName,
                 pod_network_conflist(network, containerd_dir / "cni-ipam"));
    } catch (const std::exception&) {
      run_command({"ip", "link", "del", network.bridge});
      throw;
    }
    return network;
  }
  throw std::runtime_error("no pod network free on this machine: bridges tailor-br0 to tailor-br" +
                           std::to_string(kPodNetworkSlots - 1) +
                           " all exist (`ip link del` those of environments that are gone)");
}

void add_cluster_dns_address(const PodNetwork& network) {
  run_command({"ip", "addr", "add", network.cluster_dns + "/32", "dev", network.bridge});
}

}  // namespace tailor::cli
