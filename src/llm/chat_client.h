// A chat-completions client for any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp
// server) over libcurl, with retries: 408, 409, 429 (honouring Retry-After), 5xx, timeouts and
// connection failures are retried with exponential backoff and jitter; other 4xx fail at once with
// the server's message (401 and 403 included: a bad key is never retried). The API key is sent as a bearer
// token and never appears in a result, an error message or a log line.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace pcglab::llm {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int64_t> seed;
  std::optional<int> max_tokens;
};

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int total_tokens = 0;
};

struct ChatResponse {
  std::string content;
  std::string finish_reason;
  Usage usage;
  int attempts = 0;      // requests sent, retries included
  double latency_s = 0;  // of the successful request
};

struct ClientConfig {
  std::string base_url = "https://api.openai.com/v1";  // OPENAI_BASE_URL
  std::string api_key;                                 // OPENAI_API_KEY; may be empty (local servers)
  double timeout_s = 120;
  int max_retries = 5;
  double backoff_base_s = 1.0;  // first wait; doubles each retry
  double backoff_max_s = 60.0;
  uint64_t jitter_seed = 1;  // waits are multiplied by a seeded factor in [0.5, 1)
};

// Reads OPENAI_BASE_URL and OPENAI_API_KEY from the environment over the given defaults.
ClientConfig client_config_from_env(ClientConfig defaults = {});

// True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1).
bool is_loopback_url(const std::string& url);

// Throws SetupError naming the setting and the allowed range when the configuration cannot work:
// a base URL that is not http(s), timeout_s not in (0, 86400] (0 would turn libcurl's timeout
// off), max_retries not in [0, 100], backoff_base_s or backoff_max_s not in [0, 3600].
void validate_client_settings(const ClientConfig& config);
// Throws SetupError when there is no API key for a server that is not on this machine: local
// servers (Ollama, vLLM, llama.cpp) usually need none; a remote one does, and without one every
// request would fail (after its retries, when the server cannot be reached).
void require_api_key(const ClientConfig& config);
// Both checks.
void validate_client_config(const ClientConfig& config);

// The request body as JSON (exposed for tests and for the cache key).
std::string request_json(const ChatRequest& request);

class ChatClient {
 public:
  // Throws SetupError for a configuration validate_client_config refuses (before any request).
  explicit ChatClient(ClientConfig config);
  // One chat completion; an ItemError (item = the model) when it failed for good.
  Result<ChatResponse> complete(const ChatRequest& request);
  // Called before each wait with the attempt number and the wait in seconds (tests, progress).
  void on_retry(std::function<void(int attempt, double wait_s, const std::string& why)> fn) {
    on_retry_ = std::move(fn);
  }
  // Replaces sleeping (tests).
  void set_sleeper(std::function<void(double)> fn) { sleep_ = std::move(fn); }

 private:
  ClientConfig config_;
  uint64_t jitter_state_;
  std::function<void(int, double, const std::string&)> on_retry_;
  std::function<void(double)> sleep_;
};

}  // namespace pcglab::llm
