// UTF-8 <-> UTF-16 conversion with the WHATWG decoder's error handling (each maximal invalid
// subsequence becomes U+FFFD), which is what Node.js does when it reads a file as 'utf8', and a
// UTF-8 check. Shared: the sandbox makes a file name valid UTF-8 with it; a track's own text rules
// (birds' JavaScript whitespace, birds/js_whitespace.h) live with the track.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace pcglab {

std::u16string utf8_to_utf16(std::string_view utf8);
std::string utf16_to_utf8(std::u16string_view utf16);  // lone surrogates become U+FFFD

// Appends code point `cp` (< 0x110000; surrogates are the caller's to refuse) as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

// True if `text` is valid UTF-8.
bool is_valid_utf8(std::string_view text);

}  // namespace pcglab
