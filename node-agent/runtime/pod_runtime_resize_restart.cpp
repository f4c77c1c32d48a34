#include "node-agent/runtime/pod_runtime_resize_restart.h"

#include <stdexcept>

namespace tailor::node::runtime {
namespace {

std::string sandbox_of(const PodRecord& rec, const kube::Pod& pod, const std::string& name) {
  if (rec.sandbox_id.empty()) {
    throw std::runtime_error("restarting container " + name + ": pod " + pod.metadata.namespace_ +
                             "/" + pod.metadata.name + " has no sandbox on this node");
  }
  return rec.sandbox_id;
}

}  // namespace

const kube::Container& spec_container(const kube::Pod& pod, const std::string& name) {
  const kube::Container* container = kube::find_container(pod.spec, name);
  if (!container) {
    throw std::invalid_argument("pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                " has no container \"" + name + "\"");
  }
  return *container;
}

RuntimePod runtime_pod(const PodRecord& rec, const kube::Pod& pod) {
  if (!rec.run) {
    throw std::runtime_error("pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                             " is not run by this node's pod runtime");
  }
  return RuntimePod{pod, *rec.run};
}

ResizeRestart::ResizeRestart(cri::RuntimeService& runtime, ContainerStarter& starter)
    : runtime_(runtime), starter_(starter) {}

void ResizeRestart::stop_running(const PodRecord& rec, const kube::Pod& pod,
                                 const std::string& name, std::int64_t grace) {
  auto attempts = attempts_in(runtime_, sandbox_of(rec, pod, name));
  const Attempts& mine = attempts[name];
  if (!mine.empty() && mine.front().state == cri::ContainerState::Running) {
    runtime_.stop_container(mine.front().id, grace);
  }
}

void ResizeRestart::start_next(PodRecord& rec, const RuntimePod& pod, const std::string& name,
                               const cri::ResourceAmounts& allocated) {
  const kube::Container& container = spec_container(pod.pod, name);
  auto attempts = attempts_in(runtime_, sandbox_of(rec, pod.pod, name));
  const Attempts& mine = attempts[name];
  const std::uint32_t attempt = mine.empty() ? 0 : mine.front().attempt + 1;
  ObservedContainer observed{.name = name, .image = container.image};
  starter_.start_attempt(rec, pod, container, attempt, allocated, mine, observed);
  if (!observed.waiting_reason.empty()) {
    throw std::runtime_error("restarting container " + name + ": " + observed.waiting_reason +
                             ": " + observed.waiting_message);
  }
  rec.last_patch.clear();  // the next sync reports the new restart count
}

}  // namespace tailor::node::runtime
