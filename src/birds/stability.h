// The ChatGPT4PCG stability evaluator, headless on Box2D 2.4.1 (Unity's 2D physics engine).
//
// As the official evaluator measures it: record each block's (and pig's and TNT's) start position,
// simulate 10 s at a fixed step of 0.02 s, count an object as moving if it ends at least 0.1 from
// where it started (a destroyed object keeps its last position), score = 1 - moving/total.
// Unity-to-Box2D mapping and what differs: docs/birds.md, "Evaluator".
#pragma once

#include <string>
#include <vector>

#include "birds/level.h"
#include "core/error_kind.h"
#include "core/result.h"

namespace pcglab::birds {

// What the score counts. The evaluator changed on 2023-03-23 (modified-science-birds 84df32e):
// before it (e86cfbe, cd8486e) the score was the share of objects that still exist after 10 s;
// since then it is the share that did not move. The sample `!stability.json` in that repository
// (shared/data/science-birds-levels/stability.json) was written by the earlier version.
enum class StabilityMetric {
  kMoving,     // 1 - moving/total: BaseStabilityEvaluator since 84df32e (the competition's)
  kRemaining,  // remaining/total: BaseStabilityEvaluator at cd8486e
};

struct StabilityConfig {
  StabilityMetric metric = StabilityMetric::kMoving;
  double duration = 10.0;         // game seconds (BatchStabilityTest.unity: duration 10)
  double step = 0.02;             // Unity fixed timestep
  int velocity_iterations = 100;  // Physics2DSettings
  int position_iterations = 100;
  double movement_threshold = 0.1;  // the scene overrides the code default of 3
  // No trials: the evaluator keeps the best of 3 Unity runs, which vary; this simulation is
  // deterministic, so one run stands for all three (docs/birds.md, "Trials").
  bool early_stop = true;           // stop once every body sleeps (cannot change the result)
  bool damage = true;               // life minus impact speed; destroyed at life <= 0
  double destroy_delay = 0.5;       // collider off at death, object removed 0.5 s later
  double world_half_width = 26.25;  // objects beyond |x| are removed (LevelWidth / 2)
  // Game seconds simulated before start positions are recorded. The evaluator records them a few
  // frames after loading the scene at time scale 10, so physics has already run; see docs/birds.md.
  double settle_time = 0.0;
};

struct ObjectOutcome {
  std::string kind;  // "block", "pig", "tnt"
  int index = 0;     // in the level's list of that kind
  std::string type;  // block or pig type ("RectSmall", "BasicSmall"), "TNT"
  double start_x = 0, start_y = 0;
  double end_x = 0, end_y = 0, end_rotation = 0;
  bool destroyed = false;      // life reached 0 or it left the world (it keeps its last position)
  double destroyed_time = -1;  // game seconds after the start positions were recorded; -1: never
  bool removed = false;        // gone from the world by the end (destroyed 0.5 s earlier)
  bool moved = false;          // |end - start| >= the movement threshold
};

struct StabilityResult {
  // As the evaluator stores it: the float nearest to 1 - moving/total (Unity's Mono computes the
  // C# float expression in double precision), or with StabilityMetric::kRemaining remaining/total.
  float score = 0;
  int starting_objects = 0;
  int moving_objects = 0;
  int remaining_objects = 0;  // not removed by the end (what the cd8486e metric counts)
  int steps = 0;              // physics steps simulated
  bool stopped_early = false;
  Level final_level;  // the level after the simulation (destroyed objects removed)
  std::vector<ObjectOutcome> objects;
};

// Checks that `level` can be simulated: throws ItemFailure (kind bad-input, core/error_kind.h)
// naming the object for an unknown block or pig type and for positions, angles or platform scales
// Box2D cannot take (|x|, |y| > 1e6, not finite, |scale| outside 1e-3..1e6): the level's item
// failure. A level read from a file may break these: check it first.
void check_simulable(const Level& level);

// Simulates `level`, which check_simulable accepts (otherwise: CheckError, a bug in the caller).
// Deterministic: the same level gives the same result, bit for bit, on any thread.
StabilityResult evaluate_stability(const Level& level, const StabilityConfig& config = {});

}  // namespace pcglab::birds
