#include "recommender/corpus.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "recommender/corpus_shapes.h"

namespace tailor::recommender {
namespace {

using corpus::Shape;
using ShapeFn = Shape (*)(CorpusRandom&, std::size_t);

struct FamilyEntry {
  CorpusFamily family;
  ShapeFn shape;
};

const std::vector<FamilyEntry>& entries() {
  static const std::vector<FamilyEntry> all = {
      {{"diurnal", "daily cycle of +-40-80 %, memory following 10-30 % of it", 14},
       corpus::diurnal_shape},
      {{"weekly", "daily cycle with weekends at 25-60 % of weekdays", 21}, corpus::weekly_shape},
      {{"steps", "load steps up 2-4x (day 3-6) and down to 0.3-0.6x (day 8-11), memory with it",
        14},
       corpus::steps_shape},
      {{"growth", "traffic growing linearly to 2-4x, memory to 1.3-2x, on a daily cycle", 14},
       corpus::growth_shape},
      {{"batch", "every 4-24 h a 15-45 min run at 4-10x CPU, memory filling by 50-200 %", 14},
       corpus::batch_shape},
      {{"spikes", "every 1-3 days a 1-2 window spike: 3-10x CPU, +30-100 % memory peak", 14},
       corpus::spikes_shape},
      {{"noisy", "noisy neighbour: 1-6 h episodes of 1.3-2x CPU with ragged windows", 14},
       corpus::noisy_shape},
      {{"tiny", "2-15 m CPU and 20-150 MiB, under the minimums, daily 3x bursts", 14},
       corpus::tiny_shape},
      {{"leak", "memory leaking 50-150 % over 1-3 days, reset by restarts", 14},
       corpus::leak_shape},
      {{"jvm", "heap filling to a ceiling (1.5-3x base) in 6-36 h, deploys every 3-7 days", 14},
       corpus::jvm_shape},
      {{"startup", "deploys every 1-3 days: 3-8x CPU warm-up, memory overshoot 30-80 %", 14},
       corpus::startup_shape},
      {{"gaps", "3-6 absences of 2-18 h (new pods), each return a short spike", 14},
       corpus::gaps_shape},
  };
  return all;
}

// FNV-1a: a stable hash of the family name for its seeds.
std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

double round_up(double v, double step) { return std::ceil(v / step) * step; }

// A user's sizing from the first day of load, with the usual headroom.
void set_as_run_limits(ContainerSeries& s) {
  double cpu = 0, memory = 0;
  for (const TraceWindow& w : s.windows) {
    if (w.start >= s.windows.front().start + kDay) break;
    cpu = std::max(cpu, w.p95_cpu);
    memory = std::max(memory, w.max_mem);
  }
  const double cpu_limit = round_up(2 * cpu, 0.05),
               memory_limit = round_up(1.5 * memory, 64 * kMiB);
  for (TraceWindow& w : s.windows) w.cpu_limit = cpu_limit, w.memory_limit = memory_limit;
  s.has_limits = true;
}

}  // namespace

const std::vector<CorpusFamily>& corpus_families() {
  static const std::vector<CorpusFamily> all = [] {
    std::vector<CorpusFamily> f;
    for (const auto& e : entries()) f.push_back(e.family);
    return f;
  }();
  return all;
}

ContainerSeries generate_series(const std::string& family, std::uint64_t seed,
                                const std::string& container) {
  const auto& all = entries();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const FamilyEntry& e) { return family == e.family.name; });
  if (it == all.end()) throw std::invalid_argument("unknown corpus family '" + family + "'");
  CorpusRandom random(seed);
  const std::size_t n = static_cast<std::size_t>(it->family.days) * kDay / corpus::kWindow;
  const Shape shape = it->shape(random, n);
  ContainerSeries s;
  s.container = container;
  s.window = corpus::kWindow;
  for (std::size_t i = 0; i < n; ++i) {
    if (!shape[i].present) continue;
    s.windows.push_back(realize_window(shape[i], corpus::window_start(i), random));
  }
  set_as_run_limits(s);
  return s;
}

std::vector<CorpusSeries> generate_corpus(std::uint64_t seed, int per_family) {
  std::vector<CorpusSeries> out;
  for (const CorpusFamily& f : corpus_families()) {
    for (int k = 0; k < per_family; ++k) {
      // One SplitMix step decorrelates neighbouring seeds and indices.
      CorpusRandom mix(seed ^ fnv1a(f.name) ^ (0x9E3779B97F4A7C15ull * (k + 1)));
      CorpusSeries c;
      c.family = f.name;
      c.index = k;
      c.held_out = k % 2 == 1;
      c.series = generate_series(f.name, mix.next(), c.family + "-" + std::to_string(k));
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace tailor::recommender
