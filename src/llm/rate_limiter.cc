#include "llm/rate_limiter.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "core/check.h"
#include "core/log.h"

namespace pcglab::llm {

RateLimiter::RateLimiter(RateLimits limits, Clock clock, Sleeper sleeper)
    : limits_(limits), clock_(std::move(clock)), sleep_(std::move(sleeper)) {
  if (limits_.max_in_flight < 0 || limits_.requests_per_minute < 0 || limits_.tokens_per_minute < 0)
    throw SetupError(fmt::format(
        "rate limits must be 0 (no limit) or positive: {} in flight, {} requests and {} tokens per minute",
        limits_.max_in_flight, limits_.requests_per_minute, limits_.tokens_per_minute));
  warn_ = [](const std::string& message) { log_warn("{}", message); };
  if (!sleep_) sleep_ = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
  if (!clock_) {
    const auto start = std::chrono::steady_clock::now();
    clock_ = [start] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
  }
}

double RateLimiter::now() const {
  return clock_();
}

double RateLimiter::wait_needed(int64_t tokens, double t) {
  while (!window_.empty() && window_.front().time <= t - 60.0) window_.pop_front();
  double wait = 0;
  if (limits_.requests_per_minute > 0 && static_cast<int>(window_.size()) >= limits_.requests_per_minute) {
    const size_t oldest_to_expire = window_.size() - static_cast<size_t>(limits_.requests_per_minute);
    wait = std::max(wait, window_[oldest_to_expire].time + 60.0 - t);
  }
  if (limits_.tokens_per_minute > 0) {
    int64_t used = 0;
    for (const auto& s : window_) used += s.tokens;
    // A request larger than the whole budget counts as the whole budget: it starts only on an
    // empty window (and then holds the window for a minute on its own).
    const int64_t need = std::min(tokens, limits_.tokens_per_minute);
    if (used + need > limits_.tokens_per_minute) {
      int64_t freed = 0;
      for (const auto& s : window_) {
        freed += s.tokens;
        if (used - freed + need <= limits_.tokens_per_minute) {
          wait = std::max(wait, s.time + 60.0 - t);
          break;
        }
      }
    }
  }
  return wait;
}

RateLimiter::Permit RateLimiter::acquire(int64_t tokens, double* waited_s) {
  std::unique_lock lock(mutex_);
  if (limits_.tokens_per_minute > 0 && tokens > limits_.tokens_per_minute && !warned_oversized_) {
    warned_oversized_ = true;
    if (warn_)
      warn_(
          fmt::format("a request is estimated at {} tokens, more than the limit of {} tokens per minute: "
                      "each such request waits until no tokens were used in the last minute",
                      tokens, limits_.tokens_per_minute));
  }
  const double start = now();
  for (;;) {
    const bool slot_free = limits_.max_in_flight <= 0 || in_flight_ < limits_.max_in_flight;
    if (slot_free) {
      const double t = now();
      const double wait = wait_needed(tokens, t);
      if (wait <= 0) {
        const uint64_t slot = next_slot_++;
        window_.push_back({slot, t, tokens});
        max_seen_ = std::max(max_seen_, ++in_flight_);
        if (waited_s != nullptr) *waited_s = t - start;
        return Permit(this, slot);
      }
      // Time-based wait: sleep outside the lock in small steps (the clock may be a test clock).
      lock.unlock();
      sleep_(std::min(wait, 0.05));
      lock.lock();
    } else {
      changed_.wait(lock);
    }
  }
}

void RateLimiter::release(uint64_t slot, std::optional<int64_t> tokens) {
  {
    std::lock_guard lock(mutex_);
    --in_flight_;
    if (tokens)
      for (auto& s : window_)
        if (s.slot == slot) s.tokens = *tokens;
  }
  changed_.notify_all();
}

void RateLimiter::Permit::finish(int64_t tokens) {
  if (limiter_ == nullptr) return;
  limiter_->release(slot_, tokens);
  limiter_ = nullptr;
}

RateLimiter::Permit::~Permit() {
  if (limiter_ != nullptr) limiter_->release(slot_, std::nullopt);
}

int RateLimiter::in_flight() const {
  std::lock_guard lock(mutex_);
  return in_flight_;
}

int RateLimiter::max_in_flight_seen() const {
  std::lock_guard lock(mutex_);
  return max_seen_;
}

}  // namespace pcglab::llm

namespace pcglab::llm {

int64_t estimate_request_tokens(const ChatRequest& request) {
  size_t chars = 0;
  for (const auto& m : request.messages) chars += m.content.size();
  return static_cast<int64_t>(chars / 4) + (request.max_tokens ? *request.max_tokens : 1000);
}

RateLimitedCompleter::RateLimitedCompleter(std::shared_ptr<RateLimiter> limiter,
                                           std::shared_ptr<Completer> next, Estimate estimate)
    : limiter_(std::move(limiter)), next_(std::move(next)), estimate_(std::move(estimate)) {
  PCGLAB_CHECK(limiter_ != nullptr && next_ != nullptr)
      << "a rate-limited completer needs a limiter and a next layer";
  if (!estimate_) estimate_ = estimate_request_tokens;
}

Result<ChatResponse> RateLimitedCompleter::do_complete(const ChatRequest& request,
                                                       const CallContext& context) {
  auto permit = limiter_->acquire(estimate_(request));
  auto reply = next_->complete(request, context);
  permit.finish(reply.ok() ? reply.value().usage.total_tokens : 0);
  return reply;
}

}  // namespace pcglab::llm
