// `poker synth`: IGE's data-synthesis pipeline (docs/poker.md, "Data synthesis"), in pcglab's own
// phase variants, prompts and code. Every stage is a stage of the batch driver (batch/driver.h) and
// every item keeps one game's line of work under the same key in every stage, so an item depends only
// on earlier items of its own key: shards split by game, and a killed run resumes (finished items are
// reused; the LLM calls of an item in flight are replayed from the run's exchange record).
//
//   games     g000.. (seed games) and c000.. (whole games): pcglab's phase variants combined with a
//             random config and one of the preset flows, drawn with CPython's `random`
//             (core/cpython_random.h) seeded from (--seed, key); kept only if every seed executes.
//   segments  each kept seed game split into (script segment, method) pairs: Config -> config, each
//             Phase the game defines -> its method, Flow -> set_flow.
//   mutate-R  round R: one segment of the game's pool (its seed segments and the mutations kept in
//             earlier rounds) drawn and rewritten by the LLM (description and code in a fixed reply
//             format); kept only if the game with it still executes on every seed. A reply that does
//             not follow the format is the item's error.
//   dialogues segment-level dialogues: the LLM writes a short user/assistant exchange for each
//             segment of the pool (or --segment-dialogues of them); kept if every assistant turn
//             has the three blocks and applies (poker/session.h).
//   complete  whole-game dialogues (Config -> Phase -> Flow) for the kept whole games; kept only if
//             every turn applies and the merged code's runs match the ground truth's on every seed
//             (poker/metrics.h judge_runs); the others are recorded as rejected with the reason.
//   export    (unsharded) train.jsonl (segment-level), train_complete.jsonl (whole-game) in the chat
//             fine-tuning format, and summary.json (kept and rejected per stage, with reasons).
//
// Output files are written in key order with no times, so the same seed and the same replies give
// the same bytes.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/driver.h"
#include "core/json.h"
#include "llm/chat.h"
#include "llm/completer_stack.h"
#include "poker/game_code.h"
#include "poker/run.h"
#include "poker/script.h"

namespace pcglab::poker {

// One way to play a phase: its description for the script and the method that implements it.
struct PhaseVariant {
  std::string phase;  // the script's Phase key: "start", "blind", "dealx", "flopx"
  std::string name;
  std::string description;
  std::string code;  // the method at column 0
};

struct SynthVariants {
  std::vector<std::string> phases;                            // in the order a game draws them
  std::map<std::string, std::vector<PhaseVariant>> variants;  // by phase
  std::vector<std::vector<std::string>> flows;                // the preset flows
  std::string text;                                           // the source, for item hashes
};

// pcglab's own variants (src/poker/data/variants/phases.json, embedded at build time).
const SynthVariants& builtin_variants();
// Variants from JSON text ({"start": [...], "blind": [...], "dealx": [...], "flopx": [...],
// "flows": [[...]]}); InputError naming `where`.
SynthVariants parse_variants(std::string_view text, std::string_view where);

// A game: its script and the methods of CustomGame.
struct SynthGame {
  std::string key;
  Script script;
  GameCode code;
  OrderedJson variants = OrderedJson::object();  // phase -> variant name

  std::string game_file() const { return render_game_file(code); }
  OrderedJson to_json() const;  // {"key", "variants", "script", "code"}
  static SynthGame from_json(const OrderedJson& value, std::string_view where);
};

// The game `key` of run `seed`: CPythonRandom seeded with synth_rng_seed(seed, key) draws, in this
// order, the number of players (randint(3, 6)), the minimum and maximum bet (choices), the number of
// suits (randint(3, 8)) and the suit letters (a sample of A..Z), whether suits rank (a choice),
// the number of values (randint(8, 16)) and the values (a sample of 0..24, in the sampled order),
// the category order (a shuffle of the 9 names), the flow (a choice of the presets), then one
// variant per phase (a choice each, in `variants.phases` order).
SynthGame make_game(int64_t seed, const std::string& key, const SynthVariants& variants = builtin_variants());
// The seed of an item's own CPythonRandom: derive_seed(seed, FNV-1a 64 of key), 63 bits.
int64_t synth_rng_seed(int64_t seed, std::string_view key);

// One (script segment, method) pair.
struct Segment {
  std::string id;           // "g003/blind", "g003/round-2" for a mutation
  std::string part;         // "Config", "Phase" or "Flow"
  std::string name;         // the Phase key, or "Config" / "Flow"
  std::string method;       // config, set_flow, or the phase's method
  std::string description;  // Phase: the text; Config, Flow: their `script[...] = value` lines
  std::string code;         // the method at column 0

  OrderedJson to_json() const;
  static Segment from_json(const OrderedJson& value, std::string_view where);
};

// Config -> config, each Phase whose method the game defines -> it (bet -> bet_done), Flow -> set_flow.
std::vector<Segment> split_segments(const SynthGame& game);
// `base` with the segment in place: its description in the script, its code merged.
SynthGame with_segment(const SynthGame& base, const Segment& segment);

// A mutation reply: `<description>…</description>` and `<code>…</code>`, each once. The code must
// define `from.method`; for Config and Flow the description must be `script[...]` assignments to
// that part. InputError naming what is wrong.
Segment parse_mutation_reply(std::string_view reply, const Segment& from, const std::string& id);

// A dialogue reply: `<user>…</user>` and `<assistant>…</assistant>` blocks alternating, from the
// user, ending with the assistant (text outside the blocks is ignored). InputError naming the
// block.
std::vector<llm::ChatMessage> parse_dialogue_reply(std::string_view reply);

// Why a dialogue is rejected ("" when every assistant turn has its three blocks and applies, from
// default_script() and no code); `game_file` gets the merged game.
std::string check_dialogue(const std::vector<llm::ChatMessage>& messages, std::string* game_file = nullptr);

// The fine-tuning record: {"messages": [system, user, assistant, ...]}.
OrderedJson chat_record(const std::vector<llm::ChatMessage>& messages);

struct SynthOptions {
  std::filesystem::path out;
  int64_t seed = 0;
  int seed_games = 20;
  int rounds = 5;
  int complete = 100;
  int segment_dialogues = 0;              // per seed game; 0: one per segment of its pool
  std::optional<SynthVariants> variants;  // the phase variants and flows; unset: builtin_variants()
  std::vector<int64_t> game_seeds;        // the seeds a game must execute on (and match on)
  RunOptions run;
  // The request every call starts from (model and sampling); messages are set per call.
  llm::ChatRequest request;
  llm::CompleterStackOptions stack;  // record and record_scope are set here (the driver's store)
  batch::DriverOptions driver;
  int concurrency = 1;
};

struct SynthRun {
  OrderedJson summary;   // what summary.json holds (every stage, unsharded or not)
  int64_t requests = 0;  // requests this run sent
  size_t failed = 0;     // items that ended in an error
};

// Runs every stage under options.out; the export when unsharded. SetupError for bad setup.
SynthRun run_synthesis(const SynthOptions& options);

}  // namespace pcglab::poker
