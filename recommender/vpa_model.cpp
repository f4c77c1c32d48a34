#include "recommender/vpa_model.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tailor::recommender {
namespace {
// floor() for the non-negative amounts here; the integer conversion is much cheaper than the
// SSE2 floor sequence and exact below 2^53.
double whole(double v) {
  return v < 9e15 ? static_cast<double>(static_cast<std::int64_t>(v)) : std::floor(v);
}
bool valid_usage(double v) { return std::isfinite(v) && v >= 0; }
}  // namespace

VpaContainerModel::VpaContainerModel(const VpaModelConfig& config)
    : config_(config),
      cpu_buckets_(&cpu_millicore_buckets()),
      cpu_(cpu_histogram_options(), config.cpu_half_life),
      memory_(memory_histogram_options(), config.memory_half_life) {}

bool VpaContainerModel::add_cpu_sample(Seconds start, double cores, double request_cores) {
  if (!valid_usage(cores) || (has_cpu_ && start <= last_cpu_sample_)) return false;
  if (request_cores != last_request_) [[unlikely]] {
    last_request_ = request_cores;
    const double valid = valid_usage(request_cores) ? request_cores : 0;
    last_weight_ =
        std::max(MillicoreBuckets::quantized_cores(valid * 1000.0), config_.min_cpu_sample_weight);
  }
  // Weighting by the request makes history decay faster after the request grows, which is how
  // VPA reacts to CPU starvation. The bucket comes from the whole millicores (VPA's
  // ResourceAmount); usage and weight were validated above.
  cpu_.add_to_bucket(cpu_buckets_->find_bucket(cores), last_weight_, start);
  // Samples only move forward (checked above), and a restored model's first sample is not
  // after its last, so only the first sample can set first_sample_.
  if (!has_cpu_) [[unlikely]] {
    first_sample_ = start;
    has_cpu_ = true;
  }
  last_cpu_sample_ = start;
  last_sample_ = start;
  ++total_samples_;
  return true;
}

bool VpaContainerModel::add_memory(Seconds start, double bytes, bool oom) {
  if (!valid_usage(bytes) || (!oom && has_memory_ && start < last_memory_sample_)) return false;
  bytes = whole(bytes);
  last_memory_sample_ = start;
  if (!has_memory_) window_end_ = start;
  has_memory_ = true;
  bool add_new_peak = false;
  if (start < window_end_) {
    const double old_peak = max_memory_peak();
    if (old_peak != 0 && bytes > old_peak) {
      memory_.subtract_sample(old_peak, 1.0, window_end_);
      add_new_peak = true;
    }
  } else {
    const Seconds interval = config_.memory_aggregation_interval;
    window_end_ += (start - window_end_) / interval * interval + interval;
    memory_peak_ = 0;
    oom_peak_ = 0;
    add_new_peak = true;
  }
  if (add_new_peak) {
    // VPA stamps each peak with its window end, so a whole day's peak decays as one sample.
    memory_.add_sample(bytes, 1.0, window_end_);
    (oom ? oom_peak_ : memory_peak_) = bytes;
  }
  return true;
}

bool VpaContainerModel::record_oom(Seconds time, double requested_bytes) {
  if (!valid_usage(requested_bytes)) return false;
  if (has_memory_ && time < window_end_ - config_.memory_aggregation_interval) return false;
  // The OOM peak is left out so that repeated OOMs do not compound.
  const double used = std::max(std::floor(requested_bytes), memory_peak_);
  const double needed = std::max(used + std::floor(config_.oom_min_bump_bytes),
                                 std::floor(used * config_.oom_bump_ratio));
  return add_memory(time, needed, true);
}

ModelCheckpoint VpaContainerModel::save() const {
  ModelCheckpoint c;
  c.first_sample = first_sample_;
  c.last_sample = last_sample_;
  c.total_samples = total_samples_;
  c.cpu = save_histogram(cpu_);
  c.memory = save_histogram(memory_);
  return c;
}

void VpaContainerModel::load(const ModelCheckpoint& c) {
  if (has_cpu_ || has_memory_) throw CheckpointError("checkpoint: model already has samples");
  if (c.last_sample < c.first_sample || c.total_samples < 0) {
    throw CheckpointError("checkpoint: sample times or count are inconsistent");
  }
  VpaContainerModel restored(config_);
  load_histogram(c.cpu, restored.cpu_);
  load_histogram(c.memory, restored.memory_);
  restored.first_sample_ = c.first_sample;
  restored.last_sample_ = c.last_sample;
  restored.last_cpu_sample_ = c.last_sample;
  restored.total_samples_ = c.total_samples;
  restored.has_cpu_ = c.total_samples > 0;
  *this = std::move(restored);
}

double VpaContainerModel::confidence() const {
  const double span_days = static_cast<double>(last_sample_ - first_sample_) / kDay;
  const double samples_days = static_cast<double>(total_samples_) / (60 * 24);
  return std::min(span_days, samples_days);
}

std::size_t VpaContainerModel::state_bytes() const {
  return sizeof(*this) - sizeof(cpu_) - sizeof(memory_) + cpu_.state_bytes() +
         memory_.state_bytes();
}

}  // namespace tailor::recommender
