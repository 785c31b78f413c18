// Technical validity of a text game (BYTESIZED32's check_validity): the contract between the crawl
// (validity.cc) and its users (reflection, eval, the CLI). See docs/textgame.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>

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
};

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
};

// Checks `source` (named `filename`, as its tracebacks say) in a sandboxed worker of `pool`.
ValidityResult check_validity(sandbox::WorkerPool& pool, const std::string& filename, const std::string& source,
                              const ValidityOptions& options);

}  // namespace pcglab::textgame
