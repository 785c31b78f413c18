#include "birds/run_pipeline.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>

#include <fmt/format.h>

#include "batch/driver.h"
#include "birds/prompt_program.h"
#include "birds/text_pipeline.h"
#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"
#include "core/log.h"
#include "core/thread_pool.h"
#include "llm/completer_stack.h"
#include "llm/dialogue.h"
#include "store/exchange_log.h"
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
  const int requests = t.earlier_requests + t.requests;  // over all runs of the trial
  if (!t.ok()) return {{"requests", requests}, {"attempts", t.attempts}, {"cached", t.cached}};
  return {{"requests", requests},
          {"attempts", t.attempts},
          {"cached", t.cached},
          {"latency_s", t.latency_s},
          {"prompt_tokens", t.usage.prompt_tokens},
          {"completion_tokens", t.usage.completion_tokens},
          {"total_tokens", t.usage.total_tokens}};
}

}  // namespace

std::string run_trial_key(const std::string& team, char letter, int trial) {
  const std::string c(1, letter);
  return trial_key(team, c, fmt::format("{}_{}_{}", team, c, trial));
}

OrderedJson run_settings(const RunOptions& o, const llm::PromptProgram& program) {
  // The base URL without its userinfo (credentials are recorded nowhere).
  OrderedJson client = {{"base_url", llm::redact_url(o.client.base_url)},
                        {"timeout_s", o.client.timeout_s},
                        {"max_retries", o.client.max_retries},
                        {"backoff_base_s", o.client.backoff_base_s},
                        {"keep_alive", o.client.keep_alive},
                        {"max_response_bytes", o.client.max_response_bytes},
                        {"concurrency", o.concurrency},
                        {"requests_per_minute", o.requests_per_minute},
                        {"tokens_per_minute", o.tokens_per_minute},
                        {"cache", o.cache ? OrderedJson(fs::absolute(*o.cache).string()) : OrderedJson()}};
  return {{"run", run_config(o, program)}, {"client", client}};
}

RunOptions run_options_from_settings(const fs::path& team_dir, const Json& settings) {
  const std::string where = "the settings recorded for `birds run` in " + team_dir.string();
  const Json run = json_field<Json>(settings, "run", where);
  const Json client = json_field<Json>(settings, "client", where);
  RunOptions o;
  o.out = team_dir.parent_path();
  o.team = team_dir.filename().string();
  o.prompt = json_field<std::string>(run, "prompt_file", where);
  llm::PromptProgram program;
  program.source = o.prompt.string() + " (as recorded)";
  const Json& prompt = json_field<Json>(run, "prompt", where);
  if (prompt.is_string()) {
    program.turns.push_back(prompt.get<std::string>());
  } else {
    if (prompt.contains("system")) program.system = json_field<std::string>(prompt, "system", where);
    program.turns = json_field<std::vector<std::string>>(prompt, "turns", where);
  }
  o.program = program;
  o.model = json_field<std::string>(run, "model", where);
  o.letters = json_field<std::string>(run, "letters", where);
  o.trials = json_field<int>(run, "trials", where);
  if (run.contains("temperature")) o.temperature = run["temperature"].get<double>();
  if (run.contains("top_p")) o.top_p = run["top_p"].get<double>();
  if (run.contains("seed")) o.seed = run["seed"].get<int64_t>();
  if (run.contains("max_tokens")) o.max_tokens = run["max_tokens"].get<int>();
  // The endpoint and the key come from this process's environment, never from the folder: a
  // store whose base_url was rewritten must not receive the requests (and the key). The recorded
  // URL has no userinfo (run_settings), so it is compared with the environment's without it.
  o.client = llm::client_config_from_env(o.client);
  const std::string used_url = llm::redact_url(o.client.base_url);
  const std::string recorded_url = json_field_or<std::string>(client, "base_url", used_url, where);
  if (recorded_url != used_url)
    log_warn(
        "{}: the shards ran against {}; this merge sends any request to {} (OPENAI_BASE_URL, or the "
        "default): the server always comes from the environment, never from a run folder",
        team_dir.string(), recorded_url, used_url);
  o.client.timeout_s = json_field_or<double>(client, "timeout_s", o.client.timeout_s, where);
  o.client.max_retries = json_field_or<int>(client, "max_retries", o.client.max_retries, where);
  o.client.backoff_base_s = json_field_or<double>(client, "backoff_base_s", o.client.backoff_base_s, where);
  o.client.keep_alive = json_field_or<bool>(client, "keep_alive", true, where);
  o.client.max_response_bytes =
      json_field_or<int64_t>(client, "max_response_bytes", o.client.max_response_bytes, where);
  o.concurrency = json_field_or<int>(client, "concurrency", o.concurrency, where);
  o.requests_per_minute = json_field_or<int>(client, "requests_per_minute", 0, where);
  o.tokens_per_minute = json_field_or<int>(client, "tokens_per_minute", 0, where);
  // The cache the command itself would use (<out>/llm-cache.sqlite), never a path from the folder.
  if (client.contains("cache") && client["cache"].is_string()) {
    o.cache = o.out / "llm-cache.sqlite";
    const fs::path recorded_cache = client["cache"].get<std::string>();
    if (fs::absolute(recorded_cache).lexically_normal() != fs::absolute(*o.cache).lexically_normal())
      log_warn(
          "{}: the shards used the cache {}; this merge uses {} (a run folder never names a file to write)",
          team_dir.string(), recorded_cache.string(), o.cache->string());
  }
  return o;
}

ItemOutcome run_trial(const TrialPlan& plan, char letter, int trial, std::string& response, RunTrial& t) {
  PCGLAB_CHECK(plan.program != nullptr && plan.completer != nullptr)
      << "a trial plan needs a program and a completer";
  const std::string key = run_trial_key(plan.team, letter, trial);
  t.letter = letter;
  t.trial = trial;
  llm::CallContext context;
  context.item = key;
  context.trial = trial;
  const RunProgress* progress = plan.progress;
  context.on_retry = [progress](const llm::RetryNotice& retry) {
    if (progress == nullptr) return;
    if (progress->counter) progress->counter("retries", 1);
    if (progress->retry) progress->retry(retry);
  };
  // Every attempt is counted, a failed call's too: `requests` those that reached the server (what
  // may be billed), `attempts` all of them.
  context.on_attempt = [progress, &t](bool sent) {
    ++t.attempts;
    if (!sent) return;
    ++t.requests;
    if (progress != nullptr && progress->counter) progress->counter("requests", 1);
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
    t.usage = r.usage;
    write_file_atomic(raw_response_path(plan.team_dir, plan.team, letter, trial), r.response);
    response = r.response;
    return ItemOutcome::success(key);
  });
  // An exception inside the trial (its response file could not be written, a bug): its error.
  t.outcome = done.ok() ? done.value() : ItemOutcome::from_error(key, done.error(), ErrorKind::kIo);
  t.outcome.metadata = trial_metadata(t);
  t.outcome.requests = t.earlier_requests + t.requests;
  return t.outcome;
}

fs::path raw_response_path(const fs::path& team_dir, const std::string& team, char letter, int trial) {
  return team_dir / "raw" / std::string(1, letter) / fmt::format("{}_{}_{}.txt", team, letter, trial);
}

namespace {

// A run in this folder with other settings: refused, naming the store (a rerun must be the same
// command; the earlier run's trials would be mixed with the new ones). `run` is the settings'
// "run" part; operational settings (limits, timeouts, the server) may change between reruns.
void require_same_run(const fs::path& store_file, const std::string& run_name, const OrderedJson& run,
                      bool legacy) {
  // Only a plain file: the driver refuses a store that is a symbolic link, naming it.
  if (std::error_code ec; !fs::is_regular_file(fs::symlink_status(store_file, ec))) return;
  store::RunStore st(store_file);
  const auto recorded = st.run_config(run_name);
  if (!recorded) return;
  const Json j = as_setup_input([&] { return parse_json(*recorded, store_file.string()); });
  const Json recorded_run = legacy ? j : j.value("run", Json());
  if (recorded_run == Json::parse(run.dump())) return;
  throw SetupError(
      fmt::format("run store {}: run '{}' was started with other settings; rerun the same "
                  "command to resume it, or write the new run to another folder",
                  store_file.string(), run_name));
}

// Finished trials of a run folder written before the batch driver (logs/run.sqlite, keys "A/0003").
std::map<std::string, std::string> legacy_finished(const fs::path& team_dir, const OrderedJson& run) {
  std::map<std::string, std::string> out;
  const fs::path file = team_dir / "logs" / "run.sqlite";
  if (std::error_code ec; !fs::is_regular_file(fs::symlink_status(file, ec))) return out;  // never a link
  store::RunStore st(file);
  if (!st.run_config("birds-run")) return out;
  const int64_t id = st.open_run("birds-run", run.dump());  // equal: require_same_run checked it
  for (const auto& item : st.items(id, ItemStatus::kOk)) out[item.key] = item.output;
  return out;
}

}  // namespace

RunSummary run_prompt(const RunOptions& o, const RunProgress& progress) {
  if (o.team.empty() || o.team.find_first_of("/\\") != std::string::npos)
    throw SetupError(fmt::format("--team '{}': give a plain folder name", o.team));
  if (o.model.empty()) throw SetupError("--model is required (the model name the server knows)");
  llm::require_header_safe("--model", o.model);
  if (o.letters.empty()) throw SetupError("--letters: no letters");
  for (char c : o.letters)
    if (c < 'A' || c > 'Z') throw SetupError(fmt::format("--letters: '{}' is not a capital letter", c));
  // The CLI's ranges, checked here too: a merge takes them from the settings a run folder recorded.
  if (o.trials < 1 || o.trials > 1000)
    throw SetupError(fmt::format("--trials must be from 1 to 1000 (got {})", o.trials));
  if (o.concurrency < 1 || o.concurrency > 256)
    throw SetupError(fmt::format("--concurrency must be from 1 to 256 (got {})", o.concurrency));
  if (o.temperature && !(*o.temperature >= 0 && *o.temperature <= 2))
    throw SetupError(fmt::format("--temperature must be from 0 to 2 (got {})", *o.temperature));
  if (o.top_p && !(*o.top_p >= 0 && *o.top_p <= 1))
    throw SetupError(fmt::format("--top-p must be from 0 to 1 (got {})", *o.top_p));
  if (o.max_tokens && *o.max_tokens < 1)
    throw SetupError(fmt::format("--max-tokens must be at least 1 (got {})", *o.max_tokens));
  llm::validate_client_settings(o.client);
  const llm::PromptProgram program = o.program ? *o.program : llm::load_prompt(o.prompt);
  if (!has_object(program))
    log_warn("{}: the prompt has no <OBJECT>: every letter gets the same prompt", program.source);

  RunSummary summary;
  summary.team_dir = o.out / o.team;
  const OrderedJson settings = run_settings(o, program);
  const OrderedJson& config = settings["run"];
  for (const fs::path& store_file : {batch::Driver::store_path(summary.team_dir, o.shard),
                                     batch::Driver::store_path(summary.team_dir, {})})
    require_same_run(store_file, kRunName, config, false);
  require_same_run(summary.team_dir / "logs" / "run.sqlite", "birds-run", config, true);

  ThreadPool pool(std::max(1, o.concurrency));
  batch::DriverOptions driver_options;
  driver_options.shard = o.shard;
  driver_options.progress = false;  // the command's own bar counts retries and tokens too
  driver_options.run_name = kRunName;
  driver_options.config = dump_json(settings);
  // One process per run folder (per shard when sharded): a second would request the same trials.
  batch::Driver driver(summary.team_dir, pool, driver_options);
  const fs::path store_file = batch::Driver::store_path(summary.team_dir, o.shard);
  const std::map<std::string, std::string> legacy = legacy_finished(summary.team_dir, config);

  // The stage: one item per trial, its hash the run's settings and the trial, its output the file.
  batch::StageSpec spec;
  spec.name = "run";
  spec.output_dirs = {summary.team_dir / "raw"};
  std::vector<std::pair<char, int>> trial_of;
  for (char letter : o.letters)
    for (int t = 1; t <= o.trials; ++t) {
      batch::Item item;
      item.key = run_trial_key(o.team, letter, t);
      item.hash = batch::ContentHash().add(config.dump()).add(item.key).hex();
      item.outputs = {raw_response_path(summary.team_dir, o.team, letter, t)};
      spec.items.push_back(std::move(item));
      trial_of.emplace_back(letter, t);
    }
  // What earlier runs of each trial sent (stored outcomes; a reused trial keeps its own): a rerun of
  // a failed trial adds its requests to them, so the store counts every request of every run.
  std::map<std::string, int> earlier_requests;
  for (const auto& row : store::RunStore(store_file).outcomes(spec.name))
    earlier_requests[row.key] = ItemOutcome::from_json(parse_json(row.outcome, store_file.string())).requests;
  // run.json's "requests": what the run's trials sent to the server, over all runs (as stored).
  auto write_run_json = [&](int64_t ok, int64_t failed, int64_t requests) {
    OrderedJson meta = config;
    meta["base_url"] = llm::redact_url(o.client.base_url);
    const auto pending = static_cast<int64_t>(spec.items.size()) - ok - failed;
    meta["counts"] = {{"ok", ok}, {"error", failed}, {"pending", pending}};
    meta["requests"] = requests;
    write_json_file(summary.team_dir / "run.json", meta);
  };
  // run.json (the whole run) is written by unsharded runs: before the trials, and with every
  // outcome after them (a shard leaves it to the merge).
  if (o.shard.all()) {
    int64_t ok = 0, failed = 0, requests = 0;
    for (const auto& row : store::RunStore(store_file).outcomes(spec.name)) {
      const auto outcome = ItemOutcome::from_json(parse_json(row.outcome, store_file.string()));
      (outcome.ok() ? ok : failed) += 1;
      requests += outcome.requests;
    }
    write_run_json(ok, failed, requests);
  }
  spec.write_log = [&](const std::vector<ItemOutcome>& outcomes) {
    int64_t ok = 0, requests = 0;
    for (const auto& x : outcomes) {
      ok += x.ok();
      requests += x.requests;
    }
    write_run_json(ok, static_cast<int64_t>(outcomes.size()) - ok, requests);
  };

  // The completer stack, built when the first trial needs it: a run whose trials all finished
  // earlier sends nothing and needs no key. A remote server without a key stops the run (exit 2)
  // before any request.
  // Not std::call_once: when the callable throws (no key), libstdc++'s call_once leaves the threads
  // waiting on it blocked for ever (GCC bug 66146); a mutex lets each of them throw the same error.
  std::mutex stack_mutex;
  bool stack_built = false;
  llm::CompleterStack stack;
  TrialPlan plan;
  plan.team_dir = summary.team_dir;
  plan.team = o.team;
  plan.program = &program;
  plan.base.model = o.model;
  plan.base.temperature = o.temperature;
  plan.base.top_p = o.top_p;
  plan.base.seed = o.seed;
  plan.base.max_tokens = o.max_tokens;
  plan.progress = &progress;
  auto build_stack = [&] {
    llm::require_api_key(o.client);
    llm::CompleterStackOptions so;
    so.client = o.client;
    so.limits = llm::RateLimits{o.concurrency, o.requests_per_minute, o.tokens_per_minute};
    const int64_t estimate = estimate_tokens(program, o);
    so.estimate_tokens = [estimate](const llm::ChatRequest&) { return estimate; };
    so.cache = o.cache;
    so.record = std::make_shared<store::ExchangeLog>(store_file);
    so.record_scope = kRunName;
    stack = llm::make_completer_stack(so);
    plan.completer = stack.top.get();
  };

  std::vector<RunTrial> trials(spec.items.size());
  std::vector<char> ran(spec.items.size(), 0);
  const batch::StageRun stage = driver.run(spec, [&](size_t i) -> ItemOutcome {
    ran[i] = 1;
    const auto [letter, trial] = trial_of[i];
    RunTrial& t = trials[i];
    if (const auto e = earlier_requests.find(spec.items[i].key); e != earlier_requests.end())
      t.earlier_requests = e->second;
    if (const auto it = legacy.find(fmt::format("{}/{:04}", letter, trial)); it != legacy.end()) {
      // Finished by a run of an earlier version: its response is in the old store.
      write_file_atomic(raw_response_path(summary.team_dir, o.team, letter, trial), it->second);
      t.letter = letter;
      t.trial = trial;
      t.resumed = true;
      t.outcome = ItemOutcome::success(spec.items[i].key);
      t.outcome.requests = t.earlier_requests;
      if (progress.trial_done) progress.trial_done(t);
      return t.outcome;
    }
    {
      std::lock_guard lock(stack_mutex);
      if (!stack_built) {
        build_stack();
        stack_built = true;
      }
    }
    std::string response;
    const ItemOutcome outcome = run_trial(plan, letter, trial, response, t);
    if (progress.trial_done) progress.trial_done(t);
    return outcome;
  });
  for (size_t k = 0; k < stage.outcomes.size(); ++k) {
    const size_t i = stage.item_index[k];
    RunTrial& t = trials[i];
    t.outcome = stage.outcomes[k];  // before trial_done: a resumed trial is reported with its outcome
    if (!ran[i]) {                  // finished by an earlier run or shard
      t.letter = trial_of[i].first;
      t.trial = trial_of[i].second;
      t.resumed = true;
      if (progress.trial_done) progress.trial_done(t);
    }
    summary.ok += t.ok() && !t.resumed;
    summary.failed += !t.ok();
    summary.resumed += t.resumed;
    summary.tokens += t.usage.total_tokens;
    summary.requests += t.requests;
    summary.trials.push_back(std::move(t));
  }
  return summary;
}

}  // namespace pcglab::birds
