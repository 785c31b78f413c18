#include "birds/run_pipeline.h"

#include <atomic>
#include <memory>

#include <fmt/format.h>

#include "birds/prompt_program.h"
#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"
#include "core/log.h"
#include "core/thread_pool.h"
#include "llm/completer_stack.h"
#include "llm/dialogue.h"
#include "store/exchange_log.h"
#include "store/run_lock.h"
#include "store/run_store.h"

namespace pcglab::birds {
namespace fs = std::filesystem;
namespace {

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

// The metadata the run store keeps with a trial's outcome.
OrderedJson trial_metadata(const RunTrial& t) {
  if (!t.ok()) return {{"cached", t.cached}};
  return {{"requests", t.requests},
          {"attempts", t.attempts},
          {"cached", t.cached},
          {"latency_s", t.latency_s},
          {"prompt_tokens", t.usage.prompt_tokens},
          {"completion_tokens", t.usage.completion_tokens},
          {"total_tokens", t.usage.total_tokens}};
}

}  // namespace

std::string trial_key(char letter, int trial) {
  return fmt::format("{}/{:04}", letter, trial);
}

ItemOutcome run_trial(const TrialPlan& plan, char letter, int trial, std::string& response, RunTrial& t) {
  PCGLAB_CHECK(plan.program != nullptr && plan.completer != nullptr)
      << "a trial plan needs a program and a completer";
  const std::string key = trial_key(letter, trial);
  t.letter = letter;
  t.trial = trial;
  llm::CallContext context;
  context.item = key;
  context.trial = trial;
  const RunProgress* progress = plan.progress;
  context.on_retry = [progress](int, double, const std::string&) {
    if (progress != nullptr && progress->counter) progress->counter("retries", 1);
  };
  context.on_reply = [progress, &t](const llm::ChatResponse& r) {
    if (r.source != llm::ReplySource::kServer) {
      ++t.cached;
      return;
    }
    t.latency_s += r.latency_s;
    if (progress != nullptr && progress->counter) progress->counter("tokens", r.usage.total_tokens);
  };
  const auto done = run_item(key, [&]() -> ItemOutcome {
    const llm::PromptProgram program = program_for_object(*plan.program, std::string(1, letter));
    const auto result = llm::run_conversation(*plan.completer, program, plan.base, context);
    if (!result.ok()) return ItemOutcome::failure(key, ErrorKind::kLlm, result.error().message);
    const auto& r = result.value();
    t.requests = r.requests;
    t.attempts = r.attempts;
    t.usage = r.usage;
    write_file_atomic(raw_response_path(plan.team_dir, plan.team, letter, trial), r.response);
    response = r.response;
    return ItemOutcome::success(key);
  });
  // An exception inside the trial (its response file could not be written, a bug): its error.
  t.outcome = done.ok() ? done.value() : ItemOutcome::from_error(key, done.error(), ErrorKind::kIo);
  t.outcome.metadata = trial_metadata(t);
  return t.outcome;
}

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
  if (!has_object(program))
    log_warn("{}: the prompt has no <OBJECT>: every letter gets the same prompt", o.prompt.string());

  RunSummary summary;
  summary.team_dir = o.out / o.team;
  const OrderedJson config = run_config(o, program);
  // One process per run folder, for the whole run: a second would request the same trials.
  const store::RunLock folder_lock(summary.team_dir, summary.team_dir / "logs" / "run.lock");
  const fs::path store_file = summary.team_dir / "logs" / "run.sqlite";
  store::RunStore store(store_file);
  const int64_t run = store.open_run("birds-run", config.dump());
  // A run killed mid-write leaves unfinished temporaries beside its responses: clear them.
  remove_stale_temporaries(summary.team_dir / "raw");
  std::vector<std::string> keys;
  for (char letter : o.letters)
    for (int t = 1; t <= o.trials; ++t) keys.push_back(trial_key(letter, t));
  store.add_items(run, keys);
  // Trials left to run need a key for a remote server: say so before any request is sent (a run
  // whose trials all finished earlier needs none, and builds no client).
  llm::CompleterStack stack;
  if (const auto counts = store.counts(run); counts.pending + counts.error > 0) {
    llm::require_api_key(o.client);
    llm::CompleterStackOptions so;
    so.client = o.client;
    so.limits = llm::RateLimits{o.concurrency, o.requests_per_minute, o.tokens_per_minute};
    const int64_t estimate = estimate_tokens(program, o);
    so.estimate_tokens = [estimate](const llm::ChatRequest&) { return estimate; };
    so.cache = o.cache;
    so.record = std::make_shared<store::ExchangeLog>(store_file);
    so.record_scope = "birds-run";
    stack = llm::make_completer_stack(so);
  }

  auto write_run_json = [&] {
    OrderedJson meta = config;
    meta["base_url"] = o.client.base_url;
    const auto counts = store.counts(run);
    meta["counts"] = {{"ok", counts.ok}, {"error", counts.error}, {"pending", counts.pending}};
    write_json_file(summary.team_dir / "run.json", meta);
  };
  write_run_json();

  TrialPlan plan;
  plan.team_dir = summary.team_dir;
  plan.team = o.team;
  plan.program = &program;
  plan.base.model = o.model;
  plan.base.temperature = o.temperature;
  plan.base.top_p = o.top_p;
  plan.base.seed = o.seed;
  plan.base.max_tokens = o.max_tokens;
  plan.completer = stack.top.get();
  plan.progress = &progress;

  summary.trials.resize(keys.size());
  ThreadPool pool(std::max(1, o.concurrency));
  pool.parallel_for(keys.size(), [&](size_t i) {
    RunTrial& t = summary.trials[i];
    const char letter = o.letters[i / o.trials];
    const int trial = static_cast<int>(i % o.trials) + 1;
    if (const auto existing = store.item(run, keys[i]); existing && existing->status == ItemStatus::kOk) {
      // Finished earlier: make sure its file is there (it is written before the store is updated).
      const fs::path file = raw_response_path(summary.team_dir, o.team, letter, trial);
      if (!fs::exists(file)) write_file_atomic(file, existing->output);
      t.letter = letter;
      t.trial = trial;
      t.outcome = ItemOutcome::success(keys[i]);
      t.resumed = true;
      if (progress.trial_done) progress.trial_done(t);
      return;
    }
    std::string response;
    const ItemOutcome outcome = run_trial(plan, letter, trial, response, t);
    OrderedJson stored = outcome.metadata;
    if (!outcome.ok()) stored["kind"] = error_kind_name(outcome.kind);
    store.finish(run, keys[i], outcome.status, response, stored.dump(), outcome.message);
    if (progress.trial_done) progress.trial_done(t);
  });
  for (const auto& t : summary.trials) {
    summary.ok += t.ok() && !t.resumed;
    summary.failed += !t.ok();
    summary.resumed += t.resumed;
    summary.tokens += t.usage.total_tokens;
  }
  write_run_json();
  return summary;
}

}  // namespace pcglab::birds
