// JavaScript's whitespace, as the official evaluator's Node.js code sees it (String.prototype.trim,
// the words count's split): over UTF-16 code units (core/unicode.h converts).
#pragma once

namespace pcglab::birds {

// JavaScript's String.prototype.trim() whitespace: WhiteSpace and LineTerminator code units.
bool is_js_whitespace(char16_t c);

}  // namespace pcglab::birds
