// The registry's checkpoint plumbing: save per container, restore into a fresh registry, and
// live models win over checkpoints; corrupt checkpoints create nothing.
#include <gtest/gtest.h>

#include "controller/recommendation/model_registry.h"
#include "recommender/checkpoint.h"

namespace tailor::controller::recommendation {
namespace {

using recommender::kHour;
using recommender::kMiB;

class RegistryCheckpoint : public testing::TestWithParam<std::string> {
 protected:
  std::shared_ptr<const recommender::StrategyFactory> factory =
      recommender::make_strategy(GetParam());

  static void feed(ModelRegistry& r, const ContainerModelKey& key, Seconds from, Seconds to,
                   double cpu) {
    for (Seconds t = from; t < to; t += 60) {
      r.observe(key, {.start = t, .length = 60, .cpu_cores = cpu, .memory_peak_bytes = 500 * kMiB},
                {.cpu_cores = 1, .memory_bytes = 1024 * kMiB});
    }
  }
};

TEST_P(RegistryCheckpoint, RestoredRegistryRecommendsTheSame) {
  ModelRegistry live(factory);
  const ContainerModelKey app{"shop/web", "app"};
  feed(live, app, 0, 3 * kHour, 1.5);
  auto saved = live.save(app);
  ASSERT_TRUE(saved.has_value());
  EXPECT_EQ(saved->samples.count, 180);
  EXPECT_EQ(saved->samples.last, 3 * kHour - 60);
  EXPECT_FALSE(live.save({"shop/web", "other"}).has_value());
  EXPECT_EQ(live.samples(app)->count, 180);
  EXPECT_FALSE(live.samples({"shop/web", "other"}).has_value());
  EXPECT_EQ(live.keys(), std::vector<ContainerModelKey>{app});

  ModelRegistry restarted(factory);
  EXPECT_TRUE(restarted.restore(app, saved->state));
  auto a = live.recommend(app, 3 * kHour), b = restarted.recommend(app, 3 * kHour);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->target, b->target);
  EXPECT_EQ(restarted.containers("shop/web"), std::vector<std::string>{"app"});
  // Idle accounting starts at the checkpoint's last sample.
  EXPECT_EQ(restarted.forget_idle(3 * kHour - 60), 0u);
  EXPECT_EQ(restarted.forget_idle(3 * kHour), 1u);
}

TEST_P(RegistryCheckpoint, TheModelWithMoreSamplesWins) {
  ModelRegistry leader(factory), standby(factory), busy(factory);
  const ContainerModelKey app{"shop/web", "app"};
  feed(leader, app, 0, 2 * kHour, 3.0);
  const std::string checkpoint = leader.save(app)->state;
  // A standby that saw the last hour only takes the leader's two hours.
  feed(standby, app, kHour, 2 * kHour, 0.2);
  EXPECT_TRUE(standby.restore(app, checkpoint));
  EXPECT_EQ(standby.recommend(app, 2 * kHour)->target, leader.recommend(app, 2 * kHour)->target);
  EXPECT_EQ(standby.size(), 1u);
  // One that saw more keeps its own model.
  feed(busy, app, 0, 3 * kHour, 0.2);
  const auto before = busy.recommend(app, 3 * kHour);
  EXPECT_FALSE(busy.restore(app, checkpoint));
  EXPECT_EQ(busy.recommend(app, 3 * kHour)->target, before->target);
}

TEST_P(RegistryCheckpoint, CorruptCheckpointCreatesNoModel) {
  ModelRegistry r(factory);
  const ContainerModelKey app{"shop/web", "app"};
  EXPECT_THROW(r.restore(app, "v1;not;a;checkpoint"), recommender::CheckpointError);
  EXPECT_THROW(r.restore(app, ""), recommender::CheckpointError);
  EXPECT_EQ(r.size(), 0u);
  feed(r, app, 0, kHour, 1.0);  // a later sample starts the model afresh
  EXPECT_EQ(r.save(app)->samples.count, 60);
}

INSTANTIATE_TEST_SUITE_P(Strategies, RegistryCheckpoint, testing::Values("vpa", "default"));

// Checkpoints written before the default strategy's current format (default2, both states that
// were tagged default3, default4 and default5) are refused with the reason, create no model, and
// the container's samples start a fresh one.
TEST(RegistryCheckpointFormats, TheDefaultStrategysFormerFormatsStartAFreshModel) {
  for (const char* former :
       {"default2;0;3540;60;524288000;0;0;0;0", "default3;0;3540;60;524288000;0;0;0;0",
        "default4;0;3540;60;524288000;0;0;0;0", "default5;0;3540;60;524288000;0;0;0;0"}) {
    ModelRegistry r(recommender::make_default_strategy());
    const ContainerModelKey app{"shop/web", "app"};
    try {
      r.restore(app, former);
      FAIL() << "accepted " << former;
    } catch (const recommender::CheckpointError& e) {
      EXPECT_NE(std::string(e.what()).find("not a 'default6' checkpoint"), std::string::npos)
          << e.what();
    }
    EXPECT_EQ(r.size(), 0u);
    r.observe(app, {.start = 0, .length = 60, .cpu_cores = 1, .memory_peak_bytes = 500 * kMiB},
              {.cpu_cores = 1, .memory_bytes = 1024 * kMiB});
    EXPECT_EQ(r.save(app)->samples.count, 1);
  }
}

}  // namespace
}  // namespace tailor::controller::recommendation
