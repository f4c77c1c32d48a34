// Corpus families driven by the process's life: leaks reset by restarts, heaps that fill to
// their ceiling, start-up spikes after deploys, and absences (scaled to zero, node drained).
#include <algorithm>

#include "recommender/corpus_shapes.h"

namespace tailor::recommender::corpus {
namespace {

// A daily cycle on a drifting level, flat memory: the base the lifecycle shapes change.
Shape steady(CorpusRandom& r, std::size_t n, const Size& z) {
  const double amplitude = r.uniform(0.2, 0.6), peak = r.uniform(10, 16);
  Drift drift;
  Shape s(n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = {true, z.cpu * diurnal(i, amplitude, peak) * drift.next(r), 0.2, z.memory, 0};
  }
  return s;
}

}  // namespace

// A slow leak: memory grows by 50-150 % of its base over 1-3 days until the process restarts
// (its own limit, a liveness probe, a nightly restart) and starts again from the base.
Shape leak_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  Shape s = steady(r, n, z);
  const double period = static_cast<double>(windows_in(24 * r.uniform(1, 3)));
  const double per_window = r.uniform(0.5, 1.5) / period;  // of the base
  std::size_t since = 0, cycle = static_cast<std::size_t>(period * r.uniform(0.8, 1.2));
  for (std::size_t i = 0; i < n; ++i, ++since) {
    if (since == cycle) {
      since = 0;
      cycle = static_cast<std::size_t>(period * r.uniform(0.8, 1.2));
      s[i].cpu *= 3;  // the restart's start-up work
    }
    s[i].memory = z.memory * (1 + per_window * static_cast<double>(since));
  }
  return s;
}

// A JVM-like heap: after each start the heap fills from 40 % of its ceiling (-Xmx, 1.5-3x the
// base size) to the ceiling within 6-36 h and stays there, the collector sawing between 85-95 %
// of the heap and the heap itself; a deploy every 3-7 days starts it again.
Shape jvm_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  Shape s = steady(r, n, z);
  const double ceiling = z.memory * r.uniform(1.5, 3.0);
  const double tau = static_cast<double>(windows_in(r.uniform(6, 36) / 3));  // 95 % at 3τ
  std::size_t since = 0, lifetime = windows_in(24 * r.uniform(3, 7));
  for (std::size_t i = 0; i < n; ++i, ++since) {
    if (since == lifetime) {
      since = 0;
      lifetime = windows_in(24 * r.uniform(3, 7));
    }
    if (since < 2) s[i].cpu *= 2;  // class loading and JIT after a start
    s[i].cpu_spread = 0.3;         // collections
    const double heap = ceiling * (1 - 0.6 * std::exp(-static_cast<double>(since) / tau));
    s[i].memory = heap * r.uniform(0.85, 0.95);
    s[i].memory_burst = heap - s[i].memory;  // the peak reaches the heap just before a GC
  }
  return s;
}

// Deploys every 1-3 days: the pod is gone for 5-10 min (a rollout), then starts with 15-30 min
// at 3-8x the CPU (warm-up, cache fill) and memory overshooting by 30-80 %, settling within
// about an hour.
Shape startup_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  Shape s = steady(r, n, z);
  const double cpu = r.uniform(3, 8), overshoot = r.uniform(0.3, 0.8);
  const double settle = static_cast<double>(windows_in(1)) / 3;  // 95 % settled in an hour
  std::size_t start = 0;
  while (start < n) {
    const std::size_t warm = windows_in(r.uniform(0.25, 0.5));
    for (std::size_t k = 0; start + k < n && k < windows_in(2); ++k) {
      WindowShape& w = s[start + k];
      if (k < warm) w.cpu *= cpu;
      w.memory *= 1 + overshoot * std::exp(-static_cast<double>(k) / settle);
    }
    const std::size_t next = start + windows_in(24 * r.uniform(1, 3));
    const std::size_t away = static_cast<std::size_t>(r.integer(1, 2));
    for (std::size_t k = next; k < std::min(n, next + away); ++k) s[k].present = false;
    start = next + away;
  }
  return s;
}

// Absences of 2-18 h (scaled to zero, a drained node), 3 to 6 of them after the first day and
// a half; each return starts with two windows at twice the CPU.
Shape gaps_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  Shape s = steady(r, n, z);
  const int gaps = r.integer(3, 6);
  for (int g = 0; g < gaps; ++g) {
    const std::size_t from =
        windows_in(36) +
        static_cast<std::size_t>(r.uniform() * static_cast<double>(n - windows_in(60)));
    const std::size_t to = std::min(n, from + windows_in(r.uniform(2, 18)));
    for (std::size_t i = from; i < to; ++i) s[i].present = false;
    for (std::size_t i = to; i < std::min(n, to + 2); ++i) s[i].cpu *= 2;
  }
  return s;
}

}  // namespace tailor::recommender::corpus
