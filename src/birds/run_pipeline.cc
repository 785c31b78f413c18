#include "birds/run_pipeline.h"

#include <atomic>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"
#include "core/log.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "llm/prompt.h"
#include "llm/response_cache.h"
#include "store/run_lock.h"
#include "store/run_store.h"

namespace pcglab::birds {
namespace fs = std::filesystem;
namespace {

std::string item_key(char letter, int trial) {
  return fmt::format("{}/{:04}", letter, trial);
}

// What identifies the run: everything that changes the requests (never the key).
OrderedJson run_config(const RunOptions& o, const llm::PromptProgram& program) {
  OrderedJson prompt;
  if (program.system) prompt["system"] = *program.system;
  prompt["turns"] = program.turns;
  OrderedJson j = {
      {"prompt_file", o.prompt.filename().string()},
      {"prompt", program.turns.size() == 1 && !program.system ? OrderedJson(program.turns[0]) : prompt},
      {"model", o.model},
      {"letters", o.letters},
      {"trials", o.trials}};
  if (o.temperature) j["temperature"] = *o.temperature;
  if (o.top_p) j["top_p"] = *o.top_p;
  if (o.seed) j["seed"] = *o.seed;
  if (o.max_tokens) j["max_tokens"] = *o.max_tokens;
  return j;
}

int64_t estimate_tokens(const llm::PromptProgram& program, const RunOptions& o) {
  size_t chars = program.system ? program.system->size() : 0;
  for (const auto& t : program.turns) chars += t.size();
  return static_cast<int64_t>(chars / 4) + (o.max_tokens ? *o.max_tokens : 1000);
}

}  // namespace

fs::path raw_response_path(const fs::path& team_dir, const std::string& team, char letter, int trial) {
  return team_dir / "raw" / std::string(1, letter) / fmt::format("{}_{}_{}.txt", team, letter, trial);
}

RunSummary run_prompt(const RunOptions& o, const RunProgress& progress) {
  if (o.team.empty() || o.team.find_first_of("/\\") != std::string::npos)
    throw SetupError(fmt::format("--team '{}': give a plain folder name", o.team));
  if (o.model.empty()) throw SetupError("--model is required (the model name the server knows)");
  if (o.letters.empty()) throw SetupError("--letters: no letters");
  for (char c : o.letters)
    if (c < 'A' || c > 'Z') throw SetupError(fmt::format("--letters: '{}' is not a capital letter", c));
  if (o.trials < 1) throw SetupError("--trials must be at least 1");
  if (o.concurrency < 1)
    throw SetupError(fmt::format("--concurrency must be at least 1 (got {})", o.concurrency));
  if (o.temperature && !(*o.temperature >= 0 && *o.temperature <= 2))
    throw SetupError(fmt::format("--temperature must be from 0 to 2 (got {})", *o.temperature));
  if (o.top_p && !(*o.top_p >= 0 && *o.top_p <= 1))
    throw SetupError(fmt::format("--top-p must be from 0 to 1 (got {})", *o.top_p));
  if (o.max_tokens && *o.max_tokens < 1)
    throw SetupError(fmt::format("--max-tokens must be at least 1 (got {})", *o.max_tokens));
  llm::validate_client_settings(o.client);
  const llm::PromptProgram program = llm::load_prompt(o.prompt);
  if (!program.has_object)
    log_warn("{}: the prompt has no <OBJECT>: every letter gets the same prompt", o.prompt.string());

  llm::RateLimiter limiter({o.concurrency, o.requests_per_minute, o.tokens_per_minute});

  RunSummary summary;
  summary.team_dir = o.out / o.team;
  const OrderedJson config = run_config(o, program);
  // One process per run folder, for the whole run: a second would request the same trials.
  const store::RunLock folder_lock(summary.team_dir, summary.team_dir / "logs" / "run.lock");
  store::RunStore store(summary.team_dir / "logs" / "run.sqlite");
  const int64_t run = store.open_run("birds-run", config.dump());
  // A run killed mid-write leaves unfinished temporaries beside its responses: clear them.
  remove_stale_temporaries(summary.team_dir / "raw");
  std::vector<std::string> keys;
  for (char letter : o.letters)
    for (int t = 1; t <= o.trials; ++t) keys.push_back(item_key(letter, t));
  store.add_items(run, keys);
  // Trials left to run need a key for a remote server: say so before any request is sent (a run
  // whose trials all finished earlier needs none).
  if (const auto counts = store.counts(run); counts.pending + counts.error > 0)
    llm::require_api_key(o.client);
  std::unique_ptr<llm::ResponseCache> cache;
  if (o.cache) cache = std::make_unique<llm::ResponseCache>(*o.cache);

  auto write_run_json = [&] {
    OrderedJson meta = config;
    meta["base_url"] = o.client.base_url;
    const auto counts = store.counts(run);
    meta["counts"] = {{"ok", counts.ok}, {"error", counts.error}, {"pending", counts.pending}};
    write_json_file(summary.team_dir / "run.json", meta);
  };
  write_run_json();

  llm::ChatRequest base;
  base.model = o.model;
  base.temperature = o.temperature;
  base.top_p = o.top_p;
  base.seed = o.seed;
  base.max_tokens = o.max_tokens;
  const int64_t estimate = estimate_tokens(program, o);

  summary.trials.resize(keys.size());
  ThreadPool pool(std::max(1, o.concurrency));
  pool.parallel_for(keys.size(), [&](size_t i) {
    RunTrial& t = summary.trials[i];
    t.letter = o.letters[i / o.trials];
    t.trial = static_cast<int>(i % o.trials) + 1;
    const fs::path file = raw_response_path(summary.team_dir, o.team, t.letter, t.trial);
    const auto existing = store.item(run, keys[i]);
    if (existing && existing->status == store::ItemStatus::kOk) {
      // Finished earlier: make sure its file is there (it is written before the store is updated).
      if (!fs::exists(file)) write_file_atomic(file, existing->output);
      t.status = "resumed";
      if (progress.trial_done) progress.trial_done(t);
      return;
    }
    llm::ClientConfig cc = o.client;
    cc.jitter_seed = derive_seed(o.client.jitter_seed, i);
    llm::ChatClient client(cc);
    client.on_retry([&](int, double, const std::string&) {
      if (progress.counter) progress.counter("retries", 1);
    });
    auto complete = [&](const llm::ChatRequest& request) -> Result<llm::ChatResponse> {
      const std::string key = cache ? llm::cache_key(request, t.trial) : std::string();
      if (cache)
        if (auto hit = cache->get(key)) {
          ++t.cached;
          return *hit;
        }
      auto permit = limiter.acquire(estimate);
      auto reply = client.complete(request);
      permit.finish(reply.ok() ? reply.value().usage.total_tokens : 0);
      if (reply.ok()) {
        if (cache) {
          try {
            cache->put(key, request, reply.value());
          } catch (const SetupError& e) {  // the reply still reaches the response file and the store
            log_warn("{} trial {}: the reply is not cached: {}", t.letter, t.trial, e.what());
          }
        }
        t.latency_s += reply.value().latency_s;
        if (progress.counter) progress.counter("tokens", reply.value().usage.total_tokens);
      }
      return reply;
    };
    const auto result = llm::run_conversation(complete, program, std::string(1, t.letter), base);
    if (result.ok()) {
      const auto& r = result.value();
      t.status = "ok";
      t.requests = r.requests;
      t.attempts = r.attempts;
      t.usage = r.usage;
      write_file_atomic(file, r.response);
      const OrderedJson meta = {{"requests", r.requests},
                                {"attempts", r.attempts},
                                {"cached", t.cached},
                                {"latency_s", t.latency_s},
                                {"prompt_tokens", r.usage.prompt_tokens},
                                {"completion_tokens", r.usage.completion_tokens},
                                {"total_tokens", r.usage.total_tokens}};
      store.finish(run, keys[i], store::ItemStatus::kOk, r.response, meta.dump(), "");
    } else {
      t.status = "error";
      t.error = result.error().message;
      store.finish(run, keys[i], store::ItemStatus::kError, "", OrderedJson{{"cached", t.cached}}.dump(),
                   t.error);
    }
    if (progress.trial_done) progress.trial_done(t);
  });
  for (const auto& t : summary.trials) {
    summary.ok += t.status == "ok";
    summary.failed += t.status == "error";
    summary.resumed += t.status == "resumed";
    summary.tokens += t.usage.total_tokens;
  }
  write_run_json();
  return summary;
}

}  // namespace pcglab::birds
