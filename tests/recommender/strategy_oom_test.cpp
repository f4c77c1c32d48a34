// Which memory an OOM kill bumps, per strategy: VPA's recommender bumps the request (its OOM
// observer reads the pod's memory request), Tailor's default strategy the limit that was hit.
#include <gtest/gtest.h>

#include <algorithm>

#include "recommender/strategy.h"

namespace tailor::recommender {
namespace {

constexpr Seconds kWindow = 60;

// A container using `used` bytes for an hour, then OOM-killed running with request / limit.
Recommendation after_oom(const StrategyFactory& factory, double used, double request,
                         double limit) {
  auto s = factory.create();
  for (Seconds t = 0; t < kHour; t += kWindow) s->observe({t, kWindow, 0.1, used}, {0.1, request});
  s->on_oom(kHour, request, limit);
  return s->recommend(kHour + kWindow);
}

// The same container when, instead of the kill, one window peaked at `peak` bytes.
Recommendation after_peak(const StrategyFactory& factory, double used, double request,
                          double peak) {
  auto s = factory.create();
  for (Seconds t = 0; t < kHour; t += kWindow) s->observe({t, kWindow, 0.1, used}, {0.1, request});
  s->observe({kHour, kWindow, 0.1, peak}, {0.1, request});
  return s->recommend(kHour + kWindow);
}

// VPA's formula: max(+OOMMinBumpUp 100 MiB, x OOMBumpUpRatio 1.2) of max(request, peak).
double vpa_bump(double request, double peak) {
  const double used = std::max(request, peak);
  return std::max(used + 100 * kMiB, used * 1.2);
}

TEST(StrategyOom, VpaBumpsTheRequestByVpasFormula) {
  struct Case {
    const char* name;
    double used, request, limit;
  };
  const Case cases[] = {
      // 300 Mi: +100 Mi is the larger bump; the limit twice the request plays no part.
      {"small request, limit twice", 200 * kMiB, 300 * kMiB, 600 * kMiB},
      // 1 GiB: x1.2 is the larger bump.
      {"large request, no limit", 500 * kMiB, 1024 * kMiB, 0},
      // The peak above the request is what VPA bumps from.
      {"peak above request", 700 * kMiB, 300 * kMiB, 800 * kMiB},
  };
  auto vpa = make_vpa_strategy();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Recommendation oom = after_oom(*vpa, c.used, c.request, c.limit);
    const Recommendation same = after_peak(*vpa, c.used, c.request, vpa_bump(c.request, c.used));
    EXPECT_EQ(oom.target.memory_bytes, same.target.memory_bytes);
    EXPECT_GT(oom.target.memory_bytes, c.request);
  }
}

TEST(StrategyOom, DefaultBumpsTheLimitThatWasHit) {
  struct Case {
    const char* name;
    double request, limit, at_least;
  };
  const Case cases[] = {
      {"limit above request", 300 * kMiB, 600 * kMiB, 720 * kMiB},  // 600 Mi x 1.2
      {"no limit: the request", 300 * kMiB, 0, 400 * kMiB},         // 300 Mi + 100 Mi
      {"limit equal to request", 1024 * kMiB, 1024 * kMiB, 1228.8 * kMiB},
  };
  auto def = make_default_strategy();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Recommendation r = after_oom(*def, 100 * kMiB, c.request, c.limit);
    EXPECT_GE(r.target.memory_bytes, c.at_least);
    EXPECT_LT(r.target.memory_bytes, c.at_least * 1.06);  // the 5 % bucket grid at most
  }
}

}  // namespace
}  // namespace tailor::recommender
