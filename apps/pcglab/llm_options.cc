#include "llm_options.h"

#include <limits>

#include <fmt/format.h>

namespace pcglab::cli {
namespace {

// "Sampling temperature (official: 0)" for a preset default with its source, "Sampling temperature"
// for one without, "Sampling temperature (default: the server's)" when nothing is sent unless given.
template <typename T>
std::string sampling_help(const std::string& what, const std::optional<T>& preset,
                          const std::string& source) {
  if (!preset) return what + " (default: the server's)";
  if (source.empty()) return what;
  return fmt::format("{} ({}: {})", what, source, *preset);
}

// A sampling option that stores into an optional: its preset value (if any) is the default shown.
template <typename T>
CLI::Option* add_sampling(CLI::App& cmd, const std::string& name, std::optional<T>& value,
                          const std::string& what, const std::string& source, const CLI::Validator& range) {
  CLI::Option* opt = cmd.add_option_function<T>(
                            name, [&value](const T& v) { value = v; }, sampling_help(what, value, source))
                         ->check(range);
  if (value) opt->default_str(fmt::format("{}", *value));
  return opt;
}

}  // namespace

llm::ClientConfig LlmOptions::client_config() const {
  llm::ClientConfig config = llm::client_config_from_env(client);
  if (!base_url.empty()) config.base_url = base_url;
  config.max_response_bytes = max_response_mb << 20;
  return config;
}

llm::ClientConfig LlmOptions::checked_client_config() const {
  llm::require_header_safe("--model", model);
  llm::ClientConfig config = client_config();
  llm::validate_client_config(config);
  return config;
}

std::optional<std::filesystem::path> LlmOptions::cache_file(
    const std::optional<std::filesystem::path>& default_file) const {
  if (no_cache) return std::nullopt;
  if (!cache.empty()) return std::filesystem::path(cache);
  return default_file;
}

void add_llm_options(CLI::App& cmd, LlmOptions& o, const LlmOptionSpec& spec) {
  cmd.add_option("--model", o.model, "Model name as the server knows it")->required();
  cmd.add_option(
      "--base-url", o.base_url,
      "Server base URL (default $OPENAI_BASE_URL or OpenAI's); the key is read only from $OPENAI_API_KEY");
  if (spec.rate_limits) {
    cmd.add_option("--concurrency", o.concurrency, spec.concurrency_help)
        ->check(number_in(1, 256))
        ->capture_default_str();
    cmd.add_option("--rpm", o.requests_per_minute, "Requests per minute at most (0: no limit)")
        ->check(number_in(0, 1000000))
        ->capture_default_str();
    cmd.add_option("--tpm", o.tokens_per_minute, "Tokens per minute at most (0: no limit)")
        ->check(number_in(0, 1000000000))
        ->capture_default_str();
  }
  if (spec.cache) {
    cmd.add_option("--cache", o.cache, fmt::format("Response cache file (default: {})", spec.cache_default));
    cmd.add_flag("--no-cache", o.no_cache, "Do not read or write the response cache");
  }
  // Sampling settings: sent only when given or preset by the verb.
  add_sampling(cmd, "--temperature", o.temperature, "Sampling temperature", spec.sampling_source,
               number_in(0.0, 2.0));
  add_sampling(cmd, "--top-p", o.top_p, "Nucleus sampling top_p", spec.sampling_source, number_in(0.0, 1.0));
  add_sampling(cmd, "--max-tokens", o.max_tokens, "Maximum tokens per reply", spec.sampling_source,
               number_in(1, 1000000));
  if (spec.seed)
    cmd.add_option_function<int64_t>(
           "--seed", [&o](int64_t v) { o.seed = v; }, "Sampling seed sent to the server (default: none)")
        ->check(number_in<int64_t>(0, std::numeric_limits<int64_t>::max()));
  cmd.add_option("--timeout", o.client.timeout_s, "Seconds per request before it is retried")
      ->check(number_in(0.1, 3600.0))
      ->capture_default_str();
  cmd.add_option(spec.retries_name, o.client.max_retries,
                 "Retries of a request the server never processed (connection errors, 408, 429, 5xx); one "
                 "it may have processed (a timeout after sending, a 200 that is not a completion, 409) is "
                 "retried at most once")
      ->check(number_in(0, 100))
      ->capture_default_str();
  cmd.add_option("--backoff", o.client.backoff_base_s,
                 "First retry wait in seconds (doubles each retry, with jitter)")
      ->check(number_in(0.0, 600.0))
      ->capture_default_str();
  cmd.add_flag_function(
      "--no-keep-alive", [&o](int64_t) { o.client.keep_alive = false; },
      "Open a new connection for every request (default: connections are reused)");
  const std::string per_request = spec.rate_limits ? " (per request in flight)" : "";
  const std::string larger = spec.fails.empty() ? "is an error naming its size"
                                                : fmt::format("fails {}, naming its size", spec.fails);
  cmd.add_option("--max-response-mb", o.max_response_mb,
                 fmt::format("Largest reply accepted in MiB{}; a larger one {}", per_request, larger))
      ->check(number_in<int64_t>(1, 4096))
      ->capture_default_str();
}

sandbox::Isolation SandboxOptions::isolation(const sandbox::WorkerConfig& worker) const {
  return sandbox::require_isolation(unsafe_no_sandbox, worker);
}

void add_sandbox_options(CLI::App& cmd, SandboxOptions& o, const std::string& what) {
  cmd.add_flag(
      "--unsafe-no-sandbox", o.unsafe_no_sandbox,
      fmt::format("Run {} without namespaces when the sandbox does not work here (loud warning)", what));
}

}  // namespace pcglab::cli
