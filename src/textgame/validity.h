// Technical validity of a text game (BYTESIZED32's check_validity): the contract between the crawl
// (validity.cc) and its users (reflection, eval, the CLI). See docs/textgame.md.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/json.h"
#include "sandbox/config.h"

namespace pcglab::sandbox {
class WorkerPool;
}

namespace pcglab::textgame {

enum class ValidityMode {
  kOfficial,  // the official crawl: the action dictionary taken once after init, stale after step 1
  kFresh,     // the actions regenerated after every step, as the games' own main() does
};

struct ValidityOptions {
  ValidityMode mode = ValidityMode::kOfficial;
  uint64_t seed = 0;          // the game's randomSeed and the per-verb sampling's seed
  int max_steps = 3;          // sequence length
  int max_num_actions = 100;  // per verb at the root; max_num_actions / 10 below
  double timeout_s = 900;     // the whole check (official: 15 minutes)
  // How the crawl runs; neither changes a verdict (docs/textgame.md, "Technical validity"):
  bool replay = false;  // the straightforward crawl (every sequence replayed from init): benchmarks, tests
  int processes = 2;    // fast crawl: processes the root's subtrees are split over (inside the worker)
  int roots = 0;        // > 0: only the first `roots` root subtrees in the official order (benchmarks)
  // Modules importable before the game: (dotted name, source), e.g. data.library.GameBasic.
  std::vector<std::pair<std::string, std::string>> libraries;
};

const char* validity_mode_name(ValidityMode mode);  // "official", "fresh"
// "official" or "fresh"; throws SetupError naming the option otherwise.
ValidityMode parse_validity_mode(const std::string& text);

// The official message of a check that ran past its limit.
extern const char* const kValidityTimeoutMessage;

// One game's verdict; the JSON row of `pcglab textgame validity` (validity_json).
struct ValidityResult {
  std::string game;                    // file name
  std::map<std::string, bool> checks;  // TextGame, getTaskDescription, generatePossibleActions, step,
                                       // calculateScore: false from the first that failed on
  bool runnable = false;
  bool winnable = false;
  int64_t initial_actions = 0;  // size of the first action dictionary
  std::string error;            // empty when runnable
  int64_t sequences = 0;        // action sequences checked
  double seconds = 0;
  // The work the crawl did; unknown (null in JSON) when no crawl reply came back (the worker was
  // killed, the game could not be read) or the store holds an outcome recorded without them.
  std::optional<int64_t> steps;       // step() calls made (the fast crawl makes fewer than the replay)
  std::optional<double> cpu_seconds;  // CPU time of the check, its forked processes included
  bool timed_out = false;             // ran past options.timeout_s (error: kValidityTimeoutMessage)
  std::string failure;                // the sandbox's own failure (killed, memory limit), when it had one
};

// The row of `pcglab textgame validity --format json`: game, checks, runnable, winnable,
// initial_actions, error, sequences, seconds (then steps, cpu_seconds, timed_out; steps and
// cpu_seconds null when unknown).
OrderedJson validity_json(const ValidityResult& result);
ValidityResult validity_from_json(const Json& json);

// A worker configuration that fits the crawl: the call's wall clock above options.timeout_s (the
// crawl stops itself at the limit; the worker is killed only when it cannot), room for the forked
// processes of the fast crawl.
sandbox::WorkerConfig validity_worker_config(const ValidityOptions& options, sandbox::WorkerConfig base = {});

// The crawl's own Python (src/textgame/python/validity.py), embedded at build time.
std::string validity_script();

// Checks `source` (named `filename`, as its tracebacks say) in a sandboxed worker of `pool`.
ValidityResult check_validity(sandbox::WorkerPool& pool, const std::string& filename,
                              const std::string& source, const ValidityOptions& options);

}  // namespace pcglab::textgame
