// The turn loop of an IGE session (docs/poker.md, "Sessions"): what `pcglab poker session` (the
// terminal) and `pcglab poker serve` (the web page) do for each message the user sends.
//
// Interaction::say(text): appends the user turn, sends the conversation (Session::chat_messages
// with the assistant's system prompt) to the model through the given completer, records the reply
// as the assistant turn (parsed and applied all or nothing, poker/session.h), and, when the turn
// applied and the game is playable (below), plays one round of the current game in the sandbox (run_game, one
// seed: the session's next seed, its log captured) and attaches it to the turn as `round`. A round that
// failed is recorded and fed back to the model with the next request (the exception's type, message and
// frames), never ends the session. The session file is written (atomically) after every turn.
//
// A model that cannot be reached (the completer's retries spent) leaves the session as it was
// before the user's message: nothing is recorded, nothing is saved, and the user may send it again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/json.h"
#include "llm/completer.h"
#include "poker/run.h"
#include "poker/session.h"

namespace pcglab::poker {

struct InteractOptions {
  std::string model;
  std::optional<double> temperature, top_p;
  std::optional<int> max_tokens;
  std::optional<int64_t> sampling_seed;  // the server's `seed`, when set
  RunOptions run;                        // the sandbox the rounds run in
  std::filesystem::path file;            // written after every turn; empty: never written
};

// What one message of the user came to.
struct TurnOutcome {
  bool ok = false;                   // false: the model could not be reached; the session is unchanged
  std::string error;                 // why, when !ok
  int requests = 0;                  // requests sent to the server for this message (retries included)
  bool applied = false;              // the assistant's turn applied (no errors)
  bool round_played = false;         // a round was played after it
  bool round_ok = false;             // ... and it ended without an error
  std::vector<std::string> changes;  // what changed in the code ("+ bet_done", "~ config")
};

// A round is played once the game defines config(self) and set_flow(self) (GameBase calls both
// before anything else; the template's earlier turns describe the game before writing them).
bool game_is_playable(const GameCode& code);
// The round's record attached to a turn: {"seed": N, "state": {...}, "log": [...]} when it played,
// or {"seed": N, "error": {"kind", "cause", "type", "message", "frames"}, "log": [...]} when it
// failed; "log" is the round's log lines (SeedRun::log: GameBase's log text, capped; rounds saved
// before the log existed have none).
OrderedJson round_json(const SeedRun& run);
// A round's log lines ("log"; none when it has none).
std::vector<std::string> round_log(const Json& round);
// The round's log as text, one line each, or a line saying why there is none ("" for no round).
std::string round_log_text(const Json& round);
// The round's log in a few words, one line per logged step (what `poker session` prints after a
// round): the step's message ("phase: bet; player: p1; act: raise; bet: 40; done: False"), then
// " | community: ..." and " | players: ..." when they changed since the step before (the deck is
// left out). A line that is no step's (the cut line) is kept as it is.
std::vector<std::string> round_log_digest(const std::vector<std::string>& lines);
// The message fed back to the model about a failed round ("" for a round that played).
std::string round_feedback(const Json& round);
// The seed the next round uses: one after the last round's, or settings["seed"] (default 1).
int64_t next_round_seed(const Session& session);

// People's views of a session (the terminal and the web page show the same words).
// The script in a few lines: Config as `key = value`, the Phase names, the Flow.
std::string script_summary(const Script& script);
// The members of `after` that are new ("+ name") or changed ("~ name") since `before`, and those
// gone ("- name"); a class-level statement is named by its first line.
std::vector<std::string> code_changes(const GameCode& before, const GameCode& after);
// A round in a few lines: its seed, the flow played, the community cards and each player's
// "pid: bet/remain/hole/fold", or the error with its frames.
std::string round_summary(const Json& round);

class Interaction {
 public:
  Interaction(Session session, llm::Completer& completer, InteractOptions options);

  // One message of the user (see above). Thread-safe: calls run one at a time, and session() keeps
  // answering (with the session before the message) while one runs.
  TurnOutcome say(const std::string& text);

  // A copy of the session now (thread-safe).
  Session session() const;
  // Writes the session file now (no-op without a file).
  void save() const;
  const InteractOptions& options() const { return options_; }

 private:
  void save_locked() const;

  std::mutex turn_mutex_;     // held through a whole turn
  mutable std::mutex mutex_;  // guards session_ (held briefly)
  Session session_;
  llm::Completer& completer_;
  InteractOptions options_;
};

// The session in `file` when it exists (resume; InputError naming the file when it is not a
// session), else a new one from the default script. `settings` (model, seed, ...) are recorded over
// the file's, except "seed": a resumed session keeps the seed it started with.
Session open_session(const std::filesystem::path& file, Json settings);

// The session as the web page reads it (GET /api/session): the turns (role, text, the utterance,
// errors, feedback, round), the current script (object and as edits), the game file, the last
// round (with its summary and its log as text, `round_log`) and the next seed.
OrderedJson session_view(const Session& session);

}  // namespace pcglab::poker
