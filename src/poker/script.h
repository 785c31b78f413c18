// The game script of an IGE session (Config, Phase, Flow) and the `<script>` block's edits to it.
//
// An assistant turn's `<script>` block holds Python assignments such as
//   script['Config']['Min bet'] = 8
//   script['Flow'] = ['start', 'shuffle', 'blind', 'deal2', 'bet', 'show', 'prize']
// pcglab never executes them: parse_script_edits reads each statement with its own small parser
// (a `script` name, a chain of string subscripts, `=`, one Python literal) and rejects everything
// else (calls, names, attribute access, imports, comprehensions, operators, augmented assignment,
// several targets) with an InputError naming the block's line and the cause.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace pcglab::poker {

// The script as JSON in its keys' order: {"Config": {...}, "Phase": {...}, "Flow": [...]}.
using Script = OrderedJson;

// One assignment of the block: script[path[0]][path[1]]... = value.
struct ScriptEdit {
  int line = 0;                   // 1-based line of the block where the statement starts
  std::vector<std::string> path;  // at least one key
  OrderedJson value;              // the literal: str, int, float, bool, null, list (tuple), dict
};

// The edits of a `<script>` block, in order. Comments and blank lines are ignored; statements end
// at a newline outside brackets and strings, or at `;`. Throws InputError
// "<script> line N (`text`): cause" for the first statement that is not an allowed assignment.
std::vector<ScriptEdit> parse_script_edits(std::string_view block);

// `script` with the edits applied in order, as Python would: every key but the last must exist and
// hold a dict; the last one is set (a new key goes last). All or nothing: on an error
// (InputError "<script> line N: cause") the caller's script is untouched.
Script apply_script_edits(const Script& script, const std::vector<ScriptEdit>& edits);

// The script every session starts from: the official template's keys with pcglab's own
// descriptions (src/poker/data/default_script.json, embedded at build time).
Script default_script();

// The official script template's keys, in order.
const std::vector<std::string>& script_config_keys();
const std::vector<std::string>& script_phase_keys();

// The script as Python-like text for people and prompts: one `script[...] = value` line per
// Config and Phase entry, and one for Flow, which parse_script_edits reads back to the same script.
std::string script_as_edits(const Script& script);

// A value as a Python literal (str in single quotes with Python's escapes, True/False/None).
std::string python_literal(const OrderedJson& value);

}  // namespace pcglab::poker
