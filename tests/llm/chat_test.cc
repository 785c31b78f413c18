// The request body (llm/chat.h): text messages keep their plain content string (the wire form, cache
// keys and exchange records made before image parts existed stay valid); a message with images
// becomes OpenAI content parts.
#include "llm/chat.h"

#include <gtest/gtest.h>

namespace pcglab::llm {
namespace {

TEST(RequestJson, TextMessagesAreUnchanged) {
  ChatRequest r;
  r.model = "m";
  r.messages = {{"system", "be brief"}, {"user", "draw A"}};
  r.temperature = 0.0;
  r.seed = 3;
  EXPECT_EQ(
      request_json(r),
      R"({"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"draw A"}],)"
      R"("temperature":0.0,"seed":3})");
}

TEST(RequestJson, ImagesAreContentPartsAfterTheText) {
  ChatRequest r;
  r.model = "m";
  r.messages = {{"system", "judge"},
                {"user", "levels:", {"data:image/png;base64,AA==", "data:image/png;base64,AQ=="}}};
  EXPECT_EQ(request_json(r),
            R"({"model":"m","messages":[{"role":"system","content":"judge"},{"role":"user","content":[)"
            R"({"type":"text","text":"levels:"},)"
            R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}},)"
            R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AQ=="}}]}]})");
  // The images are part of the request, so of its cache key.
  ChatRequest other = r;
  other.messages[1].image_urls.pop_back();
  EXPECT_NE(request_json(r), request_json(other));
}

}  // namespace
}  // namespace pcglab::llm
