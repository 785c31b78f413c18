// A chat-completions client for any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp
// server) over libcurl, with retries. The API key is sent as a bearer token and never appears in a
// result, an error message or a log line (a server that echoes it back has it replaced by
// "[API key]" in every error text).
//
// Retries (a request that may have been billed is never retried freely):
// - retried freely, up to max_retries times: what the server never processed — an attempt that
//   never reached it (name not resolved, connection refused, a connect timeout), HTTP 429 (honouring
//   Retry-After), 408 and 5xx;
// - retried at most max_uncertain_retries times (1) over the whole call: what the server may have
//   processed — a timeout or a broken connection after the request was sent, a 2xx whose body is not
//   a chat completion, 409;
// - never retried: other 4xx (401 and 403 included: a bad key), a reply over max_response_bytes.
// Waits grow exponentially with a seeded jitter. CallContext::on_attempt counts every attempt (and
// whether it reached the server), so a failed call's requests are counted too.
//
// Limits: a reply (body) larger than max_response_bytes fails the call, naming the size, with no
// retry; at most that many bytes are held per call in progress.
//
// Keep-alive: the client keeps a pool of libcurl easy handles, one per call in progress, each with
// its own connection cache, so a connection is reused by the next request instead of paying a new
// TCP (and TLS) handshake each time. A handle is used by one thread at a time (taken from the pool
// under a mutex, given back after the call), which is libcurl's rule for easy handles, so one client
// serves every thread of a batch. A connection the server has closed is noticed by libcurl, which
// opens a new one (and resends a request that died on a reused connection before any reply), so a
// server's keep-alive limits never fail a request. Timeouts and retries are as without keep-alive:
// a timed-out transfer's connection is closed, the retry gets a fresh one.
//
// It is the bottom layer of a completer stack (completer.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "llm/chat.h"
#include "llm/completer.h"

namespace pcglab::llm {

struct ClientConfig {
  std::string base_url = "https://api.openai.com/v1";  // OPENAI_BASE_URL
  std::string api_key;                                 // OPENAI_API_KEY; may be empty (local servers)
  double timeout_s = 120;
  int max_retries = 5;
  double backoff_base_s = 1.0;  // first wait; doubles each retry
  double backoff_max_s = 60.0;
  // Waits are multiplied by a factor in [0.5, 1) drawn from this seed mixed with the call's item,
  // trial and call index (CallContext), so they do not depend on which thread sends what.
  uint64_t jitter_seed = 1;
  // Reuse connections across requests (HTTP keep-alive). false: a new connection per request.
  bool keep_alive = true;
  // The largest reply body accepted (bytes); a larger one fails the call naming its size.
  int64_t max_response_bytes = kDefaultMaxResponseBytes;
  // Retries of a request the server may have processed (and billed), over the whole call; never
  // more than max_retries.
  int max_uncertain_retries = 1;

  static constexpr int64_t kDefaultMaxResponseBytes = int64_t{16} << 20;  // 16 MiB
};

// Reads OPENAI_BASE_URL and OPENAI_API_KEY from the environment over the given defaults.
ClientConfig client_config_from_env(ClientConfig defaults = {});

// True when the URL's host is this machine (localhost, 127.0.0.0/8, ::1).
bool is_loopback_url(const std::string& url);

// The URL without its userinfo ("http://user:pass@host:8000/v1" -> "http://host:8000/v1"): scheme,
// host, port, path and query kept. What every file, log line and message shows of a base URL, so
// that credentials in it are written nowhere. A URL without userinfo is returned unchanged.
std::string redact_url(const std::string& url);

// Throws SetupError naming the setting and the allowed range when the configuration cannot work:
// a base URL that is not http(s), timeout_s not in (0, 86400] (0 would turn libcurl's timeout
// off), max_retries not in [0, 100], max_uncertain_retries not in [0, 100], backoff_base_s or
// backoff_max_s not in [0, 3600], max_response_bytes not in [1 KiB, 4 GiB]; and a base URL or API key
// with a control character (require_header_safe).
void validate_client_settings(const ClientConfig& config);
// Throws SetupError when `value` holds a control character (bytes 0-31 and 127: CR and LF would
// start a new HTTP header): "<name> contains a control character ...", naming `name` (the variable
// or option) and never the value, which may be a secret.
void require_header_safe(const std::string& name, const std::string& value);
// Throws SetupError when there is no API key for a server that is not on this machine: local
// servers (Ollama, vLLM, llama.cpp) usually need none; a remote one does, and without one every
// request would fail (after its retries, when the server cannot be reached).
void require_api_key(const ClientConfig& config);
// Both checks.
void validate_client_config(const ClientConfig& config);

class ChatClient : public Completer {
 public:
  // Throws SetupError for a configuration validate_client_config refuses (before any request).
  explicit ChatClient(ClientConfig config);
  ~ChatClient() override;
  ChatClient(const ChatClient&) = delete;
  ChatClient& operator=(const ChatClient&) = delete;

  // Called before each wait (tests, progress), in addition to the call's own
  // CallContext::on_retry. Set before the first request.
  void on_retry(std::function<void(const RetryNotice&)> fn) { on_retry_ = std::move(fn); }
  // Replaces sleeping (tests). Set before the first request.
  void set_sleeper(std::function<void(double)> fn) { sleep_ = std::move(fn); }
  // Connections libcurl opened so far, over all handles (tests, benchmarks).
  int64_t connections_opened() const;

 protected:
  // One chat completion; an ItemError (item = the call's item, else the model) when it failed for
  // good. Thread-safe.
  Result<ChatResponse> do_complete(const ChatRequest& request, const CallContext& context) override;

 private:
  struct Handles;
  ClientConfig config_;
  std::string url_;
  std::unique_ptr<Handles> handles_;
  std::function<void(const RetryNotice&)> on_retry_;
  std::function<void(double)> sleep_;
};

}  // namespace pcglab::llm
