// BYTESIZED32's generation and reflection (issue 25, item 3): a one-shot prompt (the reference game,
// the task specification, the required TextGame API) whose reply's longest fenced block is the game,
// then up to 3 reflections that send the validity error back, stopping as the official
// scripts/run_code_reflection.py does: when the game is valid, when the revised code is unchanged, or
// when it is less than half as long as the version before. See docs/textgame.md, "Generation and
// reflection".
//
// The validity check is injected (ValidityCheck): the CLI passes textgame::check_validity in a
// sandbox worker pool, tests a scripted one. Files (the official names, under `out`):
//   generated_games/<name>_prompt_out.txt, <name>_generation.txt (the reply), <name>_generation.py
//   revised_games/<name>_generation_v0.py … _v3.py, <name>_generation_reflection.json (per version:
//     the validity verdict or the stop, the reflection's prompt and reply)
//   final_games/<name>_generation_v<k>_final.py (the last version written)
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "llm/completer.h"
#include "sandbox/config.h"
#include "textgame/validity.h"

namespace pcglab::textgame {

// The official extract_python_code: split the reply at every "```", take the odd pieces (the
// insides of fenced blocks), drop a leading "python\n", keep the longest (the first of equal
// length); "" when there is no fenced block.
std::string longest_code_block(std::string_view reply);

// The generation and reflection templates: generation.txt ({{reference_game}},
// {{task_specification}}) and reflection.txt ({{code}}, {{error}}).
class GenerationPrompts {
 public:
  static GenerationPrompts builtin();  // src/textgame/prompts/, embedded
  // Both files from `dir`; SetupError naming a missing file or a template whose placeholders differ.
  static GenerationPrompts load(const std::filesystem::path& dir);
  static const std::vector<std::string>& file_names();  // generation.txt, reflection.txt

  std::string generation(std::string_view task_specification, std::string_view reference_game) const;
  std::string reflection(std::string_view code, std::string_view error) const;
  const std::string& generation_template() const { return generation_; }
  const std::string& reflection_template() const { return reflection_; }
  const std::string& origin() const { return origin_; }  // "built-in" or the folder

 private:
  std::string generation_, reflection_, origin_;
};

// Why a game's reflections ended.
enum class StopReason {
  kValid,       // the version is runnable with no error
  kUnchanged,   // the revised code equals the version before (official "STOP: Code is the same…")
  kShrunk,      // the revised code is under half as long, in characters (official "STOP: … 50% less…")
  kReflections  // the reflections were spent (or none were asked for) with the error still there
};
const char* stop_reason_name(StopReason reason);  // "valid", "unchanged", "shrunk", "reflections"

// The official comparison of a revision with the version before: kUnchanged, kShrunk, or nullopt
// (go on to the validity check). Lengths in Unicode code points, as Python's len(); an empty
// previous version never counts as shrunk (the official divides by zero there).
std::optional<StopReason> compare_revision(std::string_view previous, std::string_view revised);

// The official STOP messages, recorded as the version's error.
inline constexpr const char* kStopUnchanged = "STOP: Code is the same as previous iteration.";
inline constexpr const char* kStopShrunk = "STOP: Code has 50% less lines than previous iteration.";

// Checks one version: `filename` is the version's file name (its tracebacks name it), `source` its
// code. Throws only for what stops every game alike (SetupError) or fails this one (ItemFailure).
using ValidityCheck = std::function<ValidityResult(const std::string& filename, const std::string& source)>;

// textgame::check_validity with `options` in a pool of sandboxed workers (`base`, given the crawl's
// own limits by validity_worker_config) made on the first call, so a run whose games all finished
// starts none; thread-safe.
ValidityCheck sandboxed_validity(const ValidityOptions& options, sandbox::WorkerConfig base = {});

struct GenerationSettings {
  std::string model;
  std::optional<double> temperature, top_p;  // sent when set (the CLI presets the official 0 and 1)
  std::optional<int> max_tokens;
  // Without max_tokens: send the official scripts' budget, official_max_tokens(prompt), on every call.
  bool official_budget = false;
  std::optional<int64_t> seed;
  int reflections = 3;  // at most; 0: generation only, no validity check
};

// pcglab's estimate of a prompt's tokens, where the official scripts count them with tiktoken
// (cl100k_base, not available here): one token per 3 bytes of UTF-8, rounded up. Not a tokenizer:
// English and Python average nearer 4 bytes a token in cl100k (indentation runs more), so this
// usually over-counts the prompt, and the budget below comes out at most a little under the official.
int64_t estimated_tokens(std::string_view text);

// The official budget of a generation or reflection call: min(32000 - prompt tokens, 16000) (context
// 32000, program 16000), here with estimated_tokens(prompt); at least 1.
int official_max_tokens(std::string_view prompt);

// One game to generate: its file prefix and its inputs.
struct GenerationJob {
  std::string name;       // "experiment_action_test_1_p_gpt-4_make-ice-cubes"
  std::string spec;       // the task specification's text
  std::string reference;  // the reference game's code
  // The calls' sample index (CallContext::trial, part of the response cache's key): jobs that send
  // the same prompt (the paper's experiments pair 19 of their 96 spec/reference pairs twice or
  // thrice) are separate samples, as the official script's separate calls, not one cached reply.
  int trial = 0;
};

// One version of a game: v0 is the generation, v1… the reflections.
struct GameVersion {
  int version = 0;
  std::string file;                        // revised_games/<name>_generation_v<k>.py (file name)
  std::optional<ValidityResult> validity;  // absent for a stopped version (and with 0 reflections)
  std::string error;                       // the validity error, or the STOP message
  std::string prompt, response;            // the reflection that made it (empty for v0)
};

struct GenerationResult {
  std::string name;
  std::vector<GameVersion> versions;  // empty with 0 reflections
  StopReason stop = StopReason::kReflections;
  std::string final_file;  // final_games/… (file name); empty with 0 reflections
  bool valid = false;      // the final version is runnable with no error
  int64_t requests = 0;    // requests this run sent to the server (cached and replayed calls: 0)
};

// The files a job may write under `out` (the batch item's outputs).
std::vector<std::filesystem::path> generation_outputs(const std::filesystem::path& out,
                                                      const std::string& name, int reflections);

// Generates `job` and reflects on it. The LLM calls are numbered 0 (generation), 1, 2, 3
// (reflections) in CallContext `item` (the batch item's key), so a rerun replays them from the
// exchange record or the cache. A reply with no fenced block: ItemFailure(kNoOutput) after the
// prompt and the reply are written; an LLM call that failed: ItemFailure(kLlm). `result` is filled
// as the game goes, so a failed game's requests are known.
void generate_game(llm::Completer& completer, const ValidityCheck& validity, const GenerationPrompts& prompts,
                   const GenerationSettings& settings, const GenerationJob& job,
                   const std::filesystem::path& out, const std::string& item, GenerationResult& result);

// The JSON of a result (the reflection record and the item's metadata).
OrderedJson generation_json(const GenerationResult& result);
OrderedJson validity_result_json(const ValidityResult& v);

}  // namespace pcglab::textgame
