// The game's Python code: the members of `class CustomGame(GameBase)` and the game file they make.
//
// A `<code>` snippet holds methods written at column 0 (or uniformly indented: the common
// indentation is removed; or inside a `class CustomGame(...):` header, whose body is taken).
// pcglab reads its structure by indentation, in C++ (no Python runs in the host): each top-level
// `def` (with the decorators and comment lines right above it) is a method, known by its name;
// any other top-level statement (an assignment, an import, a nested class) is a class-level
// statement, kept as written; `from GameBase import *` is dropped (the game file starts with it);
// comment lines with no statement after them are dropped. As in the official evaluation, where a
// snippet is appended to the class body and a later `def` overrides an earlier one, merging
// replaces a method of the same name in place and appends new members; a statement already
// present with the same text is not repeated.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace pcglab::poker {

struct GameMember {
  std::string name;  // the method's name; empty for a class-level statement
  std::string text;  // its lines at column 0, no trailing newline
  bool operator==(const GameMember&) const = default;
};

struct GameCode {
  std::vector<GameMember> members;  // in order of first appearance
  bool operator==(const GameCode&) const = default;
};

// The members of a snippet, in order (none for an empty or blank snippet). Throws InputError
// "<source> line N: cause" (N counts the snippet's lines from 1) for tabs and spaces mixed as
// Python's TabError rule forbids, a dedent to no outer level, an unterminated string or
// triple-quoted string, an unclosed or unmatched bracket, a decorator with no def under it, a def
// with no body, or a non-blank snippet with no def at all.
std::vector<GameMember> parse_snippet(std::string_view snippet, std::string_view source = "<code>");

// `code` with the snippet's members merged in (see above). Throws what parse_snippet throws.
GameCode merge_snippet(GameCode code, std::string_view snippet, std::string_view source = "<code>");

// The game file: `from GameBase import *`, then `class CustomGame(GameBase):` with the members
// indented by 4 spaces (blank lines left blank), one blank line between members; `pass` when there
// are none. The same code gives the same bytes.
std::string render_game_file(const GameCode& code);

// JSON form for session files: [{"name": ..., "text": ...}, ...]. from_json throws InputError
// naming `where` for a malformed value.
Json game_code_to_json(const GameCode& code);
GameCode game_code_from_json(const Json& value, std::string_view where);

}  // namespace pcglab::poker
