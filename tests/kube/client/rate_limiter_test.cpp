// Token bucket and retry policy: pure, with time passed in.
#include "kube/client/rate_limiter.h"

#include <gtest/gtest.h>

#include "kube/client/backoff.h"

namespace tailor::kube {
namespace {

using namespace std::chrono_literals;
using Clock = TokenBucket::Clock;

TEST(TokenBucket, BurstIsFreeThenRequestsAreSpacedByQps) {
  Clock::time_point t0{};
  TokenBucket bucket(10, 3, t0);  // 10 qps: a token every 100 ms
  EXPECT_EQ(bucket.reserve(t0), 0ns);
  EXPECT_EQ(bucket.reserve(t0), 0ns);
  EXPECT_EQ(bucket.reserve(t0), 0ns);
  EXPECT_EQ(bucket.reserve(t0), 100ms);  // queued behind the burst
  EXPECT_EQ(bucket.reserve(t0), 200ms);
}

TEST(TokenBucket, RefillsOverTimeUpToBurst) {
  Clock::time_point t0{};
  TokenBucket bucket(2, 4, t0);
  for (int i = 0; i < 4; ++i) bucket.reserve(t0);
  EXPECT_DOUBLE_EQ(bucket.tokens_at(t0), 0);
  EXPECT_DOUBLE_EQ(bucket.tokens_at(t0 + 500ms), 1);
  EXPECT_EQ(bucket.reserve(t0 + 500ms), 0ns);
  EXPECT_DOUBLE_EQ(bucket.tokens_at(t0 + 1h), 4);  // never more than burst
  EXPECT_EQ(bucket.reserve(t0 + 750ms), 250ms);    // half a token accrued: wait for the rest
  EXPECT_EQ(bucket.reserve(t0 + 750ms), 750ms);
}

TEST(TokenBucket, TryTakeDropsWhatIsOverTheLimitWithoutDebt) {
  Clock::time_point t0{};
  TokenBucket bucket(2, 3, t0);  // a token every 500 ms
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(bucket.try_take(t0)) << i;
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(bucket.try_take(t0));  // a flood, all dropped
  EXPECT_FALSE(bucket.try_take(t0 + 499ms));
  EXPECT_TRUE(bucket.try_take(t0 + 500ms));  // the flood left no debt behind
  EXPECT_FALSE(bucket.try_take(t0 + 500ms));
  TokenBucket unlimited(0, 1, t0);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(unlimited.try_take(t0));
}

TEST(TokenBucket, ZeroQpsDisablesLimiting) {
  Clock::time_point t0{};
  TokenBucket bucket(0, 1, t0);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(bucket.reserve(t0), 0ns);
}

TEST(TokenBucket, BurstBelowOneCountsAsOne) {
  Clock::time_point t0{};
  TokenBucket bucket(1, 0, t0);
  EXPECT_EQ(bucket.reserve(t0), 0ns);
  EXPECT_EQ(bucket.reserve(t0), 1s);
}

TEST(TokenBucket, TimeGoingBackwardsChangesNothing) {
  Clock::time_point t0 = Clock::time_point{} + 10s;
  TokenBucket bucket(1, 1, t0);
  EXPECT_EQ(bucket.reserve(t0), 0ns);
  EXPECT_EQ(bucket.reserve(t0 - 5s), 1s);
}

TEST(RetryPolicy, DoublesUpToTheCap) {
  struct Case {
    int attempt;
    double jitter;
    std::chrono::milliseconds expected;
  };
  for (const Case& c : {Case{0, 0, 100ms}, Case{1, 0, 200ms}, Case{2, 0, 400ms}, Case{3, 0, 800ms},
                        Case{4, 0, 1000ms}, Case{60, 0, 1000ms}, Case{0, 0.5, 125ms},
                        Case{1, 0.999, 299ms}, Case{3, 1.0, 1000ms}, Case{0, -3, 100ms}}) {
    EXPECT_EQ(backoff_delay(c.attempt, 100ms, 1000ms, c.jitter), c.expected)
        << "attempt " << c.attempt << " jitter " << c.jitter;
  }
}

TEST(RetryPolicy, RetryableStatuses) {
  for (int code : {429, 500, 502, 503, 504}) EXPECT_TRUE(is_retryable_status(code)) << code;
  for (int code : {200, 400, 401, 403, 404, 409, 410, 422}) {
    EXPECT_FALSE(is_retryable_status(code)) << code;
  }
}

TEST(RetryPolicy, ParsesRetryAfterSeconds) {
  EXPECT_EQ(parse_retry_after("1"), 1s);
  EXPECT_EQ(parse_retry_after(" 30 "), 30s);
  EXPECT_EQ(parse_retry_after("0"), 0s);
  EXPECT_EQ(parse_retry_after("86400"), 600s);  // capped
  EXPECT_EQ(parse_retry_after(""), std::nullopt);
  EXPECT_EQ(parse_retry_after("-1"), std::nullopt);
  EXPECT_EQ(parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT"), std::nullopt);
  EXPECT_EQ(parse_retry_after("5s"), std::nullopt);
}

}  // namespace
}  // namespace tailor::kube
