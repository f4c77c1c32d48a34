// The ServiceAccount admission plugin, as kube-apiserver runs it on every new pod: a pod naming no
// ServiceAccount gets "default", and unless automountServiceAccountToken says no (the pod's, else
// its ServiceAccount's) it gets the projected kube-api-access-<5 characters> volume (a bound token
// valid 3607 s, the cluster CA from the kube-root-ca.crt ConfigMap, the namespace), mounted
// read-only at /var/run/secrets/kubernetes.io/serviceaccount in every container and init
// container that mounts nothing there already. The node that runs the pod fills the volume.
//
// A pod naming a ServiceAccount that does not exist is refused with kube-apiserver's 403
// (`pods "web" is forbidden: error looking up service account ns/name: serviceaccount "name" not
// found`). Unlike kube-apiserver, a pod of a namespace whose "default" account is not there yet is
// admitted (the controller making it may not have run for a namespace just created): the node then
// reports the token it cannot get (MountVolume.SetUp failed) and tries again on its next sync.
#pragma once

#include <boost/json/fwd.hpp>
#include <optional>
#include <string>

#include "embedded/api/extensions.h"
#include "embedded/storage/object_store.h"

namespace tailor::embedded {

inline constexpr const char* kServiceAccountMountPath =
    "/var/run/secrets/kubernetes.io/serviceaccount";
inline constexpr const char* kRootCaConfigMap = "kube-root-ca.crt";

// Pure: the defaulting and the volume on one new pod; `sa_automount` is the ServiceAccount's
// automountServiceAccountToken (nullopt: unset, or no such ServiceAccount).
void admit_service_account(boost::json::object& pod, std::optional<bool> sa_automount);

// Pure: why a pod naming ServiceAccount `name` (empty: none) in ns is refused, given whether that
// account exists; nullopt when it is admitted ("default" always is).
std::optional<std::string> missing_service_account(const std::string& ns, const std::string& name,
                                                   bool exists);

// The plugin (the store must outlive it).
AdmissionPlugin service_account_admission(const ObjectStore& store);

}  // namespace tailor::embedded
