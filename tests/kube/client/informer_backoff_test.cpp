// Backoff between failed list/watch attempts (client-go reflector defaults).
#include "kube/client/informer_backoff.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace tailor::kube::cache {
namespace {

using ms = std::chrono::milliseconds;

TEST(Backoff, DoublesFromInitialToCapWithJitterStretch) {
  struct Case {
    double random;
    std::vector<ms> expected;
  };
  // Steps 800, 1600, ... capped at 30000; each delay is step * (1 + jitter * random).
  for (const auto& c : std::vector<Case>{
           {0.0,
            {ms(800), ms(1600), ms(3200), ms(6400), ms(12800), ms(25600), ms(30000), ms(30000)}},
           {0.5, {ms(1200), ms(2400), ms(4800), ms(9600), ms(19200), ms(38400), ms(45000)}},
           {0.999, {ms(1599), ms(3198)}}}) {
    Backoff backoff(BackoffPolicy{}, [&] { return c.random; });
    auto now = Backoff::Clock::time_point{};
    for (std::size_t i = 0; i < c.expected.size(); ++i) {
      now += ms(10);
      EXPECT_EQ(backoff.next(now), c.expected[i]) << "random " << c.random << " step " << i;
    }
  }
}

TEST(Backoff, StartsOverAfterAQuietPeriodOrReset) {
  Backoff backoff(BackoffPolicy{}, [] { return 0.0; });
  auto now = Backoff::Clock::time_point{} + std::chrono::hours(1);
  EXPECT_EQ(backoff.next(now), ms(800));
  EXPECT_EQ(backoff.next(now + ms(1)), ms(1600));
  EXPECT_EQ(backoff.next(now + ms(2)), ms(3200));
  // More than two minutes since the last failure: back to the initial delay.
  EXPECT_EQ(backoff.next(now + ms(2) + std::chrono::minutes(2) + ms(1)), ms(800));
  EXPECT_EQ(backoff.next(now + std::chrono::minutes(3)), ms(1600));
  backoff.reset();
  EXPECT_EQ(backoff.next(now + std::chrono::minutes(3)), ms(800));
}

TEST(Backoff, RejectsNonsensePolicies) {
  auto rnd = [] { return 0.0; };
  EXPECT_THROW(Backoff(BackoffPolicy{ms(0)}, rnd), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffPolicy{ms(100), ms(50)}, rnd), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffPolicy{ms(100), ms(500), 0.5}, rnd), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffPolicy{ms(100), ms(500), 2.0, -1.0}, rnd), std::invalid_argument);
  EXPECT_THROW(Backoff(BackoffPolicy{}, nullptr), std::invalid_argument);
}

}  // namespace
}  // namespace tailor::kube::cache
