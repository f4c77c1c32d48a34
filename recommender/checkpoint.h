#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "recommender/resources.h"

namespace tailor::recommender {

class DecayingHistogram;
class VpaContainerModel;

// VPA's HistogramCheckpoint: weights scaled so the largest bucket is 10000, zeros dropped, and
// the real total kept, so a restored histogram has the same percentiles.
struct HistogramCheckpoint {
  Seconds reference = 0;
  double total_weight = 0;
  std::vector<std::pair<int, std::uint32_t>> bucket_weights;  // (bucket, scaled weight)
};

// The durable part of a container's usage model (what a VerticalScalingCheckpoint stores).
struct ModelCheckpoint {
  Seconds first_sample = 0;
  Seconds last_sample = 0;
  long total_samples = 0;
  HistogramCheckpoint cpu;
  HistogramCheckpoint memory;
};

class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

HistogramCheckpoint save_histogram(const DecayingHistogram& h);
// Adds the checkpoint's weights to `h`. Throws CheckpointError (saying what is wrong) for a
// bucket out of range, a negative or non-finite total, or weights without a total.
void load_histogram(const HistogramCheckpoint& c, DecayingHistogram& h);

// Compact text form, e.g. "v1;0;86100;288;0;12.5;3:10000,4:215;0;1;40:10000" (about 10 bytes
// per non-empty bucket). parse_checkpoint throws CheckpointError on anything malformed.
std::string format_checkpoint(const ModelCheckpoint& c);
ModelCheckpoint parse_checkpoint(const std::string& text);

}  // namespace tailor::recommender
