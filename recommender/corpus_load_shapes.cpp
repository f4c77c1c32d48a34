// Corpus families driven by load: cycles, steps, trends, bursts, spikes, contention, and
// containers too small for the minimums. Every number drawn here is a range real services
// span, not a value tuned to any recommender.
#include <algorithm>

#include "recommender/corpus_shapes.h"

namespace tailor::recommender::corpus {
namespace {

// A daily cycle on a drifting level; memory follows a fraction of the load (caches, buffers).
// `weekend` scales Saturdays and Sundays (1 = no weekly cycle).
Shape cycle(CorpusRandom& r, std::size_t n, double weekend) {
  const Size z = draw_size(r);
  const double amplitude = r.uniform(0.4, 0.8), peak = r.uniform(10, 16);
  const double spread = r.uniform(0.15, 0.35), follow = r.uniform(0.1, 0.3);
  Drift drift;
  Shape s(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int weekday = static_cast<int>(days(i)) % 7;
    const double load = diurnal(i, amplitude, peak) * (weekday >= 5 ? weekend : 1.0);
    s[i] = {true, z.cpu * load * drift.next(r), spread, z.memory * (1 + follow * (load - 1)), 0};
  }
  return s;
}

}  // namespace

Shape diurnal_shape(CorpusRandom& r, std::size_t n) { return cycle(r, n, 1.0); }

Shape weekly_shape(CorpusRandom& r, std::size_t n) { return cycle(r, n, r.uniform(0.25, 0.6)); }

// A level that steps up (a new client, a launch) between days 3 and 6 and down (traffic moved
// away) between days 8 and 11, below where it started; memory steps with it (per-client state).
Shape steps_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  const std::size_t up_at = windows_in(24 * r.uniform(3, 6));
  const std::size_t down_at = windows_in(24 * r.uniform(8, 11));
  const double up = r.uniform(2, 4), down = r.uniform(0.3, 0.6);
  const double follow = r.uniform(0.3, 0.6), spread = r.uniform(0.15, 0.3);
  Drift drift;
  Shape s(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double level = i < up_at ? 1.0 : (i < down_at ? up : down);
    s[i] = {true, z.cpu * level * drift.next(r), spread, z.memory * (1 + follow * (level - 1)), 0};
  }
  return s;
}

// Traffic growing linearly over the series (2-4x by its end) on a daily cycle; memory grows
// more slowly (data held per user).
Shape growth_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  const double amplitude = r.uniform(0.3, 0.6), peak = r.uniform(10, 16);
  const double growth = r.uniform(1, 3), memory_growth = r.uniform(0.3, 1.0);
  Drift drift;
  Shape s(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double t = static_cast<double>(i) / static_cast<double>(n);
    s[i] = {true, z.cpu * diurnal(i, amplitude, peak) * (1 + growth * t) * drift.next(r), 0.2,
            z.memory * (1 + memory_growth * t), 0};
  }
  return s;
}

// A periodic job inside the container (cron, report, compaction): every 4-24 h, 15-45 min at
// 4-10x the CPU, with memory filling during the run and freed after it.
Shape batch_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  const double periods[] = {4, 6, 8, 12, 24};
  const std::size_t period = windows_in(periods[r.integer(0, 4)]);
  const std::size_t length = std::max<std::size_t>(3, windows_in(r.uniform(0.25, 0.75)));
  const std::size_t phase = static_cast<std::size_t>(r.uniform() * static_cast<double>(period));
  const double burst = r.uniform(4, 10), extra = z.memory * r.uniform(0.5, 2.0);
  Drift drift;
  Shape s(n);
  double run_factor = 1;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t at = (i + period - phase) % period;  // windows since the run started
    if (at == 0) run_factor = r.uniform(0.9, 1.1);         // runs differ a little in size
    const double base = z.cpu * 0.5 * drift.next(r);
    if (at < length) {
      const double filled = static_cast<double>(at + 1) / static_cast<double>(length);
      s[i] = {true, base * burst * run_factor, 0.3, z.memory + extra * run_factor * filled, 0};
    } else {
      s[i] = {true, base, 0.2, z.memory, 0};
    }
  }
  return s;
}

// Rare spikes (a retry storm, a cache miss wave): on average every 1-3 days, 1-2 windows at
// 3-10x the CPU, and a memory transient of 30-100 % that shows only in the window's peak.
Shape spikes_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  const double per_window = 1.0 / static_cast<double>(windows_in(24 * r.uniform(1, 3)));
  const double amplitude = r.uniform(0.1, 0.3), peak = r.uniform(10, 16);
  Drift drift;
  Shape s(n);
  for (std::size_t i = 0; i < n; ++i) {
    s[i] = {true, z.cpu * diurnal(i, amplitude, peak) * drift.next(r), 0.2, z.memory, 0};
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (!r.chance(per_window)) continue;
    const double cpu = r.uniform(3, 10), memory = z.memory * r.uniform(0.3, 1.0);
    const std::size_t end = std::min<std::size_t>(n, i + r.integer(1, 2));
    for (std::size_t j = i; j < end; ++j) {
      s[j].cpu *= cpu;
      s[j].cpu_spread = 0.5;
      s[j].memory_burst = memory;
    }
  }
  return s;
}

// A noisy neighbour on the node: for 1-6 h every 12-48 h on average, the container needs
// 1.3-2x the CPU for the same work (cache and memory-bandwidth contention) and its usage within
// the window turns ragged (p95 far above the mean).
Shape noisy_shape(CorpusRandom& r, std::size_t n) {
  const Size z = draw_size(r);
  const double amplitude = r.uniform(0.2, 0.5), peak = r.uniform(10, 16);
  const double per_window = 1.0 / static_cast<double>(windows_in(r.uniform(12, 48)));
  Drift drift;
  Shape s(n);
  std::size_t episode_left = 0;
  double factor = 1, spread = 0.15;
  for (std::size_t i = 0; i < n; ++i) {
    if (episode_left == 0 && r.chance(per_window)) {
      episode_left = windows_in(r.uniform(1, 6));
      factor = r.uniform(1.3, 2.0);
      spread = r.uniform(0.7, 1.0);
    }
    const bool noisy = episode_left > 0;
    if (noisy) --episode_left;
    s[i] = {true, z.cpu * diurnal(i, amplitude, peak) * drift.next(r) * (noisy ? factor : 1),
            noisy ? spread : 0.15, z.memory, 0};
  }
  return s;
}

// Sidecars and idle services: 2-15 millicores and 20-150 MiB, under VPA's 25 m / 250 MiB
// minimums, with a burst to 3x about once a day.
Shape tiny_shape(CorpusRandom& r, std::size_t n) {
  const double cpu = r.log_uniform(0.002, 0.015), memory = r.log_uniform(20 * kMiB, 150 * kMiB);
  const double per_window = 1.0 / static_cast<double>(windows_in(24));
  Drift drift;
  Shape s(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool burst = r.chance(per_window);
    s[i] = {true, cpu * drift.next(r) * (burst ? 3 : 1), 0.4, memory, burst ? 0.2 * memory : 0};
  }
  return s;
}

}  // namespace tailor::recommender::corpus
