// The corpus generator: the invariants every window keeps, reproducibility, the split, and one
// test per family pinning the property the family exists for, over several seeds.
#include "recommender/corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>

#include "recommender/trace_writer.h"

namespace tailor::recommender {
namespace {

constexpr double kGiB = 1024.0 * kMiB;
constexpr std::size_t kHalfDay = 144;  // windows
const std::uint64_t kSeeds[] = {1, 2, 3, 4, 5};

ContainerSeries make(const std::string& family, std::uint64_t seed) {
  return generate_series(family, seed, family);
}

std::string bytes(const ContainerSeries& s) {
  std::ostringstream out;
  write_generic_trace(out, s);
  return out.str();
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

std::vector<double> field(const ContainerSeries& s, double TraceWindow::*f) {
  std::vector<double> v;
  for (const auto& w : s.windows) v.push_back(w.*f);
  return v;
}

double mean(const std::vector<double>& v, std::size_t from, std::size_t to) {
  return std::accumulate(v.begin() + from, v.begin() + to, 0.0) / double(to - from);
}

TEST(Corpus, HasTheFamiliesOfIssue14) {
  std::set<std::string> names;
  for (const auto& f : corpus_families()) names.insert(f.name);
  for (const char* want : {"diurnal", "weekly", "steps", "leak", "batch", "spikes", "jvm",
                           "startup", "gaps", "noisy", "growth", "tiny"}) {
    EXPECT_TRUE(names.count(want)) << want;
  }
  EXPECT_THROW(make("sawtooth", 1), std::invalid_argument);
}

TEST(Corpus, EveryWindowKeepsMeanBelowP95BelowMax) {
  for (const auto& f : corpus_families()) {
    for (std::uint64_t seed : kSeeds) {
      const ContainerSeries s = make(f.name, seed);
      ASSERT_GT(s.windows.size(), 1000u) << f.name;
      EXPECT_EQ(s.window, 300);
      EXPECT_TRUE(s.has_limits);
      for (std::size_t i = 0; i < s.windows.size(); ++i) {
        const TraceWindow& w = s.windows[i];
        ASSERT_GT(w.avg_cpu, 0) << f.name << " " << seed << " window " << i;
        ASSERT_LE(w.avg_cpu, w.p95_cpu) << f.name << " " << seed << " window " << i;
        ASSERT_LE(w.p95_cpu, w.max_cpu) << f.name << " " << seed << " window " << i;
        ASSERT_GT(w.avg_mem, 0) << f.name << " " << seed << " window " << i;
        ASSERT_LE(w.avg_mem, w.max_mem) << f.name << " " << seed << " window " << i;
        if (i > 0) {
          ASSERT_GT(w.start, s.windows[i - 1].start);
        }
      }
    }
  }
}

TEST(Corpus, SameSeedSameBytesOtherSeedOtherBytes) {
  for (const auto& f : corpus_families()) {
    EXPECT_EQ(bytes(make(f.name, 7)), bytes(make(f.name, 7))) << f.name;
    EXPECT_NE(bytes(make(f.name, 7)), bytes(make(f.name, 8))) << f.name;
  }
}

TEST(Corpus, WrittenTraceReadsBackExactly) {
  const ContainerSeries s = make("startup", 3);
  std::istringstream in(bytes(s));
  std::vector<ContainerSeries> back;
  TraceDiagnostics diag;
  read_trace_stream(in, "startup.csv", back, diag);
  EXPECT_EQ(diag.rows_rejected, 0u);
  EXPECT_EQ(diag.values_clamped, 0u);
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].window, 300);
  EXPECT_TRUE(back[0].has_limits);
  ASSERT_EQ(back[0].windows.size(), s.windows.size());
  for (std::size_t i = 0; i < s.windows.size(); ++i) {
    const TraceWindow &a = s.windows[i], &b = back[0].windows[i];
    ASSERT_EQ(a.start, b.start);
    ASSERT_EQ(a.avg_cpu, b.avg_cpu);
    ASSERT_EQ(a.p95_cpu, b.p95_cpu);
    ASSERT_EQ(a.max_cpu, b.max_cpu);
    ASSERT_EQ(a.avg_mem, b.avg_mem);
    ASSERT_EQ(a.max_mem, b.max_mem);
    ASSERT_EQ(a.cpu_limit, b.cpu_limit);
    ASSERT_EQ(a.memory_limit, b.memory_limit);
  }
}

TEST(Corpus, SplitsEachFamilyIntoTuningAndHeldOutHalves) {
  const auto corpus = generate_corpus(14, 4);
  ASSERT_EQ(corpus.size(), 4 * corpus_families().size());
  std::set<std::string> names;
  for (const auto& c : corpus) {
    EXPECT_EQ(c.held_out, c.index % 2 == 1);
    EXPECT_EQ(c.series.container, c.family + "-" + std::to_string(c.index));
    names.insert(c.series.container);
  }
  EXPECT_EQ(names.size(), corpus.size());
  const auto again = generate_corpus(14, 4);
  for (std::size_t i = 0; i < corpus.size(); ++i) {
    ASSERT_EQ(bytes(corpus[i].series), bytes(again[i].series));
  }
  // Series of one family differ: each index draws its own shape.
  EXPECT_NE(bytes(corpus[0].series), bytes(corpus[1].series));
}

TEST(Corpus, AsRunLimitsAreTheFirstDaySizingWithHeadroom) {
  const ContainerSeries s = make("diurnal", 1);
  double cpu = 0, mem = 0;
  for (const auto& w : s.windows) {
    if (w.start >= kDay) break;
    cpu = std::max(cpu, w.p95_cpu);
    mem = std::max(mem, w.max_mem);
  }
  EXPECT_GE(s.windows[0].cpu_limit, 2 * cpu);
  EXPECT_LT(s.windows[0].cpu_limit, 2 * cpu + 0.05 + 1e-9);
  EXPECT_GE(s.windows[0].memory_limit, 1.5 * mem);
  EXPECT_LT(s.windows[0].memory_limit, 1.5 * mem + 64 * kMiB);
}

TEST(CorpusFamily, DiurnalPeaksDailyAtTheSameHour) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("diurnal", seed);
    std::vector<double> by_hour(24, 0);
    for (const auto& w : s.windows) by_hour[(w.start % kDay) / kHour] += w.avg_cpu;
    const auto [lo, hi] = std::minmax_element(by_hour.begin(), by_hour.end());
    EXPECT_GT(*hi / *lo, 1.8) << seed;  // ±40 % at least
  }
}

TEST(CorpusFamily, WeeklyWeekendsAreQuieterThanWeekdays) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("weekly", seed);
    double weekday = 0, weekend = 0;
    int weekday_n = 0, weekend_n = 0;
    for (const auto& w : s.windows) {
      const bool sat_sun = (w.start / kDay) % 7 >= 5;
      (sat_sun ? weekend : weekday) += w.avg_cpu;
      ++(sat_sun ? weekend_n : weekday_n);
    }
    EXPECT_EQ(s.windows.back().start / kDay, 20);  // three weeks
    EXPECT_LT(weekend / weekend_n, 0.7 * weekday / weekday_n) << seed;
  }
}

TEST(CorpusFamily, StepsChangeTheLevelUpThenDown) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("steps", seed);
    const auto cpu = field(s, &TraceWindow::avg_cpu);
    const auto mem = field(s, &TraceWindow::max_mem);
    // The half-day after each point against the half-day before it.
    std::size_t up = 0, down = 0;
    double best_up = 0, best_down = 1e9;
    for (std::size_t i = kHalfDay; i + kHalfDay <= cpu.size(); ++i) {
      const double r = mean(cpu, i, i + kHalfDay) / mean(cpu, i - kHalfDay, i);
      if (r > best_up) best_up = r, up = i;
      if (r < best_down) best_down = r, down = i;
    }
    EXPECT_GT(best_up, 1.7) << seed;
    EXPECT_LT(best_down, 0.4) << seed;
    EXPECT_LT(up, down) << seed;
    EXPECT_GT(mean(mem, up, up + kHalfDay), 1.2 * mean(mem, up - kHalfDay, up)) << seed;
    EXPECT_LT(mean(mem, down, down + kHalfDay), 0.9 * mean(mem, down - kHalfDay, down)) << seed;
  }
}

TEST(CorpusFamily, GrowthEndsFarAboveItsStart) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("growth", seed);
    const auto cpu = field(s, &TraceWindow::avg_cpu);
    const auto mem = field(s, &TraceWindow::max_mem);
    const std::size_t day = 2 * kHalfDay, n = cpu.size();
    EXPECT_GT(mean(cpu, n - day, n), 1.8 * mean(cpu, 0, day)) << seed;
    EXPECT_GT(mean(mem, n - day, n), 1.2 * mean(mem, 0, day)) << seed;
  }
}

TEST(CorpusFamily, BatchRunsRecurWithOnePeriodAndFillMemory) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("batch", seed);
    const auto cpu = field(s, &TraceWindow::avg_cpu);
    const double threshold = 2.5 * median(cpu);
    std::vector<std::size_t> starts;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
      if (cpu[i] > threshold && (i == 0 || cpu[i - 1] <= threshold)) starts.push_back(i);
    }
    ASSERT_GE(starts.size(), 10u) << seed;  // every 24 h at most: 14 runs
    std::set<std::size_t> periods;
    for (std::size_t k = 2; k < starts.size(); ++k) periods.insert(starts[k] - starts[k - 1]);
    EXPECT_EQ(periods.size(), 1u) << seed;
    const double run_peak = s.windows[starts[2] + 2].max_mem;
    EXPECT_GT(run_peak, 1.3 * median(field(s, &TraceWindow::max_mem))) << seed;
  }
}

TEST(CorpusFamily, SpikesAreRareAndShowInTheMemoryPeak) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("spikes", seed);
    const auto cpu = field(s, &TraceWindow::avg_cpu);
    const auto mem = field(s, &TraceWindow::max_mem);
    const double cpu_mid = median(cpu), mem_mid = median(mem);
    int spikes = 0;
    for (std::size_t i = 0; i < cpu.size(); ++i) {
      if (cpu[i] < 2.5 * cpu_mid) continue;
      ++spikes;
      EXPECT_GT(mem[i], 1.2 * mem_mid) << seed << " window " << i;
      EXPECT_LT(s.windows[i].avg_mem, 1.1 * mem_mid) << seed;  // a transient, not a level
    }
    EXPECT_GE(spikes, 1) << seed;
    EXPECT_LT(spikes, 0.02 * double(cpu.size())) << seed;
  }
}

TEST(CorpusFamily, NoisyNeighbourEpisodesMakeWindowsRagged) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("noisy", seed);
    int ragged = 0, calm = 0;
    for (const auto& w : s.windows) {
      const double r = w.p95_cpu / w.avg_cpu;
      ragged += r > 1.8;
      calm += r < 1.6;
    }
    const double n = double(s.windows.size());
    EXPECT_GT(ragged, 0.02 * n) << seed;
    EXPECT_GT(calm, 0.8 * n) << seed;
  }
}

TEST(CorpusFamily, TinyContainersSitUnderTheMinimums) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("tiny", seed);
    int under = 0;
    for (const auto& w : s.windows) {
      under += w.avg_cpu < 0.025;
      EXPECT_LT(w.max_mem, 250 * kMiB);
    }
    EXPECT_GT(under, 0.95 * double(s.windows.size())) << seed;
  }
}

TEST(CorpusFamily, LeaksGrowUntilARestartResetsThem) {
  for (std::uint64_t seed : kSeeds) {
    const auto mem = field(make("leak", seed), &TraceWindow::max_mem);
    std::vector<std::size_t> restarts;
    for (std::size_t i = 1; i < mem.size(); ++i) {
      if (mem[i] < 0.8 * mem[i - 1]) restarts.push_back(i);
    }
    ASSERT_GE(restarts.size(), 3u) << seed;
    for (std::size_t k = 1; k < restarts.size(); ++k) {
      // Grown from just after the previous restart to just before this one.
      EXPECT_GT(mem[restarts[k] - 1], 1.3 * mem[restarts[k - 1]]) << seed;
    }
  }
}

TEST(CorpusFamily, JvmHeapsFillToACeilingAndStayThere) {
  for (std::uint64_t seed : kSeeds) {
    const auto mem = field(make("jvm", seed), &TraceWindow::max_mem);
    const double ceiling = *std::max_element(mem.begin(), mem.end());
    const auto near =
        std::count_if(mem.begin(), mem.end(), [&](double m) { return m > 0.9 * ceiling; });
    EXPECT_GT(double(near), 0.5 * double(mem.size())) << seed;
    EXPECT_LT(mem.front(), 0.75 * ceiling) << seed;  // starts below it and fills
  }
}

TEST(CorpusFamily, StartupsFollowEachDeployWithCpuAndMemoryOvershoot) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("startup", seed);
    int deploys = 0;
    for (std::size_t i = 3; i + 3 <= s.windows.size(); ++i) {
      const Seconds gap = s.windows[i].start - s.windows[i - 1].start;
      if (gap == 300) continue;
      ++deploys;
      EXPECT_LT(gap, kHour) << seed;  // a rollout, not a new pod for the replay
      double before = 0, after = 0;
      for (int k = 1; k <= 3; ++k) before += s.windows[i - k].avg_cpu;
      for (int k = 0; k < 3; ++k) after += s.windows[i + k].avg_cpu;
      EXPECT_GT(after, 2 * before) << seed << " at " << s.windows[i].start;
      EXPECT_GT(s.windows[i].max_mem, 1.2 * s.windows[i - 1].max_mem) << seed;
    }
    EXPECT_GE(deploys, 4) << seed;
  }
}

TEST(CorpusFamily, GapsAreAbsencesLongerThanAnHour) {
  for (std::uint64_t seed : kSeeds) {
    const auto s = make("gaps", seed);
    int gaps = 0;
    for (std::size_t i = 1; i < s.windows.size(); ++i) {
      const Seconds gap = s.windows[i].start - s.windows[i - 1].start - 300;
      if (gap == 0) continue;
      EXPECT_GE(gap, 2 * kHour) << seed;
      ++gaps;
    }
    EXPECT_GE(gaps, 2) << seed;
    EXPECT_LE(gaps, 6) << seed;
  }
}

}  // namespace
}  // namespace tailor::recommender
