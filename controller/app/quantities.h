// The recommender works in cores and bytes (doubles); the API in Quantities. Conversions round
// up to whole millicores and whole bytes, so a recommendation is never below what was computed.
#pragma once

#include "kube/model/resources.h"
#include "recommender/resources.h"

namespace tailor::controller {

kube::ResourceList to_resource_list(const recommender::Resources& r);
recommender::Resources to_resources(const kube::ResourceList& list);

}  // namespace tailor::controller
