// The reward code in an LLM's reply, taken as PCGRLLM's parser takes it (parse_reward_function in
// the official llm_client/utils.py): the text of the first ```python ... ``` block, else of the
// first bare ``` ... ``` block (DOTALL, non-greedy: up to the next fence), stripped of surrounding
// whitespace as Python's str.strip() does; when there is no block, or the block is empty, the whole
// reply. So a reply that is only code works, and a reply with two blocks gives the first.
#pragma once

#include <string>
#include <string_view>

namespace pcglab::pcgrl {

struct RewardCode {
  std::string code;
  // Where it came from: "python block", "fenced block", "whole reply".
  std::string source;
};

RewardCode extract_reward_code(std::string_view reply);

// Python's str.strip() for the characters it strips: ASCII whitespace (space, \t, \n, \v, \f, \r),
// the separators \x1c-\x1f and the Unicode spaces U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000 (in UTF-8).
std::string python_strip(std::string_view text);

}  // namespace pcglab::pcgrl
