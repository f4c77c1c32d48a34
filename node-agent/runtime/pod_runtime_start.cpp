#include "node-agent/runtime/pod_runtime_start.h"

#include <algorithm>
#include <filesystem>

#include "kube/observe/log.h"
#include "node-agent/runtime/container_env.h"
#include "node-agent/runtime/cri_specs.h"

namespace tailor::node::runtime {
namespace fs = std::filesystem;

cri::ContainerFilter in_sandbox(const std::string& sandbox_id,
                                std::optional<cri::ContainerState> state) {
  cri::ContainerFilter filter;
  filter.pod_sandbox_id = sandbox_id;
  filter.state = state;
  return filter;
}

std::map<std::string, Attempts> attempts_in(cri::RuntimeService& runtime,
                                            const std::string& sandbox_id) {
  std::map<std::string, Attempts> out;
  for (auto& container : runtime.list_containers(in_sandbox(sandbox_id))) {
    out[container.name].push_back(std::move(container));
  }
  for (auto& [name, attempts] : out) {
    std::sort(attempts.begin(), attempts.end(),
              [](const auto& a, const auto& b) { return a.attempt > b.attempt; });
  }
  return out;
}

ContainerStarter::ContainerStarter(cri::RuntimeService& runtime, cri::ImageService& images,
                                   const PodRuntimeOptions& options)
    : runtime_(runtime), images_(images), options_(options) {}

void ContainerStarter::start_attempt(PodRecord& rec, const RuntimePod& pod,
                                     const kube::Container& container, std::uint32_t attempt,
                                     const cri::ResourceAmounts& amounts, const Attempts& attempts,
                                     ObservedContainer& observed) {
  const auto image = resolve_image(rec, container, observed);
  if (!image || !may_run(pod, container, *image, observed)) return;
  const auto id = create(rec, pod, container, attempt, image->id, amounts, observed);
  if (!id) return;
  start_created(*id, observed);
  observed.current = status_of(rec, *id);
  remove_older(rec, pod.pod, attempts, attempt);
  kube::log::info("Started container", {{"pod", log_ref(pod.pod)},
                                        {"container", container.name},
                                        {"attempt", static_cast<std::int64_t>(attempt)}});
}

void ContainerStarter::start_created(const std::string& id, ObservedContainer& observed) {
  try {
    runtime_.start_container(id);
  } catch (const cri::CriError& e) {
    observed.waiting_reason = "RunContainerError";
    observed.waiting_message = e.what();
  }
}

void ContainerStarter::stop_lost(const std::string& id, std::int64_t grace_seconds) {
  try {
    runtime_.stop_container(id, grace_seconds);
  } catch (const cri::CriError& e) {
    kube::log::error(e, "Stopping a container in unknown state failed", {{"container", id}});
  }
}

cri::ContainerStatus ContainerStarter::status_of(PodRecord& rec, const std::string& id) {
  if (auto it = rec.exited.find(id); it != rec.exited.end()) return it->second;
  cri::ContainerStatus status = runtime_.container_status(id);
  if (status.state == cri::ContainerState::Exited) rec.exited[id] = status;
  return status;
}

bool ContainerStarter::may_run(const RuntimePod& pod, const kube::Container& container,
                               const cri::ImageInfo& image, ObservedContainer& observed) {
  const auto violation = run_as_non_root_violation(pod.pod, container.name,
                                                   container_identity(pod, container.name), image);
  if (!violation) return true;
  observed.waiting_reason = "CreateContainerConfigError";
  observed.waiting_message = *violation;
  return false;
}

std::optional<cri::ImageInfo> ContainerStarter::resolve_image(PodRecord& rec,
                                                              const kube::Container& container,
                                                              ObservedContainer& observed) {
  const auto image = images_.image_status(container.image);
  if (!image) {
    const int failures = rec.pull_failures[container.name]++;
    observed.waiting_reason = failures == 0 ? "ErrImagePull" : "ImagePullBackOff";
    observed.waiting_message =
        failures == 0 ? "failed to pull image \"" + container.image +
                            "\": not present on the node, and embedded nodes never pull images"
                      : "Back-off pulling image \"" + container.image + "\"";
    return std::nullopt;
  }
  rec.pull_failures.erase(container.name);
  observed.image = image->repo_tags.empty() ? container.image : image->repo_tags.front();
  rec.images[container.name] = observed.image;
  return image;
}

std::optional<std::string> ContainerStarter::create(
    PodRecord& rec, const RuntimePod& pod, const kube::Container& container, std::uint32_t attempt,
    const std::string& image_id, const cri::ResourceAmounts& amounts, ObservedContainer& observed) {
  try {
    const cri::ContainerSpec spec = container_spec(pod, container, attempt, image_id, amounts,
                                                   options_, rec.volumes.paths, rec.pod_ip);
    const cri::PodSandboxSpec sandbox = sandbox_spec(pod, options_);
    if (!sandbox.log_directory.empty()) {
      fs::create_directories(fs::path(sandbox.log_directory) / container.name);
    }
    return runtime_.create_container(rec.sandbox_id, spec, sandbox);
  } catch (const ContainerConfigError& e) {
    observed.waiting_reason = "CreateContainerConfigError";
    observed.waiting_message = e.what();
    return std::nullopt;
  } catch (const std::exception& e) {
    observed.waiting_reason = "CreateContainerError";
    observed.waiting_message = e.what();
    return std::nullopt;
  }
}

void ContainerStarter::remove_older(PodRecord& rec, const kube::Pod& pod, const Attempts& attempts,
                                    std::uint32_t attempt) {
  for (const auto& old : attempts) {
    if (old.attempt + 1 >= attempt) continue;
    try {
      runtime_.remove_container(old.id);
      rec.exited.erase(old.id);
    } catch (const cri::CriError& e) {
      kube::log::error(e, "Failed to remove an old container", {{"pod", log_ref(pod)}});
    }
  }
}

}  // namespace tailor::node::runtime
