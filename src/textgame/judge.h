// LLM-judged metrics of a text game (docs/textgame.md, "Judged metrics"): specification compliance
// (yes/no questions, a majority of votes each), physical-reality alignment (yes/no per crawled path)
// and winnability (a ReAct-style agent plays the game).
//
// Every call goes through the caller's completer (llm/completer.h: the usual stack, so a rerun
// answers finished calls from the response cache), and every judgement (the request, the reply,
// the parsed verdict) is kept in the metric's result, which the batch writes to the output folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "batch/shard.h"
#include "core/json.h"
#include "core/thread_pool.h"
#include "llm/completer.h"
#include "sandbox/worker.h"
#include "textgame/host.h"

namespace pcglab::textgame {

// A BYTESIZED32 task specification: the `# Key: value` comment lines (data/test_prompts/test_N.py).
struct TaskSpec {
  std::string text;                             // the whole file, as the prompts quote it
  std::string task;                             // "# Task:" or "# Task Description:"
  std::vector<std::string> objects;             // "# Task-critical Objects:"
  std::vector<std::string> actions;             // "# Actions:"
  std::vector<std::string> distractor_items;    // "# Distractor Items:" ("None": empty)
  std::vector<std::string> distractor_actions;  // "# Distractor Actions:"
};

// Throws InputError naming `source` when the text has no task line.
TaskSpec parse_task_spec(const std::string& text, const std::string& source);

// One yes/no question about the code: its category (object, action, distractor) and requirement.
struct ComplianceQuestion {
  std::string category;
  std::string requirement;  // the object or action; empty for the distractor question
  std::string question;
};

// One question per task-critical object and per action, and the distractor question when the spec
// names distractor items or actions.
std::vector<ComplianceQuestion> compliance_questions(const TaskSpec& spec);

// The official's one question for a generated game (bytes32/compliance.py): the experiment and the
// test from the file name (split on '_': [1] object, action or distractor, [3] the test number 1-16,
// [4] p or n, e.g. "gpt-4_action_test_3_p_generation.py"), the requirement from the evaluation
// form's row test_N (data/test_eval.csv: test,object,action,distractor). InputError naming the game
// or the form.
struct OfficialQuestion {
  int test = 0;
  ComplianceQuestion question;
};
OfficialQuestion official_compliance_question(const std::string& game_file_name, const std::string& form_csv,
                                              const std::string& form_source);

// The official reading of a reply: it counts as yes when it starts with "yes" (any case, nothing
// stripped); pcglab also tells "no" from a reply that starts with neither (which counts as not yes).
enum class Verdict { kYes, kNo, kOther };
Verdict parse_verdict(std::string_view reply);
const char* verdict_name(Verdict verdict);  // "yes", "no", "other"

struct VoteCount {
  int votes = 0, yes = 0, no = 0, other = 0;
  double yes_share = 0;  // yes / votes
  bool passed = false;   // yes_share > 0.5 (a tie does not pass)
};
VoteCount count_votes(const std::vector<std::string>& replies);

// The prompt templates (src/textgame/prompts/judge/, embedded at build time), or a folder's files of
// the same names (compliance.txt, alignment.txt, winnability.txt).
struct JudgePrompts {
  std::string compliance, alignment, winnability;
  std::string source = "built-in";

  static JudgePrompts builtin();
  // SetupError naming the file when one is missing or lacks a placeholder the judge fills.
  static JudgePrompts from_dir(const std::filesystem::path& dir);
};

struct JudgeSettings {
  std::string model;
  double temperature = 0.0;  // the official forces 0.0 for every judge call
  std::optional<int> max_tokens;
  std::optional<int64_t> seed;
  int votes = 31;  // compliance: votes per question
  // Compliance: ask for the votes in one request with n = votes first (the official's one call);
  // a reply of fewer choices, or an error, falls back to one call per vote. false: one call per vote.
  bool try_n = true;
  // Alignment: crawl depth (paths of up to depth + 1 actions), the per-verb cap (count > cap is
  // skipped), the shuffle seed, paths judged, the sampling seed (the official's is unseeded).
  int alignment_depth = 2;
  int alignment_cap = 10;
  int64_t shuffle_seed = 0;
  int alignment_samples = 100;
  int64_t sample_seed = 0;
  int64_t max_paths = 25000;
  // Winnability: the environment's step limit (turns: twice it), the game's seed, and whether the
  // actions are regenerated after each step (false: the official, which never does).
  int env_steps = 30;
  int64_t game_seed = 20230614;
  bool regenerate_actions = false;
};

// What one metric of one game found: `result` (its numbers) and `judgements` (every call: request,
// reply, verdict), and the requests sent to the server.
struct MetricResult {
  OrderedJson result = OrderedJson::object();
  OrderedJson judgements = OrderedJson::array();
  int requests = 0;
};

// Compliance: each question asked `settings.votes` times, passed by majority: one request with
// n = votes when the server answers it with that many choices, else (fewer choices, or an error) one
// call per vote (CallContext::trial = the vote; a reply of one choice to the n request is vote 0). result:
// {"questions": [...], "object"/"action"/"distractor": share of that category's questions passed (null when
// it has none), "passed", "total"}. An LLM failure throws ItemFailure(kLlm).
MetricResult judge_compliance(llm::Completer& completer, const JudgeSettings& settings,
                              const JudgePrompts& prompts, const TaskSpec& spec, const std::string& code,
                              const std::string& item);
// The same with the questions given (the official's one question: official_compliance_question).
MetricResult judge_compliance(llm::Completer& completer, const JudgeSettings& settings,
                              const JudgePrompts& prompts, const TaskSpec& spec,
                              const std::vector<ComplianceQuestion>& questions, const std::string& code,
                              const std::string& item);

// Winnability: the agent plays a live game of `settings.game_seed`. result: {"game_won", "game_over",
// "env_steps", "turns", "ended" ("done", "bug", "game over", "step limit", "turn limit")}. A game
// failure throws GameError.
MetricResult judge_winnability(llm::Completer& completer, const JudgeSettings& settings,
                               const JudgePrompts& prompts, GameSession& session, const std::string& item);

// Alignment's crawl (the official Pathcrawler's order): a path per prefix, up to depth + 1 actions,
// the candidate actions always the initial state's, shuffled at each node with one generator seeded
// by `shuffle_seed`, a verb's actions past the cap skipped, no expansion after game over.
struct CrawledPath {
  std::vector<std::string> actions;
  std::vector<std::string> observations;  // one per action
};
std::vector<CrawledPath> crawl_paths(GameSession& session, const JudgeSettings& settings);

// `samples` paths spread evenly over the last action's verb (verbs in order of first appearance,
// each verb's paths in crawl order, round robin), topped up at random (seeded) when the verbs run
// out; all paths when there are no more. Deterministic for a seed.
std::vector<size_t> sample_paths_by_verb(const std::vector<CrawledPath>& paths, int samples, int64_t seed);

// Alignment: crawl, sample, one yes/no judgement per path at the settings' temperature; result:
// {"paths", "judged", "yes", "score" (yes / judged)}.
MetricResult judge_alignment(llm::Completer& completer, const JudgeSettings& settings,
                             const JudgePrompts& prompts, GameSession& session, const std::string& item);

// The batch: each game × metric an item of the batch driver under `out` (resumable; the calls are
// answered by the caller's completer, whose cache makes a rerun free), each item's judgements in
// out/judgements/<game>/<metric>.json, and the table in out/results.{md,csv,json}.
struct JudgeRun {
  std::vector<std::filesystem::path> games;
  std::filesystem::path spec;  // a spec file, or with eval_form a folder of test_N.py too
  // The official's evaluation form (test_eval.csv): compliance asks each game the official's one
  // question (official_compliance_question). Empty: every question of the spec.
  std::filesystem::path eval_form;
  std::filesystem::path corpus;
  std::vector<std::string> metrics = {"compliance", "alignment", "winnability"};
  std::filesystem::path out;
  JudgeSettings settings;
  JudgePrompts prompts = JudgePrompts::builtin();
  sandbox::WorkerConfig worker = host_worker_config();
  bool progress = true;
  batch::Shard shard;        // the items this process runs (default: all); results.* only when all
  std::string merge_config;  // the run's record for `pcglab merge` (JSON; empty: the settings alone)
};

struct JudgeReport {
  std::vector<std::string> columns;
  std::vector<std::vector<Json>> rows;  // one per game
  size_t failed = 0;                    // items that failed
};

// SetupError for an unknown metric, an unreadable spec or game list; a game's failure is its item's.
JudgeReport run_judge(const JudgeRun& run, llm::Completer& completer, ThreadPool& pool);

// The completer of the run's calls, asked for by each item that runs (from any thread: it must be
// thread-safe), with the run store of this process (batch::Driver::store_path: the shard's when
// sharded), where an exchange record (llm/exchange_record.h) belongs: a run killed mid-item then
// replays every answered call, cache or no cache. Not called when every item is reused.
using JudgeCompleterFactory = std::function<llm::Completer&(const std::filesystem::path& store)>;
JudgeReport run_judge(const JudgeRun& run, const JudgeCompleterFactory& completer, ThreadPool& pool);

const std::vector<std::string>& judge_metric_names();

}  // namespace pcglab::textgame
