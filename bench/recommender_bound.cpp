// How low can cpu_slack go on a trace? What a clairvoyant request path reaches under the vpa
// row's mean cpu_shortfall (and, in one case, its mean resizes per day), with the figures of
// docs/scoring.md (sections 4 and 5): 24 h warm-up, windows inside gaps absent, the 25 m minimum,
// per-container ratios averaged over containers.
//   bench_recommender_bound TRACE...
//
// Two things make this more than a per-container optimization, and both lower the result:
// - cpu_slack is a ratio, Σidle / Σrequest: a request raised where usage is high adds to the
//   denominator too. Paths are therefore chosen by Dinkelbach's parametric form
//   (Σidle − θ·Σrequest + a·Σshortfall + b·changes), not by Σidle alone.
// - The figures are means over containers and each container's slack is concave in its
//   shortfall, so the best mix spends the shortfall budget unevenly (some containers run near
//   their mean usage, the rest near their p95). One Lagrange multiplier shared by all containers
//   cannot reach such mixes; a multiple-choice knapsack over every container's options can.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "recommender/replay.h"
#include "recommender/trace.h"

namespace rec = tailor::recommender;

namespace {

struct Point {
  double slack, shortfall, resizes_per_day;
};

struct Window {
  double usage, p95;
};

constexpr double kInf = std::numeric_limits<double>::infinity();

std::vector<Window> scored_windows(const rec::ContainerSeries& s, rec::Seconds warm_up) {
  std::vector<Window> out;
  for (const auto& w : s.windows) {
    if (w.start >= s.windows.front().start + warm_up) out.push_back({w.avg_cpu, w.p95_cpu});
  }
  return out;
}

// Any number of resizes: per window the request lies in [max(floor, usage), max(that, p95)]
// (lower adds shortfall and shrinks the denominator, higher adds idle); raising it by x adds x
// to idle and to the requested sum and takes x off the shortfall, so a container's figures
// depend only on its total raise D. Exact, sampled at `steps` values of D.
std::vector<Point> unlimited_curve(const std::vector<Window>& w, double floor, int steps) {
  double idle = 0, requested = 0, shortfall = 0, p95 = 0, room = 0;
  for (const Window& x : w) {
    const double low = std::max(floor, x.usage), high = std::max(low, x.p95);
    idle += low - x.usage;
    requested += low;
    shortfall += std::max(0.0, x.p95 - low);
    p95 += x.p95;
    room += high - low;
  }
  std::vector<Point> curve;
  for (int i = 0; i <= steps; ++i) {
    const double d = room * i / steps;
    curve.push_back({(idle + d) / (requested + d), p95 > 0 ? (shortfall - d) / p95 : 0, 0});
  }
  return curve;
}

// Request levels 2 % apart, from the floor (or half the lowest usage) to the highest p95.
std::vector<double> levels_for(const std::vector<Window>& w, double floor) {
  double low = kInf, high = 0;
  for (const Window& x : w) low = std::min(low, x.usage), high = std::max(high, x.p95);
  std::vector<double> levels;
  for (double l = std::max(floor, 0.5 * low); l < high * 1.02 || levels.empty(); l *= 1.02) {
    levels.push_back(l);
  }
  return levels;
}

// The path minimizing Σ(idle − θ·request + a·shortfall) + b·changes; its figures.
Point best_path(const std::vector<Window>& w, const std::vector<double>& levels, double theta,
                double a, double b, double days) {
  const std::size_t n = levels.size();
  struct Totals {
    double idle = 0, requested = 0, shortfall = 0;
    int changes = 0;
  };
  std::vector<double> cost(n, 0.0);
  std::vector<Totals> totals(n), next(n);
  for (const Window& x : w) {
    const std::size_t best = std::min_element(cost.begin(), cost.end()) - cost.begin();
    const double jump = cost[best] + b;
    for (std::size_t i = 0; i < n; ++i) {
      const bool stay = cost[i] <= jump;
      Totals t = stay ? totals[i] : totals[best];
      if (!stay) ++t.changes;
      const double idle = std::max(0.0, levels[i] - x.usage);
      const double short_by = std::max(0.0, x.p95 - levels[i]);
      t.idle += idle, t.requested += levels[i], t.shortfall += short_by;
      next[i] = t;
      cost[i] = std::min(cost[i], jump) + idle - theta * levels[i] + a * short_by;
    }
    totals.swap(next);
  }
  const Totals& t = totals[std::min_element(cost.begin(), cost.end()) - cost.begin()];
  double p95 = 0;
  for (const Window& x : w) p95 += x.p95;
  return {t.idle / t.requested, p95 > 0 ? t.shortfall / p95 : 0, t.changes / days};
}

std::vector<Point> path_options(const std::vector<Window>& w, double floor, double days) {
  const auto levels = levels_for(w, floor);
  double mean = 0;
  for (const Window& x : w) mean += x.usage / static_cast<double>(w.size());
  std::vector<Point> out;
  for (double theta : {0.0, 0.3, 0.6}) {
    for (double a : {0.3, 0.6, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 20.0, 50.0}) {
      for (double b : {0.0, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 1e4, 1e9}) {
        out.push_back(best_path(w, levels, theta, a, b * mean, days));
      }
    }
  }
  for (double l : levels) out.push_back(best_path(w, {l}, 0, 0, 0, days));  // constant requests
  return out;
}

// The lowest mean slack with one option per container, mean shortfall <= max_shortfall and mean
// resizes <= max_resizes. Figures are rounded up to the budget grid, so the answer is feasible.
struct Knapsack {
  double shortfall_step = 0.0005, resize_step = 0.05;

  double solve(const std::vector<std::vector<Point>>& options, double max_shortfall,
               double max_resizes) const {
    const double n = static_cast<double>(options.size());
    const int rows = static_cast<int>(max_shortfall * n / shortfall_step + 1e-9) + 1;
    const int cols = static_cast<int>(std::min(max_resizes * n, 1e4) / resize_step + 1e-9) + 1;
    std::vector<double> best(static_cast<std::size_t>(rows) * cols, kInf), next(best.size());
    best[0] = 0;
    for (const auto& opts : options) {
      std::fill(next.begin(), next.end(), kInf);
      for (const Point& p : opts) {
        const int di = static_cast<int>(std::ceil(p.shortfall / shortfall_step - 1e-9));
        const int dj = static_cast<int>(std::ceil(p.resizes_per_day / resize_step - 1e-9));
        if (di >= rows || dj >= cols) continue;
        for (int i = di; i < rows; ++i) {
          const double* from = &best[static_cast<std::size_t>(i - di) * cols];
          double* to = &next[static_cast<std::size_t>(i) * cols];
          for (int j = dj; j < cols; ++j) to[j] = std::min(to[j], from[j - dj] + p.slack);
        }
      }
      best.swap(next);
    }
    return *std::min_element(best.begin(), best.end()) / n;
  }
};

// Options no other option beats on all three figures (the knapsack needs no others).
std::vector<Point> pareto(std::vector<Point> p) {
  std::sort(p.begin(), p.end(), [](const Point& x, const Point& y) { return x.slack < y.slack; });
  std::vector<Point> kept;
  for (const Point& x : p) {
    const bool dominated = std::any_of(kept.begin(), kept.end(), [&](const Point& k) {
      return k.shortfall <= x.shortfall && k.resizes_per_day <= x.resizes_per_day;
    });
    if (!dominated) kept.push_back(x);
  }
  return kept;
}

// Every container held to the budgets on its own (no container spends another's shortfall).
double each_within(const std::vector<std::vector<Point>>& options, double max_shortfall,
                   double max_resizes) {
  double sum = 0;
  for (const auto& opts : options) {
    double best = kInf;
    for (const Point& p : opts) {
      if (p.shortfall <= max_shortfall && p.resizes_per_day <= max_resizes) {
        best = std::min(best, p.slack);
      }
    }
    sum += best;
  }
  return sum / static_cast<double>(options.size());
}

std::vector<Point> constant_only(const std::vector<Point>& p) {
  std::vector<Point> out;
  for (const Point& x : p) {
    if (x.resizes_per_day == 0) out.push_back(x);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> paths(argv + 1, argv + argc);
  rec::TraceDiagnostics diag;
  const auto series = rec::read_traces(paths, diag);
  const rec::ReplayConfig config;
  const auto vpa = rec::make_vpa_strategy();
  const auto rows = rec::replay_table(series, {vpa.get()}, config);
  const rec::ScoreRow& v = rows[1];
  std::printf("vpa row: cpu_slack %.3f cpu_shortfall %.4f resizes/day %.3f\n", v.cpu_slack,
              v.cpu_shortfall, v.resizes_per_day);

  const double floor = config.min_resources.cpu_cores;
  std::vector<std::vector<Point>> curves, options;
  for (const auto& s : series) {
    const auto w = scored_windows(s, config.warm_up);
    if (w.empty()) continue;
    const double days = static_cast<double>(w.size() * s.window) / rec::kDay;
    curves.push_back(unlimited_curve(w, floor, 1000));
    options.push_back(pareto(path_options(w, floor, days)));
  }
  std::vector<std::vector<Point>> constants;
  for (const auto& o : options) constants.push_back(constant_only(o));
  const Knapsack k;
  const double s = v.cpu_shortfall;
  std::printf("clairvoyant, mean shortfall <= vpa's:\n");
  std::printf("  one constant request per container: cpu_slack %.3f\n", k.solve(constants, s, 0));
  std::printf("  resizes <= vpa's (%.3f/day): cpu_slack %.3f\n", v.resizes_per_day,
              k.solve(options, s, v.resizes_per_day));
  std::printf("  any number of resizes (exact per container): cpu_slack %.3f\n",
              k.solve(curves, s, 0));
  std::printf("  each container within both on its own: cpu_slack %.3f\n",
              each_within(options, s, v.resizes_per_day));
  return 0;
}
