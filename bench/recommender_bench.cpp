// Recommender speed: ns per sample ingested, bytes of state per container, and time to compute
// recommendations for 100,000 containers on one core (results in bench/RESULTS.md).
#include <benchmark/benchmark.h>

#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "recommender/strategy.h"
#include "recommender/vpa_estimator.h"
#include "recommender/vpa_model.h"

namespace rec = tailor::recommender;

namespace {

// A week of one-minute samples around 0.5 cores / 1 GiB with a daily cycle and noise.
struct Usage {
  std::vector<double> cpu, memory;
};

Usage synthetic_usage(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::lognormal_distribution<double> noise(0.0, 0.3);
  Usage u;
  for (int i = 0; i < n; ++i) {
    double day = 1 + 0.5 * std::sin(2 * M_PI * i / 1440.0);
    u.cpu.push_back(0.5 * day * noise(rng));
    u.memory.push_back(1e9 * (1 + 0.1 * day) * std::sqrt(noise(rng)));
  }
  return u;
}

void BM_VpaIngestCpuSample(benchmark::State& state) {
  const Usage u = synthetic_usage(1 << 16, 1);
  rec::VpaContainerModel model;
  rec::Seconds t = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    model.add_cpu_sample(t += 60, u.cpu[i], 0.5);
    i = (i + 1) & ((1 << 16) - 1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_VpaIngestCpuSample);

void BM_VpaIngestMemorySample(benchmark::State& state) {
  const Usage u = synthetic_usage(1 << 16, 2);
  rec::VpaContainerModel model;
  rec::Seconds t = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    model.add_memory_sample(t += 60, u.memory[i]);
    i = (i + 1) & ((1 << 16) - 1);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_VpaIngestMemorySample);

// A population of containers, each fed a week of one-minute samples (distinct levels so the
// bucket ranges differ as they would in a cluster).
std::vector<rec::VpaContainerModel> vpa_population(int containers) {
  std::vector<rec::VpaContainerModel> models(containers);
  const Usage u = synthetic_usage(7 * 1440, 3);
  for (int c = 0; c < containers; ++c) {
    const double scale = 0.05 + 4.0 * (c % 97) / 97.0;
    for (std::size_t i = 0; i < u.cpu.size(); i += 1 + c % 5) {
      models[c].add_cpu_sample(rec::Seconds(i) * 60, u.cpu[i] * scale, scale);
      models[c].add_memory_sample(rec::Seconds(i) * 60, u.memory[i] * scale);
    }
  }
  return models;
}

void BM_VpaStateBytes(benchmark::State& state) {
  const auto models = vpa_population(1000);
  double total = 0, worst = 0;
  for (auto _ : state) {
    total = 0;
    for (const auto& m : models) {
      total += m.state_bytes();
      worst = std::max(worst, double(m.state_bytes()));
    }
    benchmark::DoNotOptimize(total);
  }
  state.counters["bytes_per_container"] = total / models.size();
  state.counters["max_bytes"] = worst;
  double text = 0;
  for (const auto& m : models) text += rec::format_checkpoint(m.save()).size();
  state.counters["checkpoint_chars"] = text / models.size();
}
BENCHMARK(BM_VpaStateBytes)->Iterations(1);

void BM_VpaRecommend100k(benchmark::State& state) {
  const auto few = vpa_population(1000);
  std::vector<rec::VpaContainerModel> models;
  models.reserve(100000);
  for (int i = 0; i < 100000; ++i) models.push_back(few[i % few.size()]);
  double sink = 0;
  for (auto _ : state) {
    for (const auto& m : models) sink += rec::vpa_recommend(m).target.cpu_cores;
    benchmark::DoNotOptimize(sink);
  }
  state.SetItemsProcessed(state.iterations() * models.size());
}
BENCHMARK(BM_VpaRecommend100k)->Unit(benchmark::kMillisecond);

void BM_DefaultObserveSample(benchmark::State& state) {
  const Usage u = synthetic_usage(1 << 16, 4);
  auto strategy = rec::make_default_strategy()->create();
  rec::Seconds t = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    strategy->observe({t += 60, 60, u.cpu[i], u.memory[i]}, {0.5, 1e9});
    i = (i + 1) & ((1 << 16) - 1);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["state_bytes"] = double(strategy->state_bytes());
}
BENCHMARK(BM_DefaultObserveSample);

void BM_DefaultRecommend(benchmark::State& state) {
  const Usage u = synthetic_usage(1440, 5);
  auto strategy = rec::make_default_strategy()->create();
  for (std::size_t i = 0; i < u.cpu.size(); ++i) {
    strategy->observe({rec::Seconds(i) * 60, 60, u.cpu[i], u.memory[i]}, {0.5, 1e9});
  }
  double sink = 0;
  rec::Seconds t = 1440 * 60;
  for (auto _ : state) sink += strategy->recommend(t += 60).target.cpu_cores;
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DefaultRecommend);

// Issue 14, point 6: the cost of one container's strategy, `default` against `vpa` in the same
// run, through the Strategy interface the controller and replay use. Per sample: one window
// (CPU mean and memory peak) observed; the state: bytes after a week of samples (mean and max
// over 1000 containers at distinct levels), and the checkpoint text.
const char* const kStrategies[] = {"vpa", "default"};

void BM_StrategyObserveSample(benchmark::State& state) {
  const Usage u = synthetic_usage(1 << 16, 6);
  auto strategy = rec::make_strategy(kStrategies[state.range(0)])->create();
  rec::Seconds t = 0;
  std::size_t i = 0;
  for (auto _ : state) {
    strategy->observe({t += 60, 60, u.cpu[i], u.memory[i]}, {0.5, 1e9});
    i = (i + 1) & ((1 << 16) - 1);
  }
  state.SetLabel(kStrategies[state.range(0)]);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StrategyObserveSample)->Arg(0)->Arg(1);

// Replay's pattern: a recommendation after every window. The default strategy's lazy scoring
// then catches up (percentiles, the 18 memory costs) at each recommendation, not only at the
// hour's close as in BM_StrategyObserveSample.
void BM_StrategyObserveAndRecommend(benchmark::State& state) {
  const Usage u = synthetic_usage(1 << 16, 8);
  auto strategy = rec::make_strategy(kStrategies[state.range(0)])->create();
  rec::Seconds t = 0;
  std::size_t i = 0;
  double sink = 0;
  for (auto _ : state) {
    strategy->observe({t += 60, 60, u.cpu[i], u.memory[i]}, {0.5, 1e9});
    sink += strategy->recommend(t + 60).target.memory_bytes;
    i = (i + 1) & ((1 << 16) - 1);
  }
  benchmark::DoNotOptimize(sink);
  state.SetLabel(kStrategies[state.range(0)]);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StrategyObserveAndRecommend)->Arg(0)->Arg(1);

void BM_StrategyStateBytes(benchmark::State& state) {
  const Usage u = synthetic_usage(7 * 1440, 7);
  const auto factory = rec::make_strategy(kStrategies[state.range(0)]);
  std::vector<std::unique_ptr<rec::Strategy>> containers;
  for (int c = 0; c < 1000; ++c) {
    auto s = factory->create();
    const double scale = 0.05 + 4.0 * (c % 97) / 97.0;
    for (std::size_t i = 0; i < u.cpu.size(); i += 1 + c % 5) {
      const rec::Seconds t = rec::Seconds(i) * 60;
      s->observe({t, 60, u.cpu[i] * scale, u.memory[i] * scale}, {scale, 1e9 * scale});
      if (i % 60 == 0) s->recommend(t);
    }
    containers.push_back(std::move(s));
  }
  double total = 0, worst = 0, text = 0;
  for (auto _ : state) {
    total = 0;
    for (const auto& s : containers) {
      total += double(s->state_bytes());
      worst = std::max(worst, double(s->state_bytes()));
    }
    benchmark::DoNotOptimize(total);
  }
  for (const auto& s : containers) text += double(s->save().size());
  state.SetLabel(kStrategies[state.range(0)]);
  state.counters["bytes_per_container"] = total / containers.size();
  state.counters["max_bytes"] = worst;
  state.counters["checkpoint_chars"] = text / containers.size();
  state.counters["MiB_per_100k"] = total / containers.size() * 1e5 / (1 << 20);
}
BENCHMARK(BM_StrategyStateBytes)->Arg(0)->Arg(1)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
