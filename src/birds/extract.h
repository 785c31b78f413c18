// Code extraction exactly as the official ChatGPT4PCG `extractCode` (npm chatgpt4pcg@1.4.1):
// - the LAST match of /```([^`]+)```/g (non-overlapping, left to right; no backtick inside);
// - in that match (fences included) every match of `<fn>\(['|"]b[1|3][1|3]['|"], *\d*\)`;
// - `"` replaced by `'`, each call followed by "\n", the whole lower-cased;
// - null (std::nullopt) when there is no block or no call.
// Plus diagnostics for a prompt engineer: the calls the pattern dropped and why, loops, and why a
// response yields no code.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pcglab::birds {

// Accepts identifiers only ([A-Za-z_][A-Za-z0-9_]*); throws SetupError otherwise.
void validate_function_name(std::string_view function);

// The official output, byte for byte, or nullopt where the official function returns null.
std::optional<std::string> extract_code(std::string_view response, std::string_view function = "drop_block");

struct FencedBlock {
  size_t begin = 0;  // byte offset of the opening ```
  size_t end = 0;    // byte offset just past the closing ```
  int first_line = 0;
};

// Every block the official pattern matches, in order (the last one is used).
std::vector<FencedBlock> fenced_blocks(std::string_view response);

struct DroppedCall {
  int line = 0;         // 1-based line in the response
  std::string text;     // the call as written
  std::string reason;   // why the official pattern does not match it
};

struct LoopSeen {
  int line = 0;
  std::string header;       // e.g. "for i in range(3):"
  int calls_in_body = 0;    // extracted once each, not once per iteration
  int iterations = -1;      // from range(N) when it can be read, else -1
};

struct ExtractionReport {
  std::optional<std::string> code;  // the official output
  int accepted_calls = 0;
  int fence_markers = 0;            // occurrences of ```
  int blocks = 0;                   // complete blocks matched by the official pattern
  std::vector<DroppedCall> dropped;
  std::vector<LoopSeen> loops;
  int calls_in_earlier_blocks = 0;  // ignored: only the last block counts
  int calls_outside_blocks = 0;     // ignored
  std::string no_code_reason;       // empty when code was found
};

ExtractionReport diagnose_extraction(std::string_view response, std::string_view function = "drop_block");

}  // namespace pcglab::birds
