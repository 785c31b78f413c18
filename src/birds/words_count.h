// Word count exactly as npm words-count@2.0.2 (the 2023 ChatGPT4PCG qualification script's counter),
// quirks included: listed punctuation deleted, U+2000–206F and U+FF00–FFEF deleted, only the FIRST
// whitespace run normalised, split on single spaces, and inside each token digit runs, Latin/Cyrillic
// letter runs and single CJK characters each count one (a token with none counts one).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pcglab::birds {

// Operates on UTF-16 code units, as JavaScript does.
int words_count(std::u16string_view text);
// UTF-8 input (invalid bytes decode to U+FFFD, as Node.js reads files).
int words_count_utf8(std::string_view text);

// The words as words-count's wordsSplit returns them (UTF-8), for diagnostics.
std::vector<std::string> words_split_utf8(std::string_view text);

}  // namespace pcglab::birds
