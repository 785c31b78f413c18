// The chat-completions API as plain data: messages, a request (model and sampling settings) and a
// reply (content, finish reason, token usage, and where the reply came from). Every completer
// (completer.h) takes a ChatRequest and gives a ChatResponse, whatever layers it stacks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pcglab::llm {

struct ChatMessage {
  std::string role;  // "system", "user", "assistant"
  std::string content;
  // Images for a vision model (URLs, usually "data:image/png;base64,..."), sent after the text as
  // OpenAI content parts. Empty for a text message, whose wire form stays a plain content string.
  std::vector<std::string> image_urls{};
  bool operator==(const ChatMessage&) const = default;
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<int64_t> seed;
  std::optional<int> max_tokens;
  // Choices asked for (OpenAI's `n`); sent only when set. A server may answer fewer: the reply's
  // `choices` says how many came.
  std::optional<int> n;
};

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int total_tokens = 0;
};

// Which layer answered: the server (a request was sent), the response cache, or the run's record
// of exchanges (a call that finished before the process was killed, replayed on resume).
enum class ReplySource { kServer, kCache, kRecord };
const char* reply_source_name(ReplySource source);  // "server", "cache", "record"

struct ChatResponse {
  std::string content;  // the first choice's
  std::string finish_reason;
  Usage usage;
  int attempts = 0;      // requests sent, retries included (0 when no request was sent)
  double latency_s = 0;  // of the successful request (as first measured, for a cached reply)
  ReplySource source = ReplySource::kServer;
  // Every choice's content, in the server's order, when it sent more than one (a request with `n`);
  // empty otherwise (then `content` is the only one).
  std::vector<std::string> choices;
};

// The request body as JSON: the server's wire format, the cache key's input and the exchange log's
// record (never the API key or the server URL). A message with images has a content array
// [{"type":"text","text":...},{"type":"image_url","image_url":{"url":...}},...]; every other
// message a content string, as before images existed (so old cache keys still match).
std::string request_json(const ChatRequest& request);

// Hex SHA-256 of `data` (cache keys, exchange keys).
std::string sha256_hex(const std::string& data);

}  // namespace pcglab::llm
