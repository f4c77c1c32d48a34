#include "controller/app/checkpoint_histograms.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>

#include "kube/model/time.h"
#include "recommender/checkpoint.h"

namespace tailor::controller {
namespace {

namespace bj = boost::json;
using recommender::CheckpointError;
using recommender::HistogramCheckpoint;
using recommender::Seconds;

constexpr const char* kHistograms[] = {"cpuHistogram", "memoryHistogram"};

std::string at_seconds(Seconds s) {
  return kube::format_rfc3339(kube::TimePoint(std::chrono::seconds(s)));
}

bj::object histogram_json(const HistogramCheckpoint& h) {
  bj::object weights;
  for (const auto& [bucket, weight] : h.bucket_weights) weights[std::to_string(bucket)] = weight;
  return bj::object{{"referenceTimestamp", at_seconds(h.reference)},
                    {"totalWeight", h.total_weight},
                    {"bucketWeights", std::move(weights)}};
}

const bj::value* field(const bj::value& v, std::string_view key) {
  return v.is_object() ? v.as_object().if_contains(key) : nullptr;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw CheckpointError("status." + path + ": " + what);
}

Seconds seconds_at(const bj::value& v, std::string_view key, const std::string& path) {
  const bj::value* f = field(v, key);
  if (!f) return 0;
  if (!f->is_string()) fail(path, "not a date-time string");
  try {
    return std::chrono::duration_cast<std::chrono::seconds>(
               kube::parse_rfc3339(f->as_string()).time_since_epoch())
        .count();
  } catch (const std::exception& e) {
    fail(path, e.what());
  }
}

double number_at(const bj::value& v, std::string_view key, const std::string& path) {
  const bj::value* f = field(v, key);
  if (!f) return 0;
  if (!f->is_number()) fail(path, "not a number");
  return f->to_number<double>();
}

std::uint32_t weight(const bj::value& v, const std::string& path) {
  std::int64_t w = 0;
  if (v.is_int64()) {
    w = v.as_int64();
  } else if (v.is_uint64() && v.as_uint64() <= std::numeric_limits<std::uint32_t>::max()) {
    w = static_cast<std::int64_t>(v.as_uint64());
  } else {
    fail(path, "not a whole number");
  }
  if (w < 0 || w > std::numeric_limits<std::uint32_t>::max()) fail(path, "out of range");
  return static_cast<std::uint32_t>(w);
}

HistogramCheckpoint histogram_at(const bj::value& status, const char* name) {
  HistogramCheckpoint h;
  const bj::value* v = field(status, name);
  if (!v) return h;
  const std::string path = name;
  if (!v->is_object()) fail(path, "not an object");
  h.reference = seconds_at(*v, "referenceTimestamp", path + ".referenceTimestamp");
  h.total_weight = number_at(*v, "totalWeight", path + ".totalWeight");
  const bj::value* weights = field(*v, "bucketWeights");
  if (!weights) return h;
  if (!weights->is_object()) fail(path + ".bucketWeights", "not an object");
  for (const auto& [key, w] : weights->as_object()) {
    const std::string at = path + ".bucketWeights." + std::string(key);
    int bucket = 0;
    auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), bucket);
    if (ec != std::errc() || end != key.data() + key.size()) fail(at, "not a bucket index");
    h.bucket_weights.emplace_back(bucket, weight(w, at));
  }
  // The text form lists buckets in order; JSON objects need not keep it.
  std::sort(h.bucket_weights.begin(), h.bucket_weights.end());
  return h;
}

}  // namespace

void put_vpa_histograms(const std::string& state, bj::object& status) {
  const recommender::ModelCheckpoint c = recommender::parse_checkpoint(state);
  status["firstSampleStart"] = at_seconds(c.first_sample);
  status["lastSampleStart"] = at_seconds(c.last_sample);
  status["totalSamplesCount"] = c.total_samples;
  status["cpuHistogram"] = histogram_json(c.cpu);
  status["memoryHistogram"] = histogram_json(c.memory);
}

bool has_vpa_histograms(const bj::value& status) {
  return std::any_of(std::begin(kHistograms), std::end(kHistograms),
                     [&](const char* name) { return field(status, name) != nullptr; });
}

std::string vpa_state_from_histograms(const bj::value& status) {
  recommender::ModelCheckpoint c;
  c.first_sample = seconds_at(status, "firstSampleStart", "firstSampleStart");
  c.last_sample = seconds_at(status, "lastSampleStart", "lastSampleStart");
  const bj::value* count = field(status, "totalSamplesCount");
  if (count && !count->is_int64() && !count->is_uint64()) {
    fail("totalSamplesCount", "not a whole number");
  }
  c.total_samples = count ? count->to_number<long>() : 0;
  c.cpu = histogram_at(status, kHistograms[0]);
  c.memory = histogram_at(status, kHistograms[1]);
  const std::string state = recommender::format_checkpoint(c);
  recommender::parse_checkpoint(state);  // its consistency checks (sample times and count)
  return state;
}

}  // namespace tailor::controller
