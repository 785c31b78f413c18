#include "llm/rate_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace pcglab::llm {
namespace {

// A test clock: sleeping advances it, so time-based waits are exact and instant.
struct FakeTime {
  std::atomic<double> now{0};
  RateLimiter::Clock clock() {
    return [this] { return now.load(); };
  }
  RateLimiter::Sleeper sleeper() {
    return [this](double s) {
      double n = now.load();
      while (!now.compare_exchange_weak(n, n + s)) {
      }
    };
  }
};

TEST(RateLimiter, RequestsPerMinuteWaitForTheWindow) {
  FakeTime t;
  RateLimiter limiter({0, 2, 0}, t.clock(), t.sleeper());
  double waited = -1;
  limiter.acquire(10, &waited).finish(10);
  EXPECT_EQ(waited, 0);
  t.now = 10;
  limiter.acquire(10, &waited).finish(10);
  EXPECT_EQ(waited, 0);
  t.now = 20;
  limiter.acquire(10, &waited).finish(10);  // the first request leaves the window at t = 60
  EXPECT_NEAR(t.now.load(), 60.0, 0.051);
  EXPECT_NEAR(waited, 40.0, 0.051);
}

TEST(RateLimiter, TokensPerMinuteCountTheRealTokens) {
  FakeTime t;
  RateLimiter limiter({0, 0, 1000}, t.clock(), t.sleeper());
  auto p = limiter.acquire(600);
  p.finish(900);  // the reply was larger than estimated
  double waited = -1;
  limiter.acquire(100, &waited).finish(100);  // 900 + 100 fits
  EXPECT_EQ(waited, 0);
  t.now = 5;
  limiter.acquire(200, &waited).finish(200);  // 1000 + 200 does not: wait until the first expires
  EXPECT_NEAR(t.now.load(), 60.0, 0.051);
  // A request larger than the whole budget still runs on an empty window.
  t.now = 1000;
  limiter.acquire(5000, &waited).finish(5000);
  EXPECT_EQ(waited, 0);
}

TEST(RateLimiter, InFlightLimitIsReachedAndNeverExceeded) {
  RateLimiter limiter({3, 0, 0});
  std::atomic<int> now{0}, worst{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i)
    threads.emplace_back([&] {
      auto permit = limiter.acquire(1);
      const int n = ++now;
      int w = worst.load();
      while (n > w && !worst.compare_exchange_weak(w, n)) {
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      --now;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(worst.load(), 3);
  EXPECT_EQ(limiter.max_in_flight_seen(), 3);
  EXPECT_EQ(limiter.in_flight(), 0);
}

}  // namespace
}  // namespace pcglab::llm
