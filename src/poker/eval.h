// IGE's black-box evaluation (docs/poker.md, "Evaluation"): for each test game (poker/testset.h) a
// simulated user (an LLM playing the interactor, src/poker/prompts/interactor.txt, shown the game's
// script) reveals the game to the model under test, turn by turn, until the model's reply holds
// the script's Flow or 20 assistant turns have passed; then the code metrics (poker/metrics.h) over
// fixed seeds recorded in the run, with the game's code as the truth and the sandboxed engine
// (poker/run.h) as the GameRunner, and the interaction-quality judge (six aspects scored 1-4, each
// dialogue judged `judge_runs` times, src/poker/prompts/judge.txt).
//
// Each test game is an item of the batch driver in three stages with the same key ("game01"):
// "interact" (the dialogue, saved as a poker::Session in DIR/sessions/<key>.json after every
// turn), "score" (DIR/scores/<key>.json) and "judge" (DIR/judge/<key>.json). Every LLM call goes
// through the caller's completers with the run store's exchange record, so a run killed at any
// point resumes without repeating an answered request; `--shard` splits the games (the three
// stages of a game land in one shard) and `pcglab merge` completes the run.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/shard.h"
#include "core/json.h"
#include "core/table.h"
#include "core/thread_pool.h"
#include "llm/chat.h"
#include "llm/completer.h"
#include "poker/metrics.h"
#include "poker/run.h"
#include "poker/session.h"
#include "poker/testset.h"

namespace pcglab::poker {

// ---- The GameRunner of real runs ----

// A seed's error as text: "<kind> (<cause>) <type>: <message>" ("bad-input (exception)
// IndexError: pop from empty list"; the type and its colon left out when there is none).
std::string seed_error_text(const SeedRun& run);
// run_game (poker/run.h) behind the metrics' seam: each seed's state (as Json: dict equality, key
// order ignored, as Python compares the states) or its error text.
GameRunner sandbox_game_runner(RunOptions options);

// ---- Seeds ----

// The default seeds, 1..40.
std::vector<int64_t> default_eval_seeds();
// 40 distinct seeds drawn as the official `random.sample(range(10000), 40)` does, from CPython's
// random seeded with `seed` (core/cpython_random.h), so a run can use seeds of the official kind
// that are still fixed and recorded.
std::vector<int64_t> sampled_eval_seeds(int64_t seed);

// ---- The interaction ----

// The text whose presence in an assistant reply ends the dialogue: the Flow list as Python's repr
// prints it (`['start', 'shuffle', ...]`: single quotes, ", " between items), what the official
// check `str(script['Flow']) in reply` looks for.
std::string flow_marker(const Script& script);
bool reply_completes_flow(std::string_view reply, const Script& script);

// The interactor's system message for a target script: interactor.txt with the script as YAML.
std::string interactor_system_prompt(const Script& target);
// The judge's prompt for a session: judge.txt with the dialogue as "User: ...\n\nAssistant: ..."
// blocks in order.
std::string judge_prompt(const Session& session);
std::string_view interactor_prompt_template();
std::string_view judge_prompt_template();

struct InteractionSettings {
  llm::ChatRequest assistant;  // model and sampling of the model under test (messages ignored)
  llm::ChatRequest user;       // the simulated user's
  int max_turns = 20;          // assistant turns at most
};

enum class InteractionEnd { kFlow, kTurnLimit };
const char* interaction_end_name(InteractionEnd end);  // "flow", "turn-limit"

struct InteractionResult {
  Session session;
  InteractionEnd end = InteractionEnd::kTurnLimit;
  int requests = 0;  // requests sent to the servers (replayed and cached calls not counted)
};

// The dialogue of one test game: the user speaks first; after each assistant turn the session is
// saved to `session_file` (when not empty). Calls are numbered in CallContext::call (user 2t,
// assistant 2t + 1) under `item`, so an exchange record replays them. A failed call throws
// ItemFailure(kLlm) naming the turn and the side.
InteractionResult run_interaction(llm::Completer& assistant, llm::Completer& user,
                                  const InteractionSettings& settings, const TestGame& game,
                                  const std::filesystem::path& session_file, const std::string& item);

// A recorded conversation (chat format: {"messages": [{"role", "content"}, ...]}; system messages
// skipped) as a session from default_script(). InputError naming `where` for a malformed one.
Session session_from_chat(const Json& chat, std::string_view where);

// ---- Interaction quality ----

// The six scores (1-4, in quality_aspects() order) of a judge reply: for each aspect the first
// line that starts with its name (any case, Markdown emphasis and list marks ignored) followed by
// ':' or '=' and a digit 1-4. InputError naming what is missing for an unparseable reply.
std::array<int, 6> parse_quality_reply(std::string_view reply);

// ---- The batch ----

// Which completer a call goes to.
enum class EvalRole { kAssistant, kUser, kJudge };
// The completer of a role, asked for by each item that runs (from any thread: it must be
// thread-safe), with the run store of this process (batch::Driver::store_path), where its exchange
// record belongs. Not called when every item is reused.
using EvalCompleterFactory =
    std::function<llm::Completer&(EvalRole role, const std::filesystem::path& store)>;

struct EvalRun {
  std::filesystem::path test;       // the test set (test.jsonl format)
  std::filesystem::path dialogues;  // recorded dialogues instead of the interaction ("": interact)
  std::filesystem::path out;
  InteractionSettings interaction;
  llm::ChatRequest judge;  // model and sampling of the judge
  bool no_judge = false;
  int judge_runs = 5;
  std::vector<int64_t> seeds = default_eval_seeds();
  std::string seeds_text = "1-40";  // how they were chosen, recorded ("1-40", "sampled from seed 7")
  RunOptions engine;                // the sandbox the games run in
  std::string model_name;           // the result table's row name (default: the assistant's model)
  bool progress = true;
  batch::Shard shard;
  std::string merge_config;  // the run's record for `pcglab merge` (JSON)
};

struct EvalReport {
  ResultRow row;
  std::vector<std::string> game_columns;
  std::vector<std::vector<Json>> games;  // one row per test game of this process's shard
  size_t failed = 0;                     // items that failed, in every stage
  size_t judge_errors = 0;               // judge runs whose reply could not be read
};

// SetupError for an unreadable test or dialogues file; each game's failure is its items'. Writes
// DIR/result.{md,csv,json} (format_result_table, one row), DIR/games.{md,csv,json} and
// DIR/run.json (the settings and the seeds) when unsharded.
EvalReport run_eval(const EvalRun& run, const EvalCompleterFactory& completers, ThreadPool& pool);

}  // namespace pcglab::poker
