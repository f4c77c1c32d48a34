#include "node-agent/runtime/pod_runtime_status_writer.h"

#include <chrono>
#include <stdexcept>

#include "kube/model/time.h"
#include "kube/observe/log.h"

namespace tailor::node::runtime {
namespace {

std::string now_rfc3339() {
  return kube::format_rfc3339(kube::TimePoint(std::chrono::system_clock::now()));
}

}  // namespace

RuntimeStatusWriter::RuntimeStatusWriter(PodApi& api, const PodRuntimeOptions& options)
    : api_(api), options_(options) {}

void RuntimeStatusWriter::write(PodRecord& rec, const kube::Pod& pod,
                                const std::vector<ObservedContainer>& observed) {
  kube::Pod view = pod;
  if (rec.written) view.status.conditions = rec.written->conditions;
  if (rec.start_time.empty()) {
    rec.start_time = pod.status.start_time.empty() ? now_rfc3339() : pod.status.start_time;
  }
  const kube::PodStatus status = runtime_status(view, observed,
                                                {.host_ip = options_.host_ip,
                                                 .pod_ip = rec.pod_ip,
                                                 .start_time = rec.start_time,
                                                 .now = now_rfc3339()});
  std::string mine = runtime_status_patch(status);
  if (mine == rec.last_patch) return;
  try {
    if (!patch(pod, status)) return;
    rec.last_patch = std::move(mine);
    rec.written = status;
  } catch (const std::exception& e) {
    kube::log::error(e, "Failed to write pod status", {{"pod", log_ref(pod)}});
  }
}

bool RuntimeStatusWriter::patch(const kube::Pod& pod, const kube::PodStatus& status) {
  std::optional<kube::Pod> base = pod;
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (api_.patch_pod_status(
            *base, runtime_status_patch(status, &base->status, base->metadata.resource_version))) {
      return true;
    }
    base = api_.get_pod(pod);
    if (!base) return false;
  }
  throw std::runtime_error("pod status kept changing during 5 attempts to write it");
}

}  // namespace tailor::node::runtime
