// The identity a container's processes run with, as the kubelet derives it from the pod's and
// the container's securityContext (the container's field wins over the pod's, field by field),
// and the kubelet's runAsNonRoot check against it and the image's user (pure). A failed check
// keeps the container from being created: CreateContainerConfigError with the kubelet's words.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kube/model/pod.h"
#include "node-agent/cri/cri_client.h"

namespace tailor::node::runtime {

struct SecurityIdentity {
  std::optional<std::int64_t> run_as_user{};
  std::optional<std::int64_t> run_as_group{};
  std::optional<bool> run_as_non_root{};
  bool operator==(const SecurityIdentity&) const = default;
};

// Each field from `container` when it sets it, else from `pod`.
SecurityIdentity effective_identity(const SecurityIdentity& pod, const SecurityIdentity& container);

// Why `container` may not run under runAsNonRoot, in the kubelet's words; nullopt when it may.
// Without runAsUser the image's user decides; an image naming no user runs as root.
std::optional<std::string> run_as_non_root_violation(const kube::Pod& pod,
                                                     const std::string& container,
                                                     const SecurityIdentity& identity,
                                                     const cri::ImageInfo& image);

}  // namespace tailor::node::runtime
