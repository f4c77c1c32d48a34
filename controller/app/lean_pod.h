// What the pod informer keeps of a pod. At 100,000 pods every dropped field is megabytes
// (bench/RESULTS.md "Scale"), so the controller's copy holds only what its passes, the actuator
// and the usage stream read.
#pragma once

#include "controller/kube/model/pod.h"

namespace tailor::controller {

// Keeps: metadata (labels, owners, uid, generation, deletion, the mirror-pod annotation), the
// containers' names, resources and resize policies, phase, QoS class, observed generation, the
// Ready / PodResizePending / PodResizeInProgress conditions, and per container status its
// restart count, readiness, allocated and actual resources and the last termination when it was
// an OOM kill (reason and time). Drops images, container ids, IPs, other annotations, other
// conditions and container states; vectors are cut to size.
kube::Pod lean_pod(kube::Pod pod);

}  // namespace tailor::controller
