// What a pass knows of each workload container under a policy, for its tailor_workload_* series
// (workload_metrics.h): the recommendation in the policy's status after the pass, and the
// requests, limits and pod count of the pods the pass assigned to the policy.
#pragma once

#include "controller/app/reconcile.h"
#include "controller/app/workload_metrics.h"

namespace tailor::controller {

PassWorkloads pass_workloads(const PassInputs& in, const PassResult& result);

}  // namespace tailor::controller
