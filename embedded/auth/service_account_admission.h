// The ServiceAccount admission plugin, as kube-apiserver runs it on every new pod: a pod naming no
// ServiceAccount gets "default", and unless automountServiceAccountToken says no (the pod's, else
// its ServiceAccount's) it gets the projected kube-api-access-<5 characters> volume (a bound token
// valid 3607 s, the cluster CA from the kube-root-ca.crt ConfigMap, the namespace), mounted
// read-only at /var/run/secrets/kubernetes.io/serviceaccount in every container and init
// container that mounts nothing there already. The node that runs the pod fills the volume.
//
// Unlike kube-apiserver, a pod naming a ServiceAccount that does not exist is admitted (the
// controller making "default" in a new namespace may not have run yet): the node then reports
// the token it cannot get (MountVolume.SetUp failed) and tries again on its next sync.
#pragma once

#include <boost/json/fwd.hpp>
#include <optional>

#include "embedded/api/extensions.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

inline constexpr const char* kServiceAccountMountPath =
    "/var/run/secrets/kubernetes.io/serviceaccount";
inline constexpr const char* kRootCaConfigMap = "kube-root-ca.crt";

// Pure: the defaulting and the volume on one new pod; `sa_automount` is the ServiceAccount's
// automountServiceAccountToken (nullopt: unset, or no such ServiceAccount).
void admit_service_account(boost::json::object& pod, std::optional<bool> sa_automount);

// The plugin (the store must outlive it).
AdmissionPlugin service_account_admission(const ObjectStore& store);

}  // namespace tailor::embedded
