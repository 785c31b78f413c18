// A competition run: a prompt × letters × trials × model against an OpenAI-compatible server,
// resumable. Every trial is an item of the run store (<out>/<team>/logs/run.sqlite) with its
// status (pending, ok, error and why), raw response, usage and latency; every request goes through
// the response cache (unless disabled) and the rate limits. Responses are written in the
// competition layout, <out>/<team>/raw/<C>/<team>_<C>_<trial>.txt, so `birds eval` reads them.
//
// Killing the process at any moment and running the same command again finishes the remaining
// trials: a finished trial is in the store (and its requests in the cache), so it is never
// requested again; only requests in flight at the kill are sent again.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "llm/chat_client.h"
#include "llm/rate_limiter.h"

namespace pcglab::birds {

struct RunOptions {
  std::filesystem::path prompt;  // text file (<OBJECT>) or conversation (.json/.yaml)
  std::string team;
  std::string model;
  std::string letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  int trials = 10;
  int concurrency = 8;  // trials in progress at once (also the in-flight request limit)
  std::filesystem::path out = "runs";
  std::optional<std::filesystem::path> cache;  // nullopt: no cache
  llm::ClientConfig client;                    // base URL, key (environment only), timeout, retries
  std::optional<double> temperature, top_p;
  std::optional<int64_t> seed;
  std::optional<int> max_tokens;
  int requests_per_minute = 0, tokens_per_minute = 0;  // 0: unlimited
};

struct RunTrial {
  char letter = 'A';
  int trial = 1;
  std::string status;  // "ok", "error", or "resumed" (finished by an earlier run)
  std::string error;
  int requests = 0, attempts = 0, cached = 0;  // cached: requests answered by the cache
  llm::Usage usage;
  double latency_s = 0;
};

struct RunSummary {
  std::filesystem::path team_dir;
  std::vector<RunTrial> trials;  // letter-major
  int ok = 0, failed = 0, resumed = 0;
  int64_t tokens = 0;
};

struct RunProgress {
  std::function<void(const RunTrial&)> trial_done;
  std::function<void(const std::string& counter, int64_t delta)> counter;  // "retries", "tokens"
};

// Throws SetupError for bad setup (missing prompt, empty letters, a rerun with other settings).
RunSummary run_prompt(const RunOptions& options, const RunProgress& progress = {});

// The file a trial's response goes to.
std::filesystem::path raw_response_path(const std::filesystem::path& team_dir, const std::string& team,
                                        char letter, int trial);

}  // namespace pcglab::birds
