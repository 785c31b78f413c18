// What `pcglab textgame generate` and `pcglab textgame experiment` share: their options (the LLM
// options, reflections, the validity crawl, the sandbox, --prompts, --out, --shard), the batch
// settings built from them, the validity check in a sandbox worker pool (textgame/validity.h), and
// the table of games.
#pragma once

#include <string>

#include "batch_options.h"
#include "command.h"
#include "core/log.h"
#include "llm_options.h"
#include "textgame/experiment.h"
#include "textgame/validity.h"

namespace pcglab::cli {

struct GenerationCliOptions {
  LlmOptions llm;
  SandboxOptions sandbox;
  int reflections = 3;
  std::string validity = "official";
  std::string prompts;
  std::string out;
  std::string shard;
  bool force = false;
  bool official_budget = false;
};

inline void add_generation_options(CLI::App& cmd, GenerationCliOptions& o, const std::string& out_default) {
  // The official scripts' sampling (bytes32/utils.py call_gpt: temperature 0, top_p 1) is the default.
  o.llm.temperature = 0.0;
  o.llm.top_p = 1.0;
  LlmOptionSpec llm;
  llm.fails = "its game";
  llm.cache = true;
  llm.cache_default = "<out>/llm-cache.sqlite";
  llm.rate_limits = true;
  llm.concurrency_help = "Games in progress at once (= requests in flight at most)";
  llm.sampling_source = "official";
  add_llm_options(cmd, o.llm, llm);
  cmd.add_option("--reflections", o.reflections,
                 "Reflections at most per game (official: 3); 0: generation only, no validity check")
      ->check(number_in(0, 10))
      ->capture_default_str();
  cmd.add_option(
         "--validity", o.validity,
         "Validity crawl whose error is reflected on: official (the official check_validity) or fresh "
         "(actions regenerated after every step)")
      ->check(CLI::IsMember({"official", "fresh"}))
      ->capture_default_str();
  cmd.add_flag("--official-max-tokens", o.official_budget,
               "Without --max-tokens: send the official scripts' budget, min(32000 - prompt tokens, 16000), "
               "the prompt's tokens estimated as one per 3 bytes (no tiktoken here: docs/textgame.md)");
  cmd.add_option("--prompts", o.prompts,
                 "Folder with generation.txt and reflection.txt to use instead of the built-in templates")
      ->check(CLI::ExistingDirectory);
  add_sandbox_options(cmd, o.sandbox, "the generated games");
  o.out = out_default;
  cmd.add_option("-o,--out", o.out,
                 "Output folder: generated_games/, revised_games/, final_games/, results.json, logs/")
      ->capture_default_str();
  cmd.add_flag("--force", o.force, "Generate every game again (finished LLM calls are still replayed)");
  add_shard_option(cmd, o.shard);
}

// The settings a run records for `pcglab merge` (the verb adds its inputs); the server and the key
// come from the merge's environment, never from the folder.
inline OrderedJson generation_config(const GenerationCliOptions& o) {
  const auto opt = [](const auto& v) { return v ? OrderedJson(*v) : OrderedJson(); };
  return OrderedJson{{"model", o.llm.model},
                     {"temperature", opt(o.llm.temperature)},
                     {"top_p", opt(o.llm.top_p)},
                     {"max_tokens", opt(o.llm.max_tokens)},
                     {"seed", opt(o.llm.seed)},
                     {"official_max_tokens", o.official_budget},
                     {"reflections", o.reflections},
                     {"validity", o.validity},
                     {"prompts", o.prompts.empty() ? "" : std::filesystem::absolute(o.prompts).string()},
                     {"concurrency", o.llm.concurrency},
                     {"no_cache", o.llm.no_cache},
                     {"cache", o.llm.cache.empty() ? "" : std::filesystem::absolute(o.llm.cache).string()},
                     {"unsafe_no_sandbox", o.sandbox.unsafe_no_sandbox}};
}

// The options of a merge of `dir` from the recorded settings (unsharded, the environment's server).
inline GenerationCliOptions generation_options_from_config(const std::filesystem::path& dir, const Json& c,
                                                           const std::string& command) {
  if (c.value("unsafe_no_sandbox", false))
    throw SetupError(fmt::format(
        "{}: the shards ran with --unsafe-no-sandbox, which a run folder cannot ask of a merge; complete it "
        "with the same `pcglab {} ... --out {} --unsafe-no-sandbox` command, unsharded",
        dir.string(), command, dir.string()));
  GenerationCliOptions o;
  o.llm.model = c.value("model", "");
  if (c.contains("temperature") && !c["temperature"].is_null())
    o.llm.temperature = c["temperature"].get<double>();
  if (c.contains("top_p") && !c["top_p"].is_null()) o.llm.top_p = c["top_p"].get<double>();
  if (c.contains("max_tokens") && !c["max_tokens"].is_null()) o.llm.max_tokens = c["max_tokens"].get<int>();
  if (c.contains("seed") && !c["seed"].is_null()) o.llm.seed = c["seed"].get<int64_t>();
  o.official_budget = c.value("official_max_tokens", false);
  o.reflections = c.value("reflections", 3);
  o.validity = c.value("validity", "official");
  o.prompts = c.value("prompts", "");
  o.llm.concurrency = c.value("concurrency", 8);
  o.llm.no_cache = c.value("no_cache", false);
  o.llm.cache = c.value("cache", "");
  o.out = dir.string();
  return o;
}

inline textgame::GenerationBatchOptions generation_batch_options(const GenerationCliOptions& o) {
  textgame::GenerationBatchOptions b;
  b.out = o.out;
  b.settings.model = o.llm.model;
  b.settings.temperature = o.llm.temperature;
  b.settings.top_p = o.llm.top_p;
  b.settings.max_tokens = o.llm.max_tokens;
  b.settings.official_budget = o.official_budget;
  b.settings.seed = o.llm.seed;
  b.settings.reflections = o.reflections;
  if (!o.prompts.empty()) b.prompts = textgame::GenerationPrompts::load(o.prompts);
  b.validity_settings = o.validity;
  b.stack.client = o.llm.checked_client_config();
  b.stack.limits = llm::RateLimits{o.llm.concurrency, o.llm.requests_per_minute, o.llm.tokens_per_minute};
  b.stack.cache = o.llm.cache_file(std::filesystem::path(o.out) / "llm-cache.sqlite");
  b.driver.shard = shard_of(o.shard);
  b.driver.force = o.force;
  b.concurrency = o.llm.concurrency;
  return b;
}

// The real validity check (textgame::sandboxed_validity) with the run's mode and sandbox.
inline textgame::ValidityCheck sandboxed_validity(const GenerationCliOptions& o) {
  if (o.reflections == 0) return {};
  textgame::ValidityOptions options;
  options.mode = o.validity == "fresh" ? textgame::ValidityMode::kFresh : textgame::ValidityMode::kOfficial;
  sandbox::WorkerConfig worker = textgame::validity_worker_config(options);
  worker.isolation = o.sandbox.isolation(worker);
  return textgame::sandboxed_validity(options, worker);
}

// One row per game of the stage: exit 1 when a game failed (an LLM error, a reply with no code).
inline int print_generation_table(const textgame::GenerationBatch& batch, const GlobalOptions& global) {
  Table t;
  t.columns = {"game", "status", "stop", "valid", "reflections", "final", "requests", "error"};
  int failed = 0;
  for (const ItemOutcome& x : batch.stage.outcomes) {
    failed += !x.ok();
    const auto meta = [&](const char* key) {
      return x.metadata.contains(key) ? Json(x.metadata[key]) : Json();
    };
    t.add_row({x.key, x.ok() ? "ok" : "error", meta("stop"), meta("valid"), meta("reflections"),
               meta("final"), x.requests, x.message.substr(0, x.message.find('\n'))});
  }
  print_table(t, global);
  log_info("{} games: {} generated, {} reused, {} failed; {} requests sent to the LLM server by this run",
           batch.stage.outcomes.size(), batch.stage.ran, batch.stage.reused, batch.stage.failed,
           batch.requests);
  return failed > 0 ? kExitItemsFailed : kExitOk;
}

}  // namespace pcglab::cli
