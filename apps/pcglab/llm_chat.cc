// `pcglab llm chat --model M "text"`: one query to an OpenAI-compatible server.
// The key comes only from OPENAI_API_KEY (never a flag, so it stays out of process lists).
#include <cstdio>

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
  int max_tokens = 0;
  int64_t seed = -1;
  double timeout = 120;
  int retries = 5;
};

int run_chat(const ChatOptions& opt, const GlobalOptions& global) {
  llm::ClientConfig config = llm::client_config_from_env();
  if (!opt.base_url.empty()) config.base_url = opt.base_url;
  config.timeout_s = opt.timeout;
  config.max_retries = opt.retries;
  llm::ChatClient client(config);
  client.on_retry([](int attempt, double wait, const std::string& why) {
    log_warn("attempt {} failed ({}); retrying in {:.1f} s", attempt, why, wait);
  });
  llm::ChatRequest request;
  request.model = opt.model;
  if (!opt.system.empty()) request.messages.push_back({"system", opt.system});
  request.messages.push_back({"user", opt.text});
  request.temperature = opt.temperature;
  if (opt.max_tokens > 0) request.max_tokens = opt.max_tokens;
  if (opt.seed >= 0) request.seed = opt.seed;
  const auto r = client.complete(request);
  if (!r.ok()) {
    log_error("{} at {}: {}", opt.model, config.base_url, r.error().message);
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
  cmd.add_option("--temperature", opt->temperature, "Sampling temperature");
  cmd.add_option("--max-tokens", opt->max_tokens, "Completion token limit (0: server default)");
  cmd.add_option("--seed", opt->seed, "Sampling seed (-1: none)");
  cmd.add_option("--timeout", opt->timeout, "Seconds per request");
  cmd.add_option("--retries", opt->retries, "Retries for 408/409/429/5xx, timeouts and connection errors");
  cmd.footer("The API key is read from OPENAI_API_KEY only. --format md prints the reply text alone.");
  return [opt, &global] { return run_chat(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("llm", "chat", "Send one message to an OpenAI-compatible chat model", setup_chat);

}  // namespace pcglab::cli
