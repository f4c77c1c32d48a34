// Strategy checkpoints: restore(save(x)) recommends what x does, and a corrupt checkpoint is
// refused with a reason, leaving the strategy usable and empty.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "recommender/checkpoint.h"
#include "recommender/strategy.h"
#include "recommender/tailored_strategy.h"

namespace tailor::recommender {
namespace {

constexpr Seconds kWindow = 300;
constexpr double kGiB = 1024.0 * 1024 * 1024;

// Three days of a daily cycle with a load step on day 2 and one OOM kill.
void feed(Strategy& s, Seconds from, Seconds to) {
  for (Seconds t = from; t < to; t += kWindow) {
    const double phase = std::sin(static_cast<double>(t) / kDay * 2 * M_PI);
    const double step = t >= 2 * kDay ? 1.5 : 1.0;
    const Resources request{1.0, 2 * kGiB};
    s.observe({t, kWindow, step * (0.6 + 0.3 * phase), step * (1.0 + 0.2 * phase) * kGiB}, request);
    if (t == kDay + 7 * kWindow) s.on_oom(t, 1.2 * kGiB, 1.2 * kGiB);
    if (t % kHour == 0) s.recommend(t);  // the default rule remembers hourly targets
  }
}

void expect_same(const Recommendation& a, const Recommendation& b) {
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.lower_bound, b.lower_bound);
  EXPECT_EQ(a.upper_bound, b.upper_bound);
  EXPECT_EQ(a.uncapped_target, b.uncapped_target);
}

class StrategyCheckpoint : public testing::TestWithParam<std::string> {
 protected:
  std::unique_ptr<StrategyFactory> factory = make_strategy(GetParam());
};

TEST_P(StrategyCheckpoint, RestoredStrategyRecommendsTheSame) {
  auto original = factory->create();
  feed(*original, 0, 3 * kDay);
  const std::string text = original->save();
  auto restored = factory->create();
  restored->restore(text);
  const Seconds now = 3 * kDay;
  expect_same(original->recommend(now), restored->recommend(now));
  EXPECT_EQ(original->samples().count, 3 * kDay / kWindow);
  EXPECT_EQ(restored->samples().count, original->samples().count);
  EXPECT_EQ(restored->samples().first, 0);
  EXPECT_EQ(restored->samples().last, 3 * kDay - kWindow);
  // The update rule decides the same from the restored state.
  const Recommendation r = original->recommend(now);
  for (const Resources& request : {Resources{0.2, 0.5 * kGiB}, Resources{4, 8 * kGiB}}) {
    EXPECT_EQ(original->update(r, request, now, kDay), restored->update(r, request, now, kDay));
  }
}

TEST_P(StrategyCheckpoint, CheckpointsOfOtherStrategiesAreRefused) {
  auto original = factory->create();
  feed(*original, 0, kDay);
  const std::string other = GetParam() == "vpa" ? "default" : "vpa";
  auto foreign = make_strategy(other)->create();
  EXPECT_THROW(foreign->restore(original->save()), CheckpointError);
}

TEST_P(StrategyCheckpoint, CorruptCheckpointsLeaveTheStrategyEmpty) {
  auto original = factory->create();
  feed(*original, 0, kDay);
  const std::string good = original->save();
  const std::string cut = good.substr(0, good.size() / 2);
  std::string nan = good;
  nan.replace(nan.find(';', 3) + 1, 1, "nan");
  for (const std::string& bad : {std::string(), std::string("garbage"), cut, nan, good + ";1",
                                 good.substr(0, good.find(';')) + ";x"}) {
    auto s = factory->create();
    try {
      s->restore(bad);
      ADD_FAILURE() << "accepted: " << bad.substr(0, 80);
    } catch (const CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("checkpoint"), std::string::npos) << e.what();
    }
    // Not poisoned: still empty, and a good checkpoint still restores into it.
    EXPECT_EQ(s->samples().count, 0);
    s->restore(good);
    expect_same(s->recommend(kDay), original->recommend(kDay));
  }
}

TEST_P(StrategyCheckpoint, RestoreIntoAStrategyWithSamplesIsRefused) {
  auto original = factory->create();
  feed(*original, 0, kDay);
  auto busy = factory->create();
  feed(*busy, 0, kHour);
  EXPECT_THROW(busy->restore(original->save()), CheckpointError);
}

INSTANTIATE_TEST_SUITE_P(Strategies, StrategyCheckpoint, testing::Values("vpa", "default"));

TEST(DefaultStrategyCheckpoint, ContinuesExactlyAsTheOriginal) {
  auto factory = make_default_strategy();
  auto original = factory->create();
  feed(*original, 0, 2 * kDay);
  auto restored = factory->create();
  restored->restore(original->save());
  feed(*original, 2 * kDay, 4 * kDay);
  feed(*restored, 2 * kDay, 4 * kDay);
  expect_same(original->recommend(4 * kDay), restored->recommend(4 * kDay));
  EXPECT_EQ(original->save(), restored->save());
}

TEST(DefaultStrategyCheckpoint, KeepsTheCpuRulesStateABurstAndItsHold) {
  TailoredStrategy original(TailoredConfig{});
  const Resources start{0.5, 2 * kGiB};
  original.applied(start, 0);
  for (Seconds t = 0; t < kDay; t += kWindow) original.observe({t, kWindow, 0.4, kGiB}, start);
  original.observe({kDay, kWindow, 2.0, kGiB}, start);  // a burst
  const Seconds now = kDay + kWindow;
  TailoredStrategy after_burst(TailoredConfig{});
  after_burst.restore(original.save());
  // The restored strategy knows the last window burst: it raises as the original does.
  const auto raised = original.update(original.recommend(now), start, now, kDay);
  ASSERT_TRUE(raised);
  EXPECT_GE(raised->cpu_cores, 2.0);
  EXPECT_EQ(after_burst.update(after_burst.recommend(now), start, now, kDay), raised);
  // During the hold neither lowers the raised request, after it both give it back.
  original.applied(*raised, now);
  original.observe({now, kWindow, 0.4, kGiB}, *raised);
  TailoredStrategy holding(TailoredConfig{});
  holding.restore(original.save());
  for (const Seconds t : {now + kWindow, now + kHour}) {
    EXPECT_EQ(original.update(original.recommend(t), *raised, t, kHour),
              holding.update(holding.recommend(t), *raised, t, kHour));
  }
  EXPECT_FALSE(holding.update(holding.recommend(now + kWindow), *raised, now + kWindow, kWindow));
  EXPECT_TRUE(holding.update(holding.recommend(now + kHour), *raised, now + kHour, kHour));
}

TEST(DefaultStrategyCheckpoint, IsCompact) {
  auto original = make_default_strategy()->create();
  feed(*original, 0, 3 * kDay);
  // Both ensembles' histograms, limits and costs (1 + 18 models) in text.
  EXPECT_LT(original->save().size(), 6u * 1024) << original->save().size();
  auto vpa = make_vpa_strategy()->create();
  feed(*vpa, 0, 3 * kDay);
  EXPECT_LT(vpa->save().size(), 1024u);
}

TEST(DefaultStrategyCheckpoint, OptionalModelsRoundTrip) {
  TailoredConfig config;
  config.cpu.profile_ranks = {1, 2};
  config.cpu.shortfall_price = 2;
  config.cpu.change_price = 0.1;
  TailoredStrategy original(config), restored(config);
  feed(original, 0, 4 * kDay);
  restored.restore(original.save());
  expect_same(original.recommend(4 * kDay), restored.recommend(4 * kDay));
  EXPECT_EQ(original.save(), restored.save());
}

TEST(DefaultStrategyCheckpoint, AnotherConfigurationIsRefusedWithTheReason) {
  TailoredConfig other;
  other.cpu.half_lives = {kHour, kDay};
  auto original = make_default_strategy()->create();
  feed(*original, 0, kDay);
  TailoredStrategy s(other);
  try {
    s.restore(original->save());
    FAIL() << "accepted a checkpoint of another configuration";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("half-lives"), std::string::npos) << e.what();
  }
}

TEST(DefaultStrategyCheckpoint, BucketsOutsideTheHistogramAreRefused) {
  TailoredStrategy s(TailoredConfig{});
  s.observe({0, kWindow, 0.5, kGiB}, {1, kGiB});
  std::string text = s.save();
  // The CPU histogram's first bucket (field 28 after the tag) moved past the last bucket.
  std::size_t at = 0;
  for (int i = 0; i < 28; ++i) at = text.find(';', at) + 1;
  const std::size_t end = text.find(';', at);
  text.replace(at, end - at, "100000");
  TailoredStrategy fresh(TailoredConfig{});
  try {
    fresh.restore(text);
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("outside"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tailor::recommender

namespace tailor::recommender {
namespace {

TEST(DefaultStrategyCheckpoint, NegativeDailyMemoryPeaksAreRefused) {
  TailoredStrategy s(TailoredConfig{});
  s.observe({0, kWindow, 0.5, kGiB}, {1, kGiB});
  std::string text = s.save();
  // The week of daily memory peaks is field 16 after the tag (after the hourly targets).
  std::size_t at = 0;
  for (int i = 0; i < 16; ++i) at = text.find(';', at) + 1;
  const std::size_t end = text.find(';', at);
  ASSERT_EQ(text.substr(at, end - at), "1073741824,0,0,0,0,0,0");
  text.replace(at, end - at, "-1073741824,0,0,0,0,0,0");
  TailoredStrategy fresh(TailoredConfig{});
  try {
    fresh.restore(text);
    FAIL() << "accepted";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("daily memory peaks"), std::string::npos) << e.what();
  }
  EXPECT_EQ(fresh.samples().count, 0);
}

}  // namespace
}  // namespace tailor::recommender

namespace tailor::recommender {
namespace {

// Checkpoints of the formats before this one cannot be read without guessing: default2 (float
// weights over the whole bucket range, double costs, the 36-model CPU ensemble), both formats
// tagged default3 (the one-model CPU side with double weights, or the compact state of the
// 36-model CPU ensemble: the same tag, different fields) and default4 (the compact state before
// the lazy scoring: no carried weights or pending sums) and default5 (the CPU level's buckets in
// VPA's geometry, from 10 m: the same indices mean other values). They are refused with the reason,
// and the controller starts that model empty (CheckpointInvalid).
TEST(DefaultStrategyCheckpoint, TheFormerFormatsAreRefusedWithTheReason) {
  for (const std::string former :
       {"default2;0;86100;288;1073741824;0;0;0;0;-1,-1;0,0;0,0;0,0,0,0,0,0,0;0,0,0,0,0,0,0;"
        "-2147483648,-2147483648,-2147483648,-2147483648,-2147483648,-2147483648,-2147483648",
        "default3;0;86100;288;1073741824;0;0;0;0;0.5;1;1073741824;0;-1",
        "default4;0;86100;288;1073741824;0;0;0;0;0.5;1;1073741824;0;-1",
        "default5;0;86100;288;1073741824;0;0;0;0;0.5;1;1073741824;0;-1"}) {
    TailoredStrategy s(TailoredConfig{});
    try {
      s.restore(former);
      FAIL() << "accepted " << former;
    } catch (const CheckpointError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("not a 'default6' checkpoint"), std::string::npos) << what;
      EXPECT_NE(what.find(former.substr(0, 8)), std::string::npos) << what;
    }
    EXPECT_EQ(s.samples().count, 0);
    feed(s, 0, kDay);  // still usable
    EXPECT_GT(s.recommend(kDay).target.cpu_cores, 0);
  }
}

// Every field of the compact state, corrupted one at a time (a value out of its range, or not a
// number): refused with a message, never a crash or a model holding the bad value.
TEST(DefaultStrategyCheckpoint, EachCorruptFieldIsRefused) {
  auto original = make_default_strategy()->create();
  feed(*original, 0, 3 * kDay);
  const std::string good = original->save();
  std::vector<std::size_t> starts = {0};
  for (std::size_t at = good.find(';'); at != std::string::npos; at = good.find(';', at + 1)) {
    starts.push_back(at + 1);
  }
  int refused = 0;
  for (std::size_t f = 1; f < starts.size(); ++f) {
    const std::size_t end = f + 1 < starts.size() ? starts[f + 1] - 1 : good.size();
    for (const char* junk : {"x", "-99999999999", "99999999999999999999", "1e400"}) {
      std::string bad = good;
      bad.replace(starts[f], end - starts[f], junk);
      auto s = make_default_strategy()->create();
      try {
        s->restore(bad);
        // Some fields take any integer (times); then the model must still work.
        s->recommend(3 * kDay);
      } catch (const CheckpointError& e) {
        ++refused;
        EXPECT_NE(std::string(e.what()).find("checkpoint"), std::string::npos) << e.what();
        EXPECT_EQ(s->samples().count, 0);
      }
    }
  }
  EXPECT_GT(refused, static_cast<int>(3 * (starts.size() - 1)));
}

}  // namespace
}  // namespace tailor::recommender
