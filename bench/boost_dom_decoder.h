// Baseline for the decode benchmark: Boost.JSON DOM into the same typed structs (covers the
// fields decode_pod_list reads; no error paths, benchmark use only).
#pragma once

#include <string_view>

#include "kube/model/list.h"

namespace tailor::bench {

kube::PodList decode_pod_list_boost(std::string_view json);

}  // namespace tailor::bench
