// Code extraction exactly as the official ChatGPT4PCG `extractCode` (npm chatgpt4pcg@1.4.1):
// - the LAST match of /```([^`]+)```/g (non-overlapping, left to right; no backtick inside);
// - in that match (fences included) every match of `<fn>\(['|"]b[1|3][1|3]['|"], *\d*\)`;
// - `"` replaced by `'`, each call followed by "\n", the whole lower-cased;
// - null (std::nullopt) when there is no block or no call.
// Plus diagnostics for a prompt engineer: the calls the pattern dropped and why, loops, and why a
// response yields no code. Both run in time and memory linear in the response's size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error_kind.h"
#include "core/result.h"

namespace pcglab::birds {

// The largest response pcglab reads: 1 MiB, 16 times the longest response a competition model can
// give (25,000 tokens ≈ 100 KB in 2024). A larger file is that trial's error, not a crash or a
// stall; the official scripts have no limit.
inline constexpr size_t kMaxResponseBytes = size_t{1} << 20;

// Reads one response file; an ItemError naming the file when it cannot be read or is larger than
// kMaxResponseBytes (checked before reading).
Result<std::string> read_response_file(const std::filesystem::path& path);

// Diagnostics list at most this many dropped calls and loops (their totals are counted), and show
// at most kMaxCallText bytes of a dropped call.
inline constexpr size_t kMaxListed = 1000;
inline constexpr size_t kMaxCallText = 200;

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
  int line = 0;        // 1-based line in the response
  std::string text;    // the call as written (its first kMaxCallText bytes, then "...")
  std::string reason;  // why the official pattern does not match it
};

struct LoopSeen {
  int line = 0;
  std::string header;     // e.g. "for i in range(3):"
  int calls_in_body = 0;  // extracted once each, not once per iteration
  // len(range(...)) as Python computes it, when the arguments are integer literals; saturated at
  // UINT64_MAX (iterations_saturated) when larger; nullopt when not a range of literals or a literal
  // has more than 36 digits.
  std::optional<uint64_t> iterations;
  bool iterations_saturated = false;
};

// len(range(args)) for the text between the parentheses of range(...) (see LoopSeen::iterations).
struct RangeLength {
  uint64_t count = 0;
  bool saturated = false;
};
std::optional<RangeLength> range_length(std::string_view args);

struct ExtractionReport {
  std::optional<std::string> code;  // the official output
  int accepted_calls = 0;
  int fence_markers = 0;             // occurrences of ```
  int blocks = 0;                    // complete blocks matched by the official pattern
  std::vector<DroppedCall> dropped;  // the first kMaxListed
  int dropped_calls = 0;             // all of them
  std::vector<LoopSeen> loops;       // the first kMaxListed
  int loops_seen = 0;                // all of them
  int calls_in_earlier_blocks = 0;   // ignored: only the last block counts
  int calls_outside_blocks = 0;      // ignored
  // None when code was found; else the response's item failure: kind no-output, and why no code
  // was found (no fence, an unclosed block, no call in the last block, ...).
  std::optional<ItemFailure> no_code;
};

ExtractionReport diagnose_extraction(std::string_view response, std::string_view function = "drop_block");

}  // namespace pcglab::birds
