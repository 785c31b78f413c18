// birds/js_whitespace.h: JavaScript's whitespace (String.prototype.trim), as the official
// evaluator's Node.js code sees it.
#include "birds/js_whitespace.h"

#include <gtest/gtest.h>

namespace pcglab::birds {
namespace {

TEST(JsWhitespace, IsTheWhiteSpaceAndLineTerminatorCodeUnitsOfEcmaScript) {
  for (char16_t c : {u'\t', u'\n', u'\v', u'\f', u'\r', u' ', u'\u00A0', u'\u1680', u'\u2000', u'\u200A',
                     u'\u2028', u'\u2029', u'\u202F', u'\u205F', u'\u3000', u'\uFEFF'})
    EXPECT_TRUE(is_js_whitespace(c)) << static_cast<int>(c);
  // Not whitespace in JavaScript: the zero-width space, NEL, the Mongolian vowel separator.
  for (char16_t c : {u'a', u'\0', u'\u200B', u'\u0085', u'\u180E', u'\u001C'})
    EXPECT_FALSE(is_js_whitespace(c)) << static_cast<int>(c);
}

}  // namespace
}  // namespace pcglab::birds
