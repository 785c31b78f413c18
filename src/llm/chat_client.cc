#include "llm/chat_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/check.h"
#include "core/json.h"
#include "core/rng.h"

namespace pcglab::llm {
namespace {

void init_curl_once() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// The reply body, at most `limit` bytes: a longer one stops the transfer (libcurl's write error).
struct Body {
  std::string text;
  int64_t limit = 0;
  int64_t received = 0;  // bytes the server sent so far (past the limit too)
  bool over_limit = false;
};

size_t append_body(char* data, size_t size, size_t n, void* out) {
  auto* body = static_cast<Body*>(out);
  body->received += static_cast<int64_t>(size * n);
  if (body->received > body->limit) {
    body->over_limit = true;
    return 0;  // libcurl stops the transfer: CURLE_WRITE_ERROR
  }
  body->text.append(data, size * n);
  return size * n;
}

// What the client reads from the reply's headers.
struct ReplyHeaders {
  std::optional<double> retry_after;
  int64_t content_length = -1;  // -1: not announced (a chunked reply)
};

size_t read_header(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  auto* headers = static_cast<ReplyHeaders*>(out);
  const auto colon = line.find(':');
  if (colon == std::string::npos) return size * n;
  std::string name = line.substr(0, colon);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const char* value = line.c_str() + colon + 1;
  if (name == "retry-after") {
    const double v = std::atof(value);
    if (v >= 0) headers->retry_after = v;
  } else if (name == "content-length") {
    const long long v = std::atoll(value);
    if (v >= 0) headers->content_length = v;
  }
  return size * n;
}

struct HttpResult {
  CURLcode curl = CURLE_OK;
  long status = 0;
  Body body;
  ReplyHeaders headers;
  double seconds = 0;
  bool sent = false;  // the request reached the server (it may have been processed)
};

// What a failed attempt allows: no retry, a free one (the server never processed the request), or
// one that counts against max_uncertain_retries (the server may have processed it, and billed it).
enum class Retry { kNo, kFree, kUncertain };

Retry retry_of_status(long status) {
  if (status == 408 || status == 429 || status >= 500) return Retry::kFree;
  if (status == 409) return Retry::kUncertain;
  return Retry::kNo;
}

Retry retry_of_curl(CURLcode code, bool sent) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_COULDNT_CONNECT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return sent ? Retry::kUncertain : Retry::kFree;
    default: return Retry::kNo;
  }
}

// `text` with every occurrence of the API key replaced (a server may echo request headers back).
// Keys under 8 characters are placeholders for keyless servers ("none"), not secrets: kept.
std::string redact(std::string text, const std::string& key) {
  if (key.size() < 8) return text;
  for (size_t p = text.find(key); p != std::string::npos; p = text.find(key, p))
    text.replace(p, key.size(), "[API key]");
  return text;
}

std::string mib(int64_t bytes) {
  return bytes % (int64_t{1} << 20) == 0 ? fmt::format("{} MiB", bytes >> 20)
                                         : fmt::format("{} bytes", bytes);
}

// The server's own message from an OpenAI-style error body, else the start of the body.
std::string server_message(const std::string& body) {
  try {
    const Json j = Json::parse(body);
    if (j.contains("error")) {
      const Json& e = j["error"];
      if (e.is_object() && e.contains("message") && e["message"].is_string())
        return e["message"].get<std::string>();
      if (e.is_string()) return e.get<std::string>();
    }
  } catch (const std::exception&) {
  }
  return body.substr(0, 200);
}

}  // namespace

ClientConfig client_config_from_env(ClientConfig defaults) {
  if (const char* url = std::getenv("OPENAI_BASE_URL"); url != nullptr && *url != '\0')
    defaults.base_url = url;
  if (const char* key = std::getenv("OPENAI_API_KEY"); key != nullptr) defaults.api_key = key;
  return defaults;
}

bool is_loopback_url(const std::string& url) {
  CURLU* parsed = curl_url();
  char* host = nullptr;
  bool loopback = false;
  if (parsed != nullptr && curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) == CURLUE_OK &&
      curl_url_get(parsed, CURLUPART_HOST, &host, 0) == CURLUE_OK) {
    std::string h = host;
    for (char& c : h) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const bool ipv4 = h.find_first_not_of("0123456789.") == std::string::npos;
    loopback = h == "localhost" || (ipv4 && h.rfind("127.", 0) == 0) || h == "[::1]";
  }
  curl_free(host);
  curl_url_cleanup(parsed);
  return loopback;
}

std::string redact_url(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t end = std::min(url.find_first_of("/?#", start), url.size());  // the authority's end
  const size_t at = url.rfind('@', end == 0 ? 0 : end - 1);
  if (at == std::string::npos || at < start || at >= end) return url;
  return url.substr(0, start) + url.substr(at + 1);
}

void require_header_safe(const std::string& name, const std::string& value) {
  for (const char ch : value) {
    const auto byte = static_cast<unsigned char>(ch);
    if (byte < 0x20 || byte == 0x7f)
      throw SetupError(
          fmt::format("{} contains a control character (byte 0x{:02x}): it would be sent in an HTTP "
                      "request line or header, where CR or LF would inject headers; refused (the "
                      "value is not shown)",
                      name, byte));
  }
}

void validate_client_settings(const ClientConfig& c) {
  require_header_safe("OPENAI_BASE_URL (or --base-url)", c.base_url);
  require_header_safe("OPENAI_API_KEY", c.api_key);
  if (c.base_url.rfind("http://", 0) != 0 && c.base_url.rfind("https://", 0) != 0)
    throw SetupError(
        fmt::format("the server's base URL '{}' must start with http:// or https:// "
                    "(OPENAI_BASE_URL or --base-url)",
                    redact_url(c.base_url)));
  if (!(c.timeout_s > 0 && c.timeout_s <= 86400))
    throw SetupError(
        fmt::format("the request timeout must be more than 0 and at most 86400 seconds (got "
                    "{}); 0 would wait for a reply forever",
                    c.timeout_s));
  if (c.max_retries < 0 || c.max_retries > 100)
    throw SetupError(fmt::format("the number of retries must be from 0 to 100 (got {})", c.max_retries));
  if (c.max_uncertain_retries < 0 || c.max_uncertain_retries > 100)
    throw SetupError(
        fmt::format("the number of retries of a request the server may have processed must "
                    "be from 0 to 100 (got {})",
                    c.max_uncertain_retries));
  if (c.max_response_bytes < 1024 || c.max_response_bytes > (int64_t{4} << 30))
    throw SetupError(
        fmt::format("the largest reply must be from 1 KiB to 4 GiB (got {} bytes)", c.max_response_bytes));
  if (!(c.backoff_base_s >= 0 && c.backoff_base_s <= 3600) ||
      !(c.backoff_max_s >= 0 && c.backoff_max_s <= 3600))
    throw SetupError(
        fmt::format("retry waits must be from 0 to 3600 seconds (got a first wait of {} s and "
                    "a longest wait of {} s)",
                    c.backoff_base_s, c.backoff_max_s));
}

void require_api_key(const ClientConfig& c) {
  if (c.api_key.empty() && !is_loopback_url(c.base_url))
    throw SetupError(
        fmt::format("OPENAI_API_KEY is not set: the server at {} needs an API key (for a "
                    "server that needs none, set OPENAI_API_KEY to any text, e.g. 'none')",
                    redact_url(c.base_url)));
}

void validate_client_config(const ClientConfig& config) {
  validate_client_settings(config);
  require_api_key(config);
}

// Idle easy handles: each keeps its live connections (curl_easy_reset leaves them), so the next
// call that takes it reuses one. A handle is owned by one call at a time.
struct ChatClient::Handles {
  std::mutex mutex;
  std::vector<CURL*> idle;
  std::atomic<int64_t> connections{0};

  ~Handles() {
    for (CURL* h : idle) curl_easy_cleanup(h);
  }
  CURL* take() {
    {
      std::lock_guard lock(mutex);
      if (!idle.empty()) {
        CURL* h = idle.back();
        idle.pop_back();
        curl_easy_reset(h);
        return h;
      }
    }
    return curl_easy_init();
  }
  void give_back(CURL* h) {
    std::lock_guard lock(mutex);
    idle.push_back(h);
  }
};

ChatClient::ChatClient(ClientConfig config)
    : config_(std::move(config)), handles_(std::make_unique<Handles>()) {
  init_curl_once();
  validate_client_config(config_);
  url_ = config_.base_url;
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  url_ += "/chat/completions";
  sleep_ = [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); };
}

ChatClient::~ChatClient() = default;

int64_t ChatClient::connections_opened() const {
  return handles_->connections.load();
}

namespace {

// The jitter stream of one call: the client's seed mixed with the call's item, trial and index.
uint64_t call_jitter_seed(uint64_t base, const CallContext& c) {
  uint64_t item_hash = 0xcbf29ce484222325ULL;  // FNV-1a
  for (const unsigned char ch : c.item) item_hash = (item_hash ^ ch) * 0x100000001b3ULL;
  return derive_seed(derive_seed(derive_seed(base, item_hash), static_cast<uint64_t>(c.trial)),
                     static_cast<uint64_t>(c.call));
}

// A parsed 2xx body, or nullopt when it is not a chat completion.
std::optional<ChatResponse> parse_completion(const std::string& body) {
  try {
    const Json j = Json::parse(body);
    const Json& choice = j.at("choices").at(0);
    ChatResponse r;
    const Json& content = choice.at("message").at("content");
    r.content = content.is_string() ? content.get<std::string>() : "";
    r.finish_reason =
        choice.value("finish_reason", Json("")).is_string() ? choice.value("finish_reason", "") : "";
    if (j["choices"].size() > 1) {
      for (const Json& c : j["choices"]) {
        const Json& text = c.at("message").at("content");
        r.choices.push_back(text.is_string() ? text.get<std::string>() : "");
      }
    }
    if (j.contains("usage") && j["usage"].is_object()) {
      r.usage.prompt_tokens = j["usage"].value("prompt_tokens", 0);
      r.usage.completion_tokens = j["usage"].value("completion_tokens", 0);
      r.usage.total_tokens = j["usage"].value("total_tokens", 0);
    }
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The error of a failed attempt (the key redacted) and what it allows.
std::pair<std::string, Retry> attempt_error(const HttpResult& http, int64_t limit, const std::string& key) {
  if (http.body.over_limit || http.curl == CURLE_FILESIZE_EXCEEDED) {
    const int64_t announced = http.headers.content_length;
    const std::string size =
        announced > limit ? fmt::format("{} bytes", announced) : fmt::format("more than {} bytes", limit);
    return {fmt::format("the reply is {}, over the limit of {} (--max-response-mb); not retried", size,
                        mib(limit)),
            Retry::kNo};
  }
  if (http.curl != CURLE_OK)
    return {fmt::format("request failed: {}", curl_easy_strerror(http.curl)),
            retry_of_curl(http.curl, http.sent)};
  if (http.status >= 200 && http.status < 300)
    // A truncated or garbled body: the server may answer properly next time, but it may have
    // processed (and billed) this one.
    return {redact(fmt::format("HTTP {} with a body that is not a chat completion: {}", http.status,
                               http.body.text.substr(0, 120)),
                   key),
            Retry::kUncertain};
  return {redact(fmt::format("HTTP {}: {}", http.status, server_message(http.body.text)), key),
          retry_of_status(http.status)};
}

}  // namespace

Result<ChatResponse> ChatClient::do_complete(const ChatRequest& request, const CallContext& context) {
  const std::string item = context.item.empty() ? "the request" : context.item;
  try {
    require_header_safe("the model name", request.model);
  } catch (const SetupError& e) {
    return Result<ChatResponse>::failure(item, e.what());
  }
  const std::string body = request_json(request);
  const std::string auth = "Authorization: Bearer " + config_.api_key;
  uint64_t jitter_state = call_jitter_seed(config_.jitter_seed, context);
  const int uncertain_allowed = std::min(config_.max_uncertain_retries, config_.max_retries);
  int uncertain_used = 0;
  std::string last_error;
  for (int attempt = 1; attempt <= config_.max_retries + 1; ++attempt) {
    HttpResult http;
    http.body.limit = config_.max_response_bytes;
    CURL* curl = config_.keep_alive ? handles_->take() : curl_easy_init();
    if (curl == nullptr) return Result<ChatResponse>::failure(request.model, "cannot initialise libcurl");
    curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
    if (!config_.api_key.empty()) headers = curl_slist_append(headers, auth.c_str());
    curl_easy_setopt(curl, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    // At least 1 ms: libcurl reads 0 as "no timeout" (validate_client_config refuses 0 itself).
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, std::max(1L, std::lround(config_.timeout_s * 1000)));
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    // A declared Content-Length over the limit is refused before the body is read.
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(config_.max_response_bytes));
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &http.body);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, read_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &http.headers);
    const auto start = std::chrono::steady_clock::now();
    http.curl = curl_easy_perform(curl);
    http.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &http.status);
    // The request reached the server when libcurl got to sending it (connected; TLS done), or
    // when an answer came: pre-transfer time is 0 for an attempt that never connected.
    curl_off_t pretransfer_us = 0;
    curl_easy_getinfo(curl, CURLINFO_PRETRANSFER_TIME_T, &pretransfer_us);
    http.sent = http.status > 0 || pretransfer_us > 0;
    long connects = 0;
    curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
    handles_->connections += connects;
    // The handle keeps no pointer to these once the next call resets it or sets its own.
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
    curl_slist_free_all(headers);
    if (config_.keep_alive) {
      handles_->give_back(curl);
    } else {
      curl_easy_cleanup(curl);
    }
    if (context.on_attempt) context.on_attempt(http.sent);

    if (http.curl == CURLE_OK && http.status >= 200 && http.status < 300)
      if (auto r = parse_completion(http.body.text)) {
        r->attempts = attempt;
        r->latency_s = http.seconds;
        return *std::move(r);
      }
    auto [error, retry] = attempt_error(http, config_.max_response_bytes, config_.api_key);
    last_error = std::move(error);
    if (retry == Retry::kNo || attempt > config_.max_retries) break;
    if (retry == Retry::kUncertain) {
      if (uncertain_used >= uncertain_allowed) {
        last_error +=
            fmt::format(" (not retried: the server may have processed the request; {} such retr{} allowed)",
                        uncertain_allowed, uncertain_allowed == 1 ? "y is" : "ies are");
        break;
      }
      ++uncertain_used;
    }
    double wait = std::min(config_.backoff_max_s, config_.backoff_base_s * std::pow(2.0, attempt - 1));
    wait *= 0.5 + 0.5 * (static_cast<double>(splitmix64(jitter_state) >> 11) * 0x1.0p-53);
    if (http.headers.retry_after)
      wait = std::min(std::max(wait, *http.headers.retry_after), config_.backoff_max_s);
    RetryNotice notice;
    notice.item = context.item;
    notice.attempt = attempt;
    notice.max_attempts = config_.max_retries + 1;
    notice.wait_s = wait;
    notice.rate_limited = http.curl == CURLE_OK && http.status == 429;
    notice.why = last_error;
    if (on_retry_) on_retry_(notice);
    if (context.on_retry) context.on_retry(notice);
    sleep_(wait);
  }
  return Result<ChatResponse>::failure(request.model, last_error);
}

}  // namespace pcglab::llm
