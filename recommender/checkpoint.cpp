#include "recommender/checkpoint.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>

#include "recommender/decaying_histogram.h"

namespace tailor::recommender {
namespace {

constexpr double kMaxCheckpointWeight = 10000;

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t begin = 0;
  for (;;) {
    std::size_t end = s.find(sep, begin);
    out.push_back(s.substr(begin, end - begin));
    if (end == std::string::npos) return out;
    begin = end + 1;
  }
}

template <typename T>
T number(const std::string& field, const char* what) {
  T value{};
  auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || field.empty()) {
    throw CheckpointError(std::string("checkpoint: ") + what + " is not a number: '" + field + "'");
  }
  return value;
}

void format_histogram(std::ostringstream& out, const HistogramCheckpoint& h) {
  out << ';' << h.reference << ';' << h.total_weight << ';';
  for (std::size_t i = 0; i < h.bucket_weights.size(); ++i) {
    out << (i ? "," : "") << h.bucket_weights[i].first << ':' << h.bucket_weights[i].second;
  }
}

HistogramCheckpoint parse_histogram(const std::string& reference, const std::string& total,
                                    const std::string& buckets, const char* which) {
  HistogramCheckpoint h;
  h.reference = number<Seconds>(reference, "histogram reference");
  h.total_weight = number<double>(total, "histogram total weight");
  if (buckets.empty()) return h;
  for (const std::string& pair : split(buckets, ',')) {
    const auto kv = split(pair, ':');
    if (kv.size() != 2) {
      throw CheckpointError(std::string("checkpoint: ") + which + " bucket '" + pair +
                            "' is not bucket:weight");
    }
    h.bucket_weights.emplace_back(number<int>(kv[0], "bucket index"),
                                  number<std::uint32_t>(kv[1], "bucket weight"));
  }
  return h;
}

}  // namespace

HistogramCheckpoint save_histogram(const DecayingHistogram& h) {
  HistogramCheckpoint c;
  c.reference = h.reference();
  // A histogram with no bucket above epsilon saves no total: a restore would drop it anyway (as
  // VPA's LoadFromCheckpoint ignores a total without weights), so the save is what restores.
  if (h.empty()) return c;
  c.total_weight = h.total_weight();
  double max = 0;
  for (int b = h.min_bucket(); b <= h.max_bucket(); ++b) max = std::max(max, h.bucket_weight(b));
  if (!(max > 0)) return c;
  const double ratio = kMaxCheckpointWeight / max;
  for (int b = h.min_bucket(); b <= h.max_bucket(); ++b) {
    const auto w = static_cast<std::uint32_t>(std::floor(h.bucket_weight(b) * ratio + 0.5));
    if (w > 0) c.bucket_weights.emplace_back(b, w);
  }
  return c;
}

void load_histogram(const HistogramCheckpoint& c, DecayingHistogram& h) {
  if (!std::isfinite(c.total_weight) || c.total_weight < 0) {
    throw CheckpointError("checkpoint: histogram total weight must be finite and >= 0");
  }
  // Bucket weights are floats: a larger total would restore as infinite weights, whose next save
  // is NaN (found by fuzz/recommender_checkpoint).
  if (c.total_weight > std::numeric_limits<float>::max()) {
    throw CheckpointError("checkpoint: histogram total weight must be at most 3.4e38 (a float)");
  }
  double sum = 0;
  for (auto [bucket, weight] : c.bucket_weights) {
    if (bucket < 0 || bucket >= h.options().num_buckets()) {
      throw CheckpointError("checkpoint: bucket " + std::to_string(bucket) + " outside [0, " +
                            std::to_string(h.options().num_buckets() - 1) + "]");
    }
    sum += weight;
  }
  if (sum == 0) {
    // As VPA's decaying histogram: the reference is kept even when there are no weights.
    if (c.reference != 0) h.set_reference(c.reference);
    return;
  }
  if (c.total_weight == 0) throw CheckpointError("checkpoint: bucket weights but zero total");
  const double ratio = c.total_weight / sum;
  for (auto [bucket, weight] : c.bucket_weights) h.load_weight(bucket, weight * ratio);
  h.finish_load(c.total_weight);  // the saved total exactly, as VPA's totalWeight += ...
  h.set_reference(c.reference);
}

std::string format_checkpoint(const ModelCheckpoint& c) {
  std::ostringstream out;
  out.precision(17);
  out << "v1;" << c.first_sample << ';' << c.last_sample << ';' << c.total_samples;
  format_histogram(out, c.cpu);
  format_histogram(out, c.memory);
  return out.str();
}

ModelCheckpoint parse_checkpoint(const std::string& text) {
  const auto f = split(text, ';');
  if (f.empty() || f[0] != "v1") {
    throw CheckpointError("checkpoint: unsupported version (want 'v1;...')");
  }
  if (f.size() != 10) {
    throw CheckpointError("checkpoint: has " + std::to_string(f.size()) + " fields, want 10");
  }
  ModelCheckpoint c;
  c.first_sample = number<Seconds>(f[1], "first sample time");
  c.last_sample = number<Seconds>(f[2], "last sample time");
  c.total_samples = number<long>(f[3], "sample count");
  if (c.last_sample < c.first_sample || c.total_samples < 0) {
    throw CheckpointError("checkpoint: sample times or count are inconsistent");
  }
  c.cpu = parse_histogram(f[4], f[5], f[6], "cpu");
  c.memory = parse_histogram(f[7], f[8], f[9], "memory");
  return c;
}

}  // namespace tailor::recommender
