// RateLimiter: the token bucket on virtual time (burst, refill, the cap at burst, waiters'
// reservations, stop), and on real time from several threads.
#include "host/connectors/kube/rate_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace sh::kube::rate_limiter_test {
namespace {

using std::chrono::milliseconds;
using std::chrono::nanoseconds;

// Virtual time: sleeping advances the clock by the requested duration.
struct VirtualTime {
  RateLimiter::TimePoint now{};
  std::vector<nanoseconds> sleeps;
  bool stopSleeps = false;

  RateLimiter make(double qps, int burst) {
    return RateLimiter(
        qps, burst, [this] { return now; },
        [this](nanoseconds duration, std::stop_token) {
          sleeps.push_back(duration);
          if (stopSleeps) return false;
          now += duration;
          return true;
        });
  }
};

TEST(RateLimiterTest, BurstThenOneTokenPerInterval) {
  VirtualTime time;
  auto limiter = time.make(10, 3);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.acquire({}));
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(limiter.waited(), 0u);
  EXPECT_TRUE(limiter.acquire({}));
  ASSERT_EQ(time.sleeps.size(), 1u);
  EXPECT_EQ(time.sleeps[0], milliseconds(100));
  EXPECT_TRUE(limiter.acquire({}));
  ASSERT_EQ(time.sleeps.size(), 2u);
  EXPECT_EQ(time.sleeps[1], milliseconds(100));
  EXPECT_EQ(limiter.waited(), 2u);
}

TEST(RateLimiterTest, RefillIsCappedAtBurst) {
  VirtualTime time;
  auto limiter = time.make(5, 2);
  EXPECT_TRUE(limiter.acquire({}));
  EXPECT_TRUE(limiter.acquire({}));
  time.now += std::chrono::seconds(60);  // would be 300 tokens without the cap
  EXPECT_TRUE(limiter.tryAcquire());
  EXPECT_TRUE(limiter.tryAcquire());
  EXPECT_FALSE(limiter.tryAcquire());
  time.now += milliseconds(100);  // half a token
  EXPECT_FALSE(limiter.tryAcquire());
  time.now += milliseconds(100);
  EXPECT_TRUE(limiter.tryAcquire());
}

TEST(RateLimiterTest, WaitersReserveSuccessiveTokens) {
  // Without sleeping (a sleep that does not advance the clock), each waiter's reservation is
  // one interval later than the previous one's: waiters are served in order.
  RateLimiter::TimePoint now{};
  std::vector<nanoseconds> sleeps;
  RateLimiter limiter(
      4, 1, [&] { return now; },
      [&](nanoseconds duration, std::stop_token) {
        sleeps.push_back(duration);
        return true;
      });
  EXPECT_TRUE(limiter.acquire({}));
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(limiter.acquire({}));
  ASSERT_EQ(sleeps.size(), 3u);
  EXPECT_EQ(sleeps[0], milliseconds(250));
  EXPECT_EQ(sleeps[1], milliseconds(500));
  EXPECT_EQ(sleeps[2], milliseconds(750));
}

TEST(RateLimiterTest, UnlimitedNeverWaits) {
  VirtualTime time;
  auto limiter = time.make(0, 1);
  for (int i = 0; i < 1000; ++i) EXPECT_TRUE(limiter.acquire({}));
  EXPECT_TRUE(time.sleeps.empty());
  EXPECT_EQ(limiter.waited(), 0u);
  std::stop_source stop;
  stop.request_stop();
  EXPECT_FALSE(limiter.acquire(stop.get_token()));
}

TEST(RateLimiterTest, StoppedWaitGivesTheTokenBack) {
  VirtualTime time;
  auto limiter = time.make(1, 1);
  EXPECT_TRUE(limiter.acquire({}));
  time.stopSleeps = true;
  EXPECT_FALSE(limiter.acquire({}));
  time.stopSleeps = false;
  // The cancelled reservation is returned: after one second a token is free again.
  time.now += std::chrono::seconds(1);
  EXPECT_TRUE(limiter.tryAcquire());
}

TEST(RateLimiterTest, RealTimeAcrossThreads) {
  RateLimiter limiter(200, 1);
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) EXPECT_TRUE(limiter.acquire({}));
    });
  }
  for (auto& thread : threads) thread.join();
  const auto elapsed = std::chrono::steady_clock::now() - start;
  // 40 tokens, 1 at once and 39 at 200/s: at least 195 ms.
  EXPECT_GE(elapsed, milliseconds(180));
  EXPECT_EQ(limiter.waited(), 39u);
}

TEST(RateLimiterTest, StopEndsARealWait) {
  RateLimiter limiter(0.01, 1);  // the next token in 100 s
  EXPECT_TRUE(limiter.acquire({}));
  std::stop_source stop;
  std::atomic<bool> result{true};
  const auto start = std::chrono::steady_clock::now();
  std::thread waiter([&] { result = limiter.acquire(stop.get_token()); });
  stop.request_stop();
  waiter.join();
  EXPECT_FALSE(result.load());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace sh::kube::rate_limiter_test
