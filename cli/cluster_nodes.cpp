#include "cli/cluster_nodes.h"

#include <stdexcept>
#include <thread>

#include "cli/cluster_process.h"
#include "kube/client/config.h"
#include "kube/client/rest_client.h"
#include "kube/model/decode.h"
#include "node-agent/runtime/pod_runtime.h"

namespace tailor::cli {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

constexpr const char* kImages[] = {"docker.io/library/busybox:latest", "tailor.local/pause:1"};

std::string last_line(const std::string& text) {
  const auto end = text.find_last_not_of("\n");
  if (end == std::string::npos) return {};
  const auto start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// The CRI plugin learns of imported images a moment after the import returns; a pod started
// before that would report a pull failure.
void wait_for_images(const std::string& socket, const std::vector<std::string>& names) {
  auto images = node::cri::connect_image_service({socket, 5s, 5s});
  const auto deadline = std::chrono::steady_clock::now() + 20s;
  for (const std::string& image : names) {
    while (!images->image_status(image)) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("the CRI of " + socket + " does not list " + image);
      }
      std::this_thread::sleep_for(50ms);
    }
  }
}

bool ready(kube::RestClient& client, const std::string& name) {
  try {
    const kube::Node node = kube::decode<kube::Node>(
        kube::JsonInput(client.get({.type = kube::resources::kNodes, .name = name})));
    for (const auto& condition : node.status.conditions) {
      if (condition.type == "Ready") return condition.status == "True";
    }
  } catch (const kube::ApiError& e) {
    if (!e.is_not_found()) throw;
  }
  return false;
}

}  // namespace

void check_alive(const std::vector<fs::path>& watched) {
  for (const auto& pid_file : watched) {
    if (running_pid(pid_file)) continue;
    const fs::path log = pid_file.parent_path() / (pid_file.stem().string() + ".log");
    throw std::runtime_error(pid_file.stem().string() + " (" + pid_file.string() + ") exited; " +
                             log.string() + ":\n" + log_tail(log));
  }
}

std::string start_containerd(const fs::path& scripts, const fs::path& dir) {
  const std::string start = (scripts / "start.sh").string();
  run_command({start, "--config", dir.string()});
  start_supervised({start, "--run", dir.string()}, dir / "containerd.log", dir / "containerd.pid");
  const std::string socket = last_line(run_command({start, "--images", dir.string()}));
  if (socket.empty() || socket.front() != '/') {
    throw std::runtime_error("start.sh " + dir.string() + " did not print its socket");
  }
  wait_for_images(socket, {std::begin(kImages), std::end(kImages)});
  return socket;
}

void import_node_image(const std::string& socket, const fs::path& archive,
                       const std::string& name) {
  run_command({"ctr", "-a", socket, "-n", "k8s.io", "images", "import", archive.string()});
  wait_for_images(socket, {name});
}

void stop_containerd(const fs::path& scripts, const fs::path& dir) {
  run_command({(scripts / "stop.sh").string(), dir.string()});
}

void remove_node_pods(const fs::path& socket, const fs::path& kubeconfig,
                      const fs::path& volume_root) {
  if (!fs::exists(socket)) return;
  auto runtime = node::cri::connect_runtime_service({socket.string(), 10s, 60s});
  auto images = node::cri::connect_image_service({socket.string(), 10s, 10s});
  // The API is not used for orphans, but the runtime needs one; the cluster may be down.
  kube::RestConfig config;
  if (fs::exists(kubeconfig)) {
    config = kube::load_kubeconfig(kubeconfig.string());
  } else {
    config.server = "http://127.0.0.1:1";
  }
  kube::RestClient client(config);
  const auto api = node::runtime::rest_pod_api(client);
  node::runtime::PodRuntime pods(*runtime, *images, *api, {.volume_root = volume_root.string()});
  pods.remove_orphans({});
}

void wait_for_ready_nodes(const fs::path& kubeconfig, const std::vector<std::string>& nodes,
                          const std::vector<fs::path>& watched, std::chrono::seconds timeout) {
  kube::RestConfig config = kube::load_kubeconfig(kubeconfig.string());
  config.max_retries = 0;
  kube::RestClient client(config);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const auto& name : nodes) {
    while (!ready(client, name)) {
      check_alive(watched);
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("node " + name + " was not Ready within " +
                                 std::to_string(timeout.count()) + " s");
      }
      std::this_thread::sleep_for(200ms);
    }
  }
}

}  // namespace tailor::cli
