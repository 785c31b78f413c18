// `pcglab llm chat --model M "text"`: one query to an OpenAI-compatible server.
// The key comes only from OPENAI_API_KEY (never a flag, so it stays out of process lists).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>

#include "command.h"
#include "core/log.h"
#include "llm/chat_client.h"

namespace pcglab::cli {
namespace {

struct ChatOptions {
  std::string model;
  std::string text;
  std::string system;
  std::string base_url;
  double temperature = 1.0;
  std::optional<int> max_tokens;  // the server's default when not given
  std::optional<int64_t> seed;
  double timeout = 120;
  int retries = 5;
  int64_t max_response_mb = llm::ClientConfig::kDefaultMaxResponseBytes >> 20;
};

int run_chat(const ChatOptions& opt, const GlobalOptions& global) {
  llm::ClientConfig config = llm::client_config_from_env();
  if (!opt.base_url.empty()) config.base_url = opt.base_url;
  config.timeout_s = opt.timeout;
  config.max_retries = opt.retries;
  config.max_response_bytes = opt.max_response_mb << 20;
  llm::require_header_safe("--model", opt.model);
  llm::ChatClient client(config);  // refuses bad settings and a missing key before any request
  client.on_retry([](const llm::RetryNotice& retry) { log_warn("{}", retry.describe()); });
  llm::ChatRequest request;
  request.model = opt.model;
  if (!opt.system.empty()) request.messages.push_back({"system", opt.system});
  request.messages.push_back({"user", opt.text});
  request.temperature = opt.temperature;
  request.max_tokens = opt.max_tokens;
  request.seed = opt.seed;
  const auto r = client.complete(request);
  if (!r.ok()) {
    log_error("{} at {}: {}", opt.model, llm::redact_url(config.base_url), r.error().message);
    return kExitItemsFailed;
  }
  if (global.format == "md") {
    std::fputs(r.value().content.c_str(), stdout);
    std::fputc('\n', stdout);
    return kExitOk;
  }
  Table t;
  t.columns = {"model",    "content",  "finish_reason", "prompt_tokens", "completion_tokens",
               "attempts", "latency_s"};
  t.add_row({opt.model, r.value().content, r.value().finish_reason, r.value().usage.prompt_tokens,
             r.value().usage.completion_tokens, r.value().attempts, r.value().latency_s});
  print_table(t, global);
  return kExitOk;
}

Action setup_chat(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ChatOptions>();
  cmd.add_option("text", opt->text, "The user message")->required();
  cmd.add_option("--model", opt->model, "Model name on the server")->required();
  cmd.add_option("--system", opt->system, "Optional system message");
  cmd.add_option("--base-url", opt->base_url, "Server URL (default: $OPENAI_BASE_URL, else OpenAI's)");
  cmd.add_option("--temperature", opt->temperature, "Sampling temperature")->check(number_in(0.0, 2.0));
  cmd.add_option_function<int>(
         "--max-tokens", [opt](int v) { opt->max_tokens = v; },
         "Completion token limit (default: the server's)")
      ->check(number_in(1, 1000000));
  cmd.add_option_function<int64_t>(
         "--seed", [opt](int64_t v) { opt->seed = v; }, "Sampling seed (default: none)")
      ->check(number_in<int64_t>(0, std::numeric_limits<int64_t>::max()));
  cmd.add_option("--timeout", opt->timeout, "Seconds per request")->check(number_in(0.1, 3600.0));
  cmd.add_option("--retries", opt->retries,
                 "Retries of a request the server never processed (connection errors, 408, 429, 5xx); one "
                 "it may have processed (a timeout after sending, a 200 that is not a completion, 409) is "
                 "retried at most once")
      ->check(number_in(0, 100));
  cmd.add_option("--max-response-mb", opt->max_response_mb,
                 "Largest reply accepted in MiB; a larger one is an error naming its size")
      ->check(number_in<int64_t>(1, 4096))
      ->capture_default_str();
  cmd.footer(
      "The API key is read from OPENAI_API_KEY only; it is required unless the server is on this machine "
      "(localhost, 127.0.0.1, ::1). --format md prints the reply text alone. 401 and 403 are never retried.");
  return [opt, &global] { return run_chat(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("llm", "chat", "Send one message to an OpenAI-compatible chat model", setup_chat);

}  // namespace pcglab::cli
