// Limits for calls to a model server: requests in flight, requests per minute and tokens per
// minute (a sliding 60-second window of the requests started, each counted with its tokens).
// acquire() blocks until a request may start; the returned permit ends the request in flight and
// records its real token count. The clock is injectable so tests are exact and instant.
//
// A request estimated at more tokens than the per-minute limit counts as the whole limit: it
// starts only when the window holds no tokens, and the first such request triggers one warning.
//
// RateLimitedCompleter puts the limits in a completer stack: each call takes a permit (estimated
// tokens), calls the next layer, and finishes the permit with the reply's real token count.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "llm/chat.h"
#include "llm/completer.h"

namespace pcglab::llm {

struct RateLimits {
  int max_in_flight = 8;          // 0: unlimited
  int requests_per_minute = 0;    // 0: unlimited
  int64_t tokens_per_minute = 0;  // 0: unlimited
};

class RateLimiter {
 public:
  using Clock = std::function<double()>;        // seconds, monotonic
  using Sleeper = std::function<void(double)>;  // waits that many seconds
  using Warning = std::function<void(const std::string&)>;

  // Throws SetupError for a negative limit.
  explicit RateLimiter(RateLimits limits, Clock clock = {}, Sleeper sleeper = {});
  // Where the one warning goes (default: log_warn).
  void on_warning(Warning fn) { warn_ = std::move(fn); }

  class Permit {
   public:
    Permit() = default;
    Permit(Permit&& o) noexcept : limiter_(o.limiter_), slot_(o.slot_) { o.limiter_ = nullptr; }
    Permit& operator=(Permit&&) = delete;
    Permit(const Permit&) = delete;
    ~Permit();
    // The request's real token count (replaces the estimate in the minute window).
    void finish(int64_t tokens);

   private:
    friend class RateLimiter;
    Permit(RateLimiter* limiter, uint64_t slot) : limiter_(limiter), slot_(slot) {}
    RateLimiter* limiter_ = nullptr;
    uint64_t slot_ = 0;
  };

  // Waits until a request estimated at `tokens` may start. Returns the seconds waited.
  Permit acquire(int64_t tokens, double* waited_s = nullptr);

  int in_flight() const;
  int max_in_flight_seen() const;

 private:
  struct Started {
    uint64_t slot;
    double time;
    int64_t tokens;
  };
  double now() const;
  // Seconds until the window allows a request of `tokens`, 0 when it may start now.
  double wait_needed(int64_t tokens, double t);
  void release(uint64_t slot, std::optional<int64_t> tokens);

  RateLimits limits_;
  Clock clock_;
  Sleeper sleep_;
  Warning warn_;
  bool warned_oversized_ = false;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Started> window_;
  int in_flight_ = 0, max_seen_ = 0;
  uint64_t next_slot_ = 0;
};

// The tokens a request is expected to use before it is sent: its characters / 4 plus the reply's
// max_tokens (1000 when not set).
int64_t estimate_request_tokens(const ChatRequest& request);

class RateLimitedCompleter : public Completer {
 public:
  using Estimate = std::function<int64_t(const ChatRequest&)>;
  // `estimate` defaults to estimate_request_tokens.
  RateLimitedCompleter(std::shared_ptr<RateLimiter> limiter, std::shared_ptr<Completer> next,
                       Estimate estimate = {});

 protected:
  Result<ChatResponse> do_complete(const ChatRequest& request, const CallContext& context) override;

 private:
  std::shared_ptr<RateLimiter> limiter_;
  std::shared_ptr<Completer> next_;
  Estimate estimate_;
};

}  // namespace pcglab::llm
