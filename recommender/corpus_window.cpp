#include "recommender/corpus_window.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace tailor::recommender {
namespace {

constexpr int kSamples = 30;  // 10-second samples in a 5-minute window
// Memory moves little between samples outside transients (allocator churn).
constexpr double kMemoryJitter = 0.005;

double round_cores(double v) { return std::round(v * 1e5) / 1e5; }

}  // namespace

TraceWindow realize_window(const WindowShape& shape, Seconds start, CorpusRandom& random) {
  std::array<double, kSamples> cpu{}, mem{};
  // exp(σz − σ²/2) has mean 1: the level is the window's expected mean.
  const double s = shape.cpu_spread;
  for (double& c : cpu) c = shape.cpu * std::exp(s * random.normal() - 0.5 * s * s);
  for (double& m : mem) {
    m = shape.memory * std::max(0.5, 1.0 + kMemoryJitter * random.normal());
  }
  if (shape.memory_burst > 0) {
    // A transient lasts a few samples and decays (a request's buffers, a GC cycle's garbage).
    const int at = random.integer(0, kSamples - 1);
    for (int i = 0; i < 3 && at + i < kSamples; ++i) {
      mem[at + i] += shape.memory_burst * (1.0 - 0.35 * i);
    }
  }
  double cpu_sum = 0, mem_sum = 0;
  for (int i = 0; i < kSamples; ++i) cpu_sum += cpu[i], mem_sum += mem[i];
  std::array<double, kSamples> sorted = cpu;
  std::sort(sorted.begin(), sorted.end());
  TraceWindow w;
  w.start = start;
  const double mean = cpu_sum / kSamples;
  // Nearest rank: the 29th of 30 samples.
  const double p95 = std::max(mean, sorted[static_cast<int>(std::ceil(0.95 * kSamples)) - 1]);
  w.avg_cpu = round_cores(mean);
  w.p95_cpu = round_cores(p95);
  w.max_cpu = round_cores(sorted.back());
  w.avg_mem = std::round(mem_sum / kSamples);
  w.max_mem = std::round(*std::max_element(mem.begin(), mem.end()));
  return w;
}

}  // namespace tailor::recommender
