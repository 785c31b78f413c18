// PCGRLLM's LLM steps for dungeon rewards (issue 16, items 2, 4 and 5): the prompt templates, the
// messages of reward generation, self-alignment and feedback, and the loops around them (code
// extraction, validation, the 3 × (3 + 1) generation/fix trials). The refinement engine
// (refine/engine.h) calls these from the track's steps; `pcglab pcgrl refine` composes them.
//
// Templates: pcglab's own text (src/pcgrl/prompts/, embedded at configure time), laid out as the
// official pcgrllm/prompt/scenario folder with the same file names and Python str.format
// placeholders, so `--prompts DIR` can load that folder verbatim (docs/pcgrl.md lists them).
#pragma once

#include <array>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "llm/chat.h"
#include "llm/completer.h"
#include "pcgrl/llm_reward.h"
#include "refine/engine.h"

namespace pcglab::pcgrl {

// Python's str.format for named fields: {name} is replaced by values[name], {{ and }} are literal
// braces. Throws InputError naming `template_name` and the field when a field has no value, a
// brace is unmatched, or a field has a conversion/format spec pcglab does not support.
std::string python_format(std::string_view text, const std::map<std::string, std::string>& values,
                          std::string_view template_name);

// A scenario preset (1, 2, 3): the story given to the LLM (pcglab's wording) and its important
// enemies as [BAT, SCORPION, SPIDER] (official important_tiles 1: [4], 2: [4,5], 3: [4,5,6]).
struct Scenario {
  int id = 1;
  std::string text;
  std::array<bool, 3> important{};
};
const Scenario& scenario_preset(int id);  // SetupError for another id
// The feedback's {evaluation_criteria}: the story, then what the accuracy checks (pcglab's wording;
// the official passes the Python repr of its Scenario object).
std::string scenario_criteria(const Scenario& scenario);

// The tile list of the prompts: "EMPTY = 1, WALL = 2, PLAYER = 3, ..., DOOR = 8".
std::string tile_enum_text();

// A template set: file name ("system.txt", "pe/cot.txt", ...) → text.
class PromptSet {
 public:
  static PromptSet builtin();
  // Reads every file of the official layout from `dir`; SetupError naming the missing file.
  static PromptSet load(const std::filesystem::path& dir);
  const std::string& file(std::string_view name) const;  // CheckError for a name not in the layout
  const std::string& origin() const { return origin_; }  // "built-in" or the folder

 private:
  std::map<std::string, std::string, std::less<>> files_;
  std::string origin_;
};

// The files of the layout, in a fixed order.
const std::vector<std::string>& prompt_file_names();

// numpy's str() of a 16×16 int map ("[[1 2 ...]\n [ ... ]]"), as the official feedback prints it.
std::string numpy_map_string(const Map& map);

// Text pcglab feeds back into a later prompt — an error and its traceback (fix and alignment
// messages), the LLM's rejected reply (the fix loop's assistant turns), a reward's code, the
// feedback on a node (the next generation) — is capped at kFedBackTextLimit bytes: a longer text
// keeps its first and last bytes (cut at UTF-8 character boundaries) around one line saying how
// many bytes of how many were cut; the result, that line included, is at most `limit` bytes. A
// reward raising a 5 MB message made the fix loop send 10 MB user messages and 30 MB requests.
inline constexpr size_t kFedBackTextLimit = 32 * 1024;
std::string cap_fed_back_text(std::string_view text, size_t limit = kFedBackTextLimit);

// The LLM settings of every call (official: temperature 0, top_p 0.99, max_tokens 4096, seed =
// trial number; feedback seed 42).
struct LlmSettings {
  std::string model;
  double temperature = 0, top_p = 0.99;
  int max_tokens = 4096;
};

// Where each call of a step is recorded (the completer stack's record layer replays finished ones
// on resume): item = "node/0003/generate", calls numbered 0, 1, 2, ... within it.
struct StepCalls {
  std::string item;
  std::function<void(const std::string& line)> log;  // progress lines (may be empty)
  // Called after each HTTP attempt of the step's calls (llm::CallContext::on_attempt): `sent` when
  // the request reached the server (may be billed). May be empty.
  std::function<void(bool sent)> on_attempt;
};

// What a node's evaluation contributes to later prompts (GoT's score line, the feedback).
// Keys of Evaluation.metadata["scores"] written by the evaluate step: "accuracy", "solvability",
// "n_solutions", "reach_important" (all means over the levels).
std::string got_score_line(const OrderedJson& evaluation_metadata);

struct GenerationResult {
  std::string code;                 // validated
  int trials = 0, fixes = 0;        // generation trials and fix attempts used
  std::vector<std::string> errors;  // every rejected code's error, in order
};

// Reward generation for `request` (refine/engine.h): the system and user messages from `prompts`,
// code extracted as the official parser does, `validate` (throws RewardError) on each code; a
// rejected code's error goes back to the LLM in a fix message, 3 generation trials × (3 fixes + 1)
// (codegen_trials, codefix_trials). Throws ItemFailure (kind llm when the LLM failed,
// bad-input when no trial gave a valid code, naming the last error).
struct GenerationSettings {
  int codegen_trials = 3, codefix_trials = 3;
  // ToT's counter in the thought tips: (iteration − 1) / breadth + 1 of (iterations − 1) / breadth + 1.
  // GoT's tips embed the CoT tips, counted as CoT (iteration of iterations), as the official does.
  int breadth = 2;
};

// The opening messages of reward generation (system, user), as generate_reward sends them.
std::vector<llm::ChatMessage> generation_messages(const PromptSet& prompts, const Scenario& scenario,
                                                  const refine::GenerateRequest& request,
                                                  const GenerationSettings& settings);
// The user message sent after a rejected code: the error (and traceback) and a request to fix it.
std::string fix_message(const std::string& error);
// The self-alignment user message (the official sends no system message here).
std::string alignment_message(const PromptSet& prompts, const std::string& code,
                              const std::string& stats_line, const std::string& error_prompt);
// The feedback messages (system, user); with `images`, the user message carries them (data URIs).
std::vector<llm::ChatMessage> feedback_messages(const PromptSet& prompts, const Scenario& scenario,
                                                const std::string& code, const std::vector<Map>& levels,
                                                const std::vector<std::string>& images);
GenerationResult generate_reward(llm::Completer& completer, const LlmSettings& llm, const PromptSet& prompts,
                                 const Scenario& scenario, const refine::GenerateRequest& request,
                                 const GenerationSettings& settings,
                                 const std::function<void(const std::string&)>& validate,
                                 const StepCalls& calls);

// One self-alignment round: the alignment message with `code` and the rollout's stats line; the
// reply's code validated (with the same fix loop). Returns the aligned code; ItemFailure when no
// valid code came back.
GenerationResult align_reward(llm::Completer& completer, const LlmSettings& llm, const PromptSet& prompts,
                              const Scenario& scenario, const std::string& code,
                              const std::string& stats_line, const GenerationSettings& settings,
                              const std::function<void(const std::string&)>& validate,
                              const StepCalls& calls);

// Feedback on the levels a reward's generator made: the levels as numpy-printed arrays (text) or,
// with `images` (PNG bytes, one per level), as images for a vision model. Returns the LLM's text.
std::string level_feedback(llm::Completer& completer, const LlmSettings& llm, const PromptSet& prompts,
                           const Scenario& scenario, const std::string& code, const std::vector<Map>& levels,
                           const std::vector<std::string>& images, const StepCalls& calls);

}  // namespace pcglab::pcgrl
