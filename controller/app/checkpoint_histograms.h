// The vpa strategy's checkpoint in the shape of VPA's VerticalPodAutoscalerCheckpoint status:
// cpuHistogram and memoryHistogram ({referenceTimestamp, totalWeight, bucketWeights: bucket
// index -> weight scaled so the largest is 10000}) next to firstSampleStart, lastSampleStart
// and totalSamplesCount. Those fields are the model: a VerticalScalingCheckpoint written for
// the vpa strategy carries them instead of the compact `state` text, and is restored from them,
// so what `kubectl get vscp -o yaml` shows is what a restarted controller recommends from.
#pragma once

#include <boost/json.hpp>
#include <string>

namespace tailor::controller {

// Adds the histograms and sample fields of a vpa-strategy state ("v1;...") to `status`.
// Throws recommender::CheckpointError when the state is not one.
void put_vpa_histograms(const std::string& state, boost::json::object& status);

// Whether the status carries VPA-shaped histograms.
bool has_vpa_histograms(const boost::json::value& status);

// The vpa-strategy state that those status fields describe (bit-for-bit the one they were
// written from). Throws recommender::CheckpointError naming the field that is wrong.
std::string vpa_state_from_histograms(const boost::json::value& status);

}  // namespace tailor::controller
