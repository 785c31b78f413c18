// A competition run: a prompt × letters × trials × model against an OpenAI-compatible server,
// resumable and shardable. Every trial is an item of the batch driver (batch/driver.h), rooted at
// the team folder: its outcome (ok, or an error with its kind and why; usage, latency) is in the
// team's store (<out>/<team>/logs/batch.sqlite, stage "run"), keyed like the evaluation's items
// ("team/A/team_A_3"), so `--shard i/n` gives a run shard the same trials as the same eval shard. Responses
// are written in the competition layout, <out>/<team>/raw/<C>/<team>_<C>_<trial>.txt, so `birds eval` reads
// them.
//
// Requests go through the completer stack record(cache(limit(http))) (llm/completer_stack.h): the
// run store's exchange record, the response cache (unless disabled), the rate limits and one
// keep-alive HTTP client shared by every trial. `<OBJECT>` is replaced by the letter here
// (birds/prompt_program.h); the LLM layer sends the text as given.
//
// Killing the process at any moment and running the same command again finishes the remaining
// trials: a finished trial is in the store, and every finished request of an unfinished trial
// (a conversation's first turns) in its exchange record and the cache, so none is requested
// again; only requests in flight at the kill are sent again. A trial whose response file was
// deleted runs again and gets its reply back from the record, without a request.
//
// Shards (`--shard i/n`): each shard runs its trials with its own store and lock
// (logs/shards/<i>-of-<n>.sqlite), so concurrent shards never wait for each other; the next
// unsharded run, or `pcglab merge <team folder>`, absorbs them, requests any trial no shard
// finished and writes run.json. Run folders of earlier versions (logs/run.sqlite) are read: their
// finished trials are not requested again.
//
// Each trial's work is one function, run_trial, whose result is the trial's ItemOutcome (key
// "A/0003"; errors of the service are ErrorKind::kLlm), so a batch driver can run it as an item.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "batch/item_outcome.h"
#include "batch/shard.h"
#include "llm/chat_client.h"
#include "llm/completer.h"
#include "llm/prompt.h"

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
  batch::Shard shard;                                  // this process's trials (default: all)
  // The prompt itself instead of the file (`pcglab merge` runs the program the shards recorded).
  std::optional<llm::PromptProgram> program;
};

struct RunTrial {
  char letter = 'A';
  int trial = 1;
  // key "team/A/team_A_3"; ok, or an error with its kind (kLlm: the service failed after its retries; kIo:
  // the response file could not be written; kInternal: a bug) and message.
  ItemOutcome outcome;
  bool resumed = false;  // finished by an earlier run (or shard): nothing was requested (outcome ok)
  // This run's HTTP requests for the trial, failed and retried ones included: `requests` those that
  // reached the server (what may be billed; also the outcome's ItemOutcome::requests), `attempts`
  // all (with those that never connected); `cached`: replies that needed no request.
  int requests = 0, attempts = 0, cached = 0;
  // Requests earlier runs of the trial sent (a rerun of a failed trial): the stored outcome's
  // `requests` is earlier_requests + requests, the trial's total over all runs.
  int earlier_requests = 0;
  llm::Usage usage;
  double latency_s = 0;

  bool ok() const { return outcome.ok(); }
  // "ok", "error", or "resumed" (ok, finished by an earlier run): the table's status column.
  std::string status_label() const { return resumed ? "resumed" : status_name(outcome.status); }
};

struct RunSummary {
  std::filesystem::path team_dir;
  std::vector<RunTrial> trials;  // the shard's trials (all when unsharded), letter-major
  int ok = 0, failed = 0, resumed = 0;
  int64_t tokens = 0;
  int64_t requests = 0;  // requests this run sent to the server (over its trials)
};

struct RunProgress {
  std::function<void(const RunTrial&)> trial_done;
  // "requests" (each request that reached the server), "retries", "tokens"
  std::function<void(const std::string& counter, int64_t delta)> counter;
  std::function<void(const llm::RetryNotice&)> retry;  // before each retry wait
};

// What every trial of a run shares: the program (with <OBJECT>), the request settings and the
// completer stack.
struct TrialPlan {
  std::filesystem::path team_dir;
  std::string team;
  const llm::PromptProgram* program = nullptr;
  llm::ChatRequest base;  // model and sampling settings
  llm::Completer* completer = nullptr;
  const RunProgress* progress = nullptr;  // counters ("retries", "tokens"); may be null
};

// The trial's item key: "team/A/team_A_3" (the evaluation's key for the same trial).
std::string run_trial_key(const std::string& team, char letter, int trial);

// The driver's run name for `birds run` (what `pcglab merge` finds), and the settings it records.
inline constexpr const char* kRunName = "birds run";
// Everything `pcglab merge` needs to finish a sharded run (the key excepted: read from the
// environment): {"run": what identifies the run (prompt, model, sampling, letters, trials),
// "client": base URL (without userinfo: llm::redact_url), limits, cache, timeouts}.
OrderedJson run_settings(const RunOptions& options, const llm::PromptProgram& program);
// The options a merge runs with: the recorded settings, for the team folder `team_dir`, except what
// reaches outside the folder: the server and the key come from the environment (a recorded base
// URL that differs is logged, not used) and the cache is <out>/llm-cache.sqlite when one was used.
RunOptions run_options_from_settings(const std::filesystem::path& team_dir, const Json& settings);

// One trial: the conversation for `letter` (<OBJECT> replaced) through the plan's completer, the
// response written to its file (atomically) and returned in `response`. Never throws for the
// trial's own failures (run_item is its boundary); a SetupError (a store or cache that cannot be
// used) passes through. `details` gets the counts (requests, attempts, cached, tokens, latency).
ItemOutcome run_trial(const TrialPlan& plan, char letter, int trial, std::string& response,
                      RunTrial& details);

// Throws SetupError for bad setup (missing prompt, empty letters, a rerun with other settings).
RunSummary run_prompt(const RunOptions& options, const RunProgress& progress = {});

// The file a trial's response goes to.
std::filesystem::path raw_response_path(const std::filesystem::path& team_dir, const std::string& team,
                                        char letter, int trial);

}  // namespace pcglab::birds
