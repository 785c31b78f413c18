// Playing a text game as its own main() does, and replaying a playthrough file
// (docs/textgame.md, "Game host").
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "textgame/host.h"

namespace pcglab::textgame {

// Plays the game on `in`/`out` as the games' main() does: the task description, the initial
// observation, then a `> ` prompt per action (an empty line asks again, `help` prints the possible
// actions, `exit` or `quit` ends), the step's observation, step count, score, reward and flags, and
// the actions regenerated after every step. Ends at game over (main() would go on asking) or at the
// end of `in`. A game failure is thrown (GameError).
void play(GameSession& session, int64_t seed, std::istream& in, std::ostream& out);

// A playthrough file (the official data/playthroughs/*.txt): main()'s transcript, each `> action`
// line followed by the observation and the step's numbers.
struct PlaythroughStep {
  std::string action;
  std::string observation;
  std::optional<bool> game_won;  // "Game Won: True|False" of the step, when present
  int line = 0;                  // the `> action` line (1-based)
};

struct Playthrough {
  std::optional<std::string> initial_observation;
  std::vector<PlaythroughStep> steps;
};

// Parses a playthrough's text ("Observation: " and the corpus's "Observaton: " both open an
// observation). InputError naming `name` and the line when a step has no observation.
Playthrough parse_playthrough(const std::string& text, const std::string& name);

struct ReplayResult {
  bool matched = false;  // every observation as recorded
  int steps = 0;         // steps replayed
  int diverged_at = -1;  // the first differing step (1-based; 0: the initial observation)
  std::string action;    // its action
  std::string expected, actual;
  bool game_over = false, game_won = false;  // the game's flags after the last step replayed
  std::optional<bool> expected_won;          // the playthrough's last "Game Won:"
};

// Replays the playthrough on a new game of `seed`, regenerating the actions after every step as
// main() does; stops at the first observation that differs. Observations are compared line by line
// without trailing white space and with tabs expanded to 8 columns (the corpus's playthrough files
// lost trailing spaces, and tabs, to an editor). A game failure is thrown (GameError).
ReplayResult replay(GameSession& session, int64_t seed, const Playthrough& playthrough);

}  // namespace pcglab::textgame
