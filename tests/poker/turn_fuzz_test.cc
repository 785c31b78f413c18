// Hostile or garbled turns: the parsers either accept a text or throw InputError, never anything
// else, never crash, never hang (random texts of Python-like pieces, a fixed seed printed on failure).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "core/check.h"
#include "poker/game_code.h"
#include "poker/script.h"
#include "poker/turn.h"

namespace pcglab::poker {
namespace {

const std::vector<std::string> kPieces = {"script",      "['Config']",
                                          "['Min bet']", " = ",
                                          "=",           "[",
                                          "]",           "(",
                                          ")",           "{",
                                          "}",           ":",
                                          ",",           "'",
                                          "\"",          "'''",
                                          "\"\"\"",      "\\",
                                          "\n",          "\n    ",
                                          "\t",          "#",
                                          "def ",        "f(self)",
                                          "x",           "1",
                                          "-2.5e3",      "0x",
                                          "True",        "None",
                                          "for ",        "import os",
                                          "@dec\n",      "class CustomGame(GameBase):\n",
                                          "<script>",    "</script>",
                                          "<code>",      "</code>",
                                          "<utter>",     "</utter>",
                                          "```",         "```python\n",
                                          "\\x4",        "\\u12",
                                          "r'",          "b'",
                                          "f'",          ";",
                                          "+=",          " if ",
                                          "é",           "\xff"};

std::string random_text(std::mt19937& rng) {
  std::uniform_int_distribution<size_t> length(0, 40);
  std::uniform_int_distribution<size_t> piece(0, kPieces.size() - 1);
  std::string out;
  for (size_t n = length(rng); n > 0; --n) out += kPieces[piece(rng)];
  return out;
}

template <class F>
void only_input_errors(const std::string& text, uint32_t seed, F&& parse) {
  try {
    parse(text);
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "seed " << seed << ": " << e.what() << "\ntext:\n" << text;
  }
}

TEST(PokerTurnFuzz, ParsersOnlyThrowInputErrors) {
  for (uint32_t seed = 1; seed <= 3000; ++seed) {
    std::mt19937 rng(seed);
    const std::string text = random_text(rng);
    only_input_errors(text, seed, [](const std::string& t) { parse_turn(t); });
    only_input_errors(text, seed, [](const std::string& t) {
      apply_script_edits(default_script(), parse_script_edits(t));
    });
    only_input_errors(text, seed,
                      [](const std::string& t) { render_game_file(merge_snippet(GameCode{}, t)); });
    only_input_errors("script['x'] = " + text, seed, [](const std::string& t) { parse_script_edits(t); });
    only_input_errors("def f(self):\n    " + text, seed, [](const std::string& t) { parse_snippet(t); });
  }
}

}  // namespace
}  // namespace pcglab::poker
