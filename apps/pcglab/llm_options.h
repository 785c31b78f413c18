// The options every verb that calls an LLM server or runs generated code shares, declared once.
//
// A verb keeps an LlmOptions (and a SandboxOptions when it runs generated code) in its own options
// struct, attaches them with one line each, and turns them into the library's settings after
// parsing:
//
//   add_llm_options(cmd, o->llm, {.fails = "its trial", .cache = true});
//   add_sandbox_options(cmd, o->sandbox, "the reward file");
//   ...
//   llm::ClientConfig client = o.llm.checked_client_config();   // exit 2 on bad settings
//   worker.isolation = o.sandbox.isolation(worker);             // exit 2 unless it works or is allowed
//
// Names, help texts, ranges and defaults are the same in every verb, so a variable like
// PCGLAB_<GROUP>_<VERB>_MAX_RETRIES means the same thing everywhere. What a verb may choose is data
// in LlmOptionSpec: which optional groups it takes (cache, rate limits) and what a failed call fails.
// Sampling defaults are the verb's: preset a value in LlmOptions before add_llm_options (PCGRLLM's
// official temperature 0) and it is shown and sent; leave it empty and the option is sent only when
// given (the server's default applies).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "command.h"
#include "llm/chat_client.h"
#include "sandbox/isolation.h"
#include "sandbox/worker.h"

namespace pcglab::cli {

struct LlmOptions {
  std::string model;     // --model (required)
  std::string base_url;  // --base-url; empty: $OPENAI_BASE_URL, else OpenAI's
  // --timeout, --max-retries, --backoff, --no-keep-alive (defaults: ClientConfig's). The key is
  // never an option: it comes from OPENAI_API_KEY only, so it stays out of process lists.
  llm::ClientConfig client;
  int64_t max_response_mb = llm::ClientConfig::kDefaultMaxResponseBytes >> 20;
  // Sampling: sent only when set (preset one for a default the verb owns).
  std::optional<double> temperature, top_p;
  std::optional<int> max_tokens;
  std::optional<int64_t> seed;
  // With LlmOptionSpec::cache: --cache FILE and --no-cache.
  std::string cache;
  bool no_cache = false;
  // With LlmOptionSpec::rate_limits: --concurrency, --rpm, --tpm (0: no limit).
  int concurrency = 8;
  int requests_per_minute = 0, tokens_per_minute = 0;

  // The client's configuration: OPENAI_BASE_URL and OPENAI_API_KEY over ClientConfig's defaults, then
  // the options. Not validated (a library that validates it itself takes this one).
  llm::ClientConfig client_config() const;
  // client_config(), validated before any request (llm::validate_client_config): SetupError (exit 2)
  // for a --model with a control character, a setting that cannot work (naming it), or no API key
  // for a server that is not on this machine.
  llm::ClientConfig checked_client_config() const;
  // The response cache file: --cache when given, else `default_file` (nullopt: no cache unless
  // --cache); nullopt with --no-cache.
  std::optional<std::filesystem::path> cache_file(
      const std::optional<std::filesystem::path>& default_file = std::nullopt) const;
};

// What differs between verbs, as data.
struct LlmOptionSpec {
  // What a call that fails (a reply over --max-response-mb) fails: "its trial", "its step", or
  // empty for a verb of one call (the call is the error).
  std::string fails;
  // --cache FILE and --no-cache; cache_default says where the cache is without --cache.
  bool cache = false;
  std::string cache_default = "none";
  // --concurrency, --rpm and --tpm (a batch of calls); concurrency_help says what runs at once.
  bool rate_limits = false;
  std::string concurrency_help = "Calls in progress at once (= requests in flight at most)";
  // Where a preset sampling default comes from ("official": PCGRLLM's settings), shown with it.
  std::string sampling_source;
  // --seed, the sampling seed sent to the server (a verb whose --seed is its own seed: false).
  bool seed = true;
  // The retry option's name: "--max-retries"; `llm chat` keeps its "--retries".
  std::string retries_name = "--max-retries";
};

// Declares --model, --base-url, the sampling options (--temperature, --top-p, --max-tokens,
// --seed), --timeout, the retry option, --backoff, --no-keep-alive, --max-response-mb, and the
// groups `spec` asks for, storing into `o` (which must outlive the parse and the action).
void add_llm_options(CLI::App& cmd, LlmOptions& o, const LlmOptionSpec& spec = {});

struct SandboxOptions {
  bool unsafe_no_sandbox = false;

  // sandbox::require_isolation: the sandbox when it works here; without it, SetupError (exit 2)
  // naming --unsafe-no-sandbox, or with the flag a loud warning and no namespaces.
  sandbox::Isolation isolation(const sandbox::WorkerConfig& worker = {}) const;
};

// Declares --unsafe-no-sandbox; `what` names the code the verb runs ("the reward file").
void add_sandbox_options(CLI::App& cmd, SandboxOptions& o, const std::string& what = "the code");

}  // namespace pcglab::cli
