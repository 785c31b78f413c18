// An assistant turn of an IGE session: `<script>…</script><code>…</code><utter>…</utter>`.
//
// Every turn holds all three blocks, each exactly once, possibly empty. Tolerated: text before,
// between and after the blocks (ignored), the blocks in any order, Markdown fences around the
// blocks (they are text outside the blocks), and one fence inside a block around its content
// (```python … ``` inside <code>, ``` … ``` inside <script>). Tags are lowercase and exact. A
// block's content runs to its closing tag; leading blank lines and trailing whitespace are
// removed, the first line's indentation is kept.
#pragma once

#include <string>
#include <string_view>

namespace pcglab::poker {

struct TurnBlocks {
  std::string script;  // the edits to the game script (poker/script.h)
  std::string code;    // methods of CustomGame (poker/game_code.h)
  std::string utter;   // guidance to the user
};

// The three blocks of `text`. Throws InputError naming the block: a block missing
// ("the turn has no <code> block ..."), duplicated, not closed, or a closing tag without its
// opening one.
TurnBlocks parse_turn(std::string_view text);

}  // namespace pcglab::poker
