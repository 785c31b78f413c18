#include "llm/rate_limiter.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/check.h"
#include "testing/testing.h"

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

TEST(RateLimiter, ARequestLargerThanTheTokenLimitWaitsForAnEmptyWindowAndWarnsOnce) {
  FakeTime t;
  RateLimiter limiter({0, 0, 1000}, t.clock(), t.sleeper());
  std::vector<std::string> warnings;
  limiter.on_warning([&](const std::string& w) { warnings.push_back(w); });
  // Five requests of 1,200 tokens under a 1,000-token limit: one per minute, never two at once.
  for (int i = 0; i < 5; ++i) {
    double waited = -1;
    limiter.acquire(1200, &waited).finish(1200);
    EXPECT_NEAR(t.now.load(), 60.0 * i, 0.051) << "request " << i;
    EXPECT_NEAR(waited, i == 0 ? 0.0 : 60.0, 0.051) << "request " << i;
  }
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0],
            "a request is estimated at 1200 tokens, more than the limit of 1000 tokens per minute: each "
            "such request waits until no tokens were used in the last minute");
  // A small request after it waits until the large one leaves the window, too.
  t.now = 250;
  double waited = -1;
  limiter.acquire(10, &waited).finish(10);
  EXPECT_NEAR(t.now.load(), 300.0, 0.051);
  // Requests that failed (0 real tokens) leave the window empty for the next large one.
  t.now = 1000;
  limiter.acquire(1200).finish(0);
  limiter.acquire(1200, &waited).finish(0);
  EXPECT_EQ(waited, 0);
  EXPECT_EQ(warnings.size(), 1u);
}

TEST(RateLimiter, NegativeLimitsAreRefused) {
  EXPECT_THROW(RateLimiter({-1, 0, 0}), SetupError);
  EXPECT_THROW(RateLimiter({0, -5, 0}), SetupError);
  EXPECT_THROW(RateLimiter({0, 0, -1000}), SetupError);
}

TEST(RateLimiter, InFlightLimitIsReachedAndNeverExceeded) {
  RateLimiter limiter({3, 0, 0});
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<int> started;               // thread ids in the order their permits were granted
  std::vector<bool> released(12, false);  // the test ends thread i's request
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i)
    threads.emplace_back([&, i] {
      auto permit = limiter.acquire(1);
      std::unique_lock lock(mutex);
      started.push_back(i);
      cv.wait(lock, [&] { return released[static_cast<size_t>(i)]; });
    });
  auto count_started = [&] {
    std::lock_guard lock(mutex);
    return started.size();
  };
  // Four rounds: exactly 3 requests start and hold their permits; the others wait until they end.
  for (size_t round = 1; round <= 4; ++round) {
    ASSERT_TRUE(pcglab::testing::wait_for([&] {
      return count_started() == 3 * round && limiter.in_flight() == 3;
    })) << "round "
        << round << ": " << count_started() << " started";
    EXPECT_EQ(limiter.max_in_flight_seen(), 3);
    {
      std::lock_guard lock(mutex);
      for (size_t k = 3 * (round - 1); k < 3 * round; ++k) released[static_cast<size_t>(started[k])] = true;
    }
    cv.notify_all();
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(count_started(), 12u);
  EXPECT_EQ(limiter.max_in_flight_seen(), 3);
  EXPECT_EQ(limiter.in_flight(), 0);
}

}  // namespace
}  // namespace pcglab::llm
