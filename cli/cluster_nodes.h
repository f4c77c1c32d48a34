// The node side of `tailor cluster`: each node's private containerd (start, image preload check,
// stop), the removal of what ran on it, and the wait until the nodes report Ready.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace tailor::cli {

// Writes the node's containerd config (scripts/start.sh --config DIR), runs containerd under
// `tailor supervise` (start.sh --run DIR; DIR/containerd.pid, DIR/containerd.supervisor.pid,
// output in DIR/containerd.log), imports the images once it answers (start.sh --images DIR),
// then waits until the CRI lists the preloaded busybox and pause images. Returns the socket
// path.
std::string start_containerd(const std::filesystem::path& scripts,
                             const std::filesystem::path& dir);
// scripts/stop.sh DIR: stops the supervisor, containerd and what is left of its pods.
void stop_containerd(const std::filesystem::path& scripts, const std::filesystem::path& dir);

// Stops and removes every pod the node ran (containers, sandboxes, pod cgroups), through the CRI.
// `volume_root`: where the node's agent made the pods' volumes (its --checkpoint-dir/pods).
void remove_node_pods(const std::filesystem::path& socket, const std::filesystem::path& kubeconfig,
                      const std::filesystem::path& volume_root);

// Imports an OCI archive into the node's containerd (namespace k8s.io, where the CRI looks) and
// waits until the CRI lists `name`.
void import_node_image(const std::string& socket, const std::filesystem::path& archive,
                       const std::string& name);

// Throws, with the tail of its log (next to its pid file), when a process whose pid file is in
// `watched` has exited.
void check_alive(const std::vector<std::filesystem::path>& watched);

// Polls the API until every node has Ready=True; throws when `timeout` passes or a process whose
// pid file is in `watched` exits (with the tail of its log, next to its pid file).
void wait_for_ready_nodes(const std::filesystem::path& kubeconfig,
                          const std::vector<std::string>& nodes,
                          const std::vector<std::filesystem::path>& watched,
                          std::chrono::seconds timeout);

}  // namespace tailor::cli
