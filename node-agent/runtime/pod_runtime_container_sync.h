// One spec container of a pod brought to what the pod's restartPolicy says, on each sync: the
// first attempt started; an attempt the runtime holds as created started; an exited one restarted
// when the policy says so, at once the first time, then after the CrashLoopBackOff delay (until
// then the container waits with reason CrashLoopBackOff).
#pragma once

#include "kube/model/pod.h"
#include "node-agent/cri/cri_client.h"
#include "node-agent/runtime/pod_runtime.h"
#include "node-agent/runtime/pod_runtime_records.h"
#include "node-agent/runtime/pod_runtime_start.h"
#include "node-agent/runtime/pod_runtime_status.h"

namespace tailor::node::runtime {

// What the runtime shows of `container` after bringing it on; `attempts` are the container's
// attempts before. `amounts` are what the node allocated to it.
ObservedContainer sync_container(ContainerStarter& starter, const PodRuntimeOptions& options,
                                 PodRecord& rec, const RuntimePod& pod,
                                 const kube::Container& container, const Attempts& attempts,
                                 const cri::ResourceAmounts& amounts);

}  // namespace tailor::node::runtime
