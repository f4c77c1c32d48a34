#include "node-agent/runtime/security_context.h"

namespace tailor::node::runtime {
namespace {

template <typename T>
std::optional<T> either(const std::optional<T>& preferred, const std::optional<T>& fallback) {
  return preferred ? preferred : fallback;
}

// The kubelet's format.Pod: name_namespace(uid).
std::string pod_label(const kube::Pod& pod) {
  return "\"" + pod.metadata.name + "_" + pod.metadata.namespace_ + "(" + pod.metadata.uid + ")\"";
}

}  // namespace

SecurityIdentity effective_identity(const SecurityIdentity& pod,
                                    const SecurityIdentity& container) {
  return {either(container.run_as_user, pod.run_as_user),
          either(container.run_as_group, pod.run_as_group),
          either(container.run_as_non_root, pod.run_as_non_root)};
}

std::optional<std::string> run_as_non_root_violation(const kube::Pod& pod,
                                                     const std::string& container,
                                                     const SecurityIdentity& identity,
                                                     const cri::ImageInfo& image) {
  if (!identity.run_as_non_root.value_or(false)) return std::nullopt;
  const std::string where = "(pod: " + pod_label(pod) + ", container: " + container + ")";
  if (identity.run_as_user) {
    if (*identity.run_as_user != 0) return std::nullopt;
    return "container's runAsUser breaks non-root policy " + where;
  }
  if (!image.uid && !image.username.empty()) {
    return "container has runAsNonRoot and image has non-numeric user (" + image.username +
           "), cannot verify user is non-root " + where;
  }
  if (image.uid.value_or(0) == 0)
    return "container has runAsNonRoot and image will run as root " + where;
  return std::nullopt;
}

}  // namespace tailor::node::runtime
