#include "llm/chat.h"

#include <openssl/evp.h>

#include <fmt/format.h>

#include "core/json.h"

namespace pcglab::llm {

const char* reply_source_name(ReplySource source) {
  switch (source) {
    case ReplySource::kCache: return "cache";
    case ReplySource::kRecord: return "record";
    default: return "server";
  }
}

std::string request_json(const ChatRequest& r) {
  OrderedJson j;
  j["model"] = r.model;
  j["messages"] = OrderedJson::array();
  for (const auto& m : r.messages) {
    if (m.image_urls.empty()) {
      j["messages"].push_back({{"role", m.role}, {"content", m.content}});
      continue;
    }
    OrderedJson parts = OrderedJson::array();
    parts.push_back({{"type", "text"}, {"text", m.content}});
    for (const auto& url : m.image_urls)
      parts.push_back({{"type", "image_url"}, {"image_url", {{"url", url}}}});
    j["messages"].push_back({{"role", m.role}, {"content", parts}});
  }
  if (r.temperature) j["temperature"] = *r.temperature;
  if (r.top_p) j["top_p"] = *r.top_p;
  if (r.seed) j["seed"] = *r.seed;
  if (r.max_tokens) j["max_tokens"] = *r.max_tokens;
  if (r.n) j["n"] = *r.n;
  return dump_json(j);
}

std::string sha256_hex(const std::string& data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), digest, &len, EVP_sha256(), nullptr);
  std::string out;
  out.reserve(2 * len);
  for (unsigned int i = 0; i < len; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

}  // namespace pcglab::llm
