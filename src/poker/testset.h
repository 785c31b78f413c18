// IGE's test set (the official data/test.jsonl format): one JSON object per line, {"script": ...,
// "code": ...}, where `script` is YAML text (Config, Phase, Flow) and `code` the ground-truth
// methods of the game's CustomGame (text at column 0; it may also define `bet`, which no metric
// scores on its own).
//
// The YAML is read with yaml-cpp into a Script (poker/script.h) in the file's key order: a quoted
// scalar is a str; a plain one is an int, a float, a bool (true/false, any case), null (~, null)
// or else a str, as PyYAML resolves them. Each line is one test game; a line that is not such an
// object is that game's error (the line number and the field), the other games still load.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "poker/script.h"

namespace pcglab::poker {

struct TestGame {
  int line = 0;       // 1-based line of the file
  std::string key;    // "game01", "game02", ...: the line number, the batch item's key
  Script script;      // {"Config": {...}, "Phase": {...}, "Flow": [...]}
  std::string code;   // the ground-truth methods
  std::string error;  // why the line is not a test game ("" when it is one)
  bool ok() const { return error.empty(); }
};

// The script of YAML text: a mapping with Config (a mapping), Phase (a mapping of str) and Flow
// (a sequence of str), other keys kept. InputError naming `where` and the field.
Script script_from_yaml(std::string_view yaml, std::string_view where);
// A script as YAML text (block style, keys in order, strings quoted), which script_from_yaml reads
// back to the same script; what the simulated user is shown.
std::string script_to_yaml(const Script& script);

// The games of a test file's text, one per non-blank line; a malformed line is a TestGame whose
// `error` says "<source> line N: ..." (naming the field). Blank lines are skipped (not games).
std::vector<TestGame> parse_test_set(std::string_view text, std::string_view source);
// The same from a file: SetupError when it cannot be read or holds no line.
std::vector<TestGame> read_test_set(const std::filesystem::path& path);

// The key of line `line`: "game01" (two digits at least).
std::string test_game_key(int line);

}  // namespace pcglab::poker
