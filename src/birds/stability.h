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

namespace pcglab::birds {

struct StabilityConfig {
  double duration = 10.0;            // game seconds (BatchStabilityTest.unity: duration 10)
  double step = 0.02;                // Unity fixed timestep
  int velocity_iterations = 100;     // Physics2DSettings
  int position_iterations = 100;
  double movement_threshold = 0.1;   // the scene overrides the code default of 3
  int trials = 3;                    // official best-of-3; deterministic here, so one run decides
  bool early_stop = true;            // stop once every body sleeps (cannot change the result)
  bool damage = true;                // life minus impact speed; destroyed at life <= 0
  double destroy_delay = 0.5;        // collider off at death, object removed 0.5 s later
  double world_half_width = 26.25;   // objects beyond |x| are removed (LevelWidth / 2)
  // Game seconds simulated before start positions are recorded. The evaluator records them a few
  // frames after loading the scene at time scale 10, so physics has already run; see docs/birds.md.
  double settle_time = 0.0;
};

struct ObjectOutcome {
  std::string kind;  // "block", "pig", "tnt"
  int index = 0;     // in the level's list of that kind
  double start_x = 0, start_y = 0;
  double end_x = 0, end_y = 0, end_rotation = 0;
  bool destroyed = false;
  bool moved = false;
};

struct StabilityResult {
  float score = 0;  // as the evaluator computes it in single precision: 1f - (float)moving / total
  int starting_objects = 0;
  int moving_objects = 0;
  int steps = 0;             // physics steps simulated
  bool stopped_early = false;
  Level final_level;         // the level after the simulation (destroyed objects removed)
  std::vector<ObjectOutcome> objects;
};

// Simulates `level`. Deterministic: the same level gives the same result, bit for bit, on any
// thread. Throws SetupError for an unknown block type.
StabilityResult evaluate_stability(const Level& level, const StabilityConfig& config = {});

}  // namespace pcglab::birds
