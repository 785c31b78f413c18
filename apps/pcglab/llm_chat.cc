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
#include "llm_options.h"

namespace pcglab::cli {
namespace {

struct ChatOptions {
  LlmOptions llm;
  std::string text;
  std::string system;
  ChatOptions() { llm.temperature = 1.0; }  // always sent (the other sampling settings: when given)
};

int run_chat(const ChatOptions& opt, const GlobalOptions& global) {
  const llm::ClientConfig config = opt.llm.checked_client_config();
  llm::ChatClient client(config);  // refuses a missing key before any request
  client.on_retry([](const llm::RetryNotice& retry) { log_warn("{}", retry.describe()); });
  llm::ChatRequest request;
  request.model = opt.llm.model;
  if (!opt.system.empty()) request.messages.push_back({"system", opt.system});
  request.messages.push_back({"user", opt.text});
  request.temperature = opt.llm.temperature;
  request.top_p = opt.llm.top_p;
  request.max_tokens = opt.llm.max_tokens;
  request.seed = opt.llm.seed;
  const auto r = client.complete(request);
  if (!r.ok()) {
    log_error("{} at {}: {}", opt.llm.model, llm::redact_url(config.base_url), r.error().message);
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
  t.add_row({opt.llm.model, r.value().content, r.value().finish_reason, r.value().usage.prompt_tokens,
             r.value().usage.completion_tokens, r.value().attempts, r.value().latency_s});
  print_table(t, global);
  return kExitOk;
}

Action setup_chat(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ChatOptions>();
  cmd.add_option("text", opt->text, "The user message")->required();
  cmd.add_option("--system", opt->system, "Optional system message");
  LlmOptionSpec llm;
  llm.retries_name = "--retries";
  add_llm_options(cmd, opt->llm, llm);
  cmd.footer(
      "The API key is read from OPENAI_API_KEY only; it is required unless the server is on this machine "
      "(localhost, 127.0.0.1, ::1). --format md prints the reply text alone. 401 and 403 are never retried.");
  return [opt, &global] { return run_chat(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("llm", "chat", "Send one message to an OpenAI-compatible chat model", setup_chat);

}  // namespace pcglab::cli
