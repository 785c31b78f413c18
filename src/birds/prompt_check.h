// Prompt qualification as the official ChatGPT4PCG scripts check it.
// 2023 (qualification-checking-script, in this order): word count by words-count@2.0.2 at most 900,
// only allowed characters, `<OBJECT>` present (case-sensitive). 2024 and 2025 have no automatic text
// checks (prompts are inspected by hand) and the function is `drop_block` instead of `ab_drop`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pcglab::birds {

enum class PromptRules { k2023, k2024, k2025 };

PromptRules parse_prompt_rules(std::string_view year);  // "2023", "2024", "2025"; SetupError otherwise
std::string_view prompt_rules_name(PromptRules rules);
// The drop function a year's programs call: ab_drop (2023) or drop_block (2024, 2025).
std::string_view drop_function_for(PromptRules rules);

inline constexpr int kMaxWords2023 = 900;

struct PromptViolation {
  std::string rule;       // "word-count", "disallowed-character", "missing-object"
  std::string message;    // what is wrong, for a person
  int line = 0;           // 1-based; 0 when the violation is about the whole prompt
  int column = 0;         // 1-based, in Unicode code points
  std::string character;  // the offending character (UTF-8) and its code point, e.g. "é (U+00E9)"
};

struct PromptCheck {
  PromptRules rules = PromptRules::k2023;
  int word_count = 0;
  bool qualified = true;
  std::vector<PromptViolation> violations;  // every violation, in the official check order
  std::vector<std::string> notes;           // e.g. "2024: no automatic checks; inspected by hand"
};

// `text` is the prompt file's bytes (UTF-8; invalid bytes are read as U+FFFD like Node.js does).
PromptCheck check_prompt(std::string_view text, PromptRules rules);

// The official predicates on their own (2023 qualification script, npm chatgpt4pcg@1.4.1).
bool contains_disallowed_characters(std::string_view text);
bool contains_object_token(std::string_view text);

}  // namespace pcglab::birds
