// The default roles and bindings kube-apiserver creates at start (plugin/pkg/auth/authorizer/
// rbac/bootstrappolicy) that matter here: cluster-admin bound to system:masters; discovery
// (system:discovery), self access reviews (system:basic-user) and health/version
// (system:public-info-viewer) for every authenticated user; the aggregated admin, edit and view
// roles with the system:aggregate-to-* roles they gather. Created when absent, never
// overwritten (a cluster's own edits stay).
#pragma once

#include "embedded/storage/object_store.h"

namespace tailor::embedded {

void create_bootstrap_policy(ObjectStore& store);

}  // namespace tailor::embedded
