// The joint choice of a letter's trials: `trials` of a pool of candidates, chosen together to
// maximise the official 2024 character score as far as the generator can see it. The official
// character score is div × Σ_i w·sta_i·sim_i / T, with w a per-character weight that depends on
// the whole field (docs/birds.md "Scoring and ranking"), so the generator maximises
//   D(S) · mean_{i∈S} sta_i · sim_i
// with D the official diversity (the sum of the cosine distances between the trials' 26-way
// softmax vectors over every pair, divided by n(n+1)/2 − n, n the configured trials) and sim_i the
// letter's probability in trial i's vector, under one constraint: the set's mean similarity is at
// least `min_similarity` (a set below it ranks after every set that meets it, nearest first).
#pragma once

#include <cstddef>
#include <vector>

namespace pcglab::birds {

struct SelectionOptions {
  int trials = 10;             // how many to choose (a pool smaller than this repeats candidates)
  int configured_trials = 10;  // the n of the official diversity's divisor
  // The set's mean similarity must reach this (0: no constraint). When no set can (the pool's
  // best `trials` similarities average below it), the floor is `relaxed_share` of that best mean.
  double min_similarity = 0;
  double relaxed_share = 0.95;
  // When the best set at the floor above has a diversity below `min_diversity`, the floor is
  // lowered by `similarity_step` until one reaches it (then that set is chosen) or the floor is 0
  // (then the set of highest objective among those tried). 0: one floor only.
  double min_diversity = 0;
  double similarity_step = 0.05;
  // Pools with at most this many sets of `trials` are searched exhaustively; larger ones by
  // greedy construction from every candidate followed by best-improvement swaps.
  double exhaustive_limit = 20000;
};

struct SetScore {
  double diversity = 0;        // the official formula
  double mean_similarity = 0;  // mean of sim_i
  double mean_quality = 0;     // mean of sta_i · sim_i
  double objective = 0;        // diversity · mean_quality
  double deficit = 0;          // max(0, min_similarity − mean_similarity)
  bool feasible = true;        // deficit is 0
  // The order the search uses: feasible sets by objective, then infeasible ones by their deficit.
  double key() const;
};

struct Selection {
  std::vector<size_t> chosen;  // indices into the pool, ascending
  SetScore score;
  double similarity_floor = 0;  // the floor in force for the chosen set
  size_t sets_evaluated = 0;    // sets (or single swaps) whose score was computed
};

// `probabilities[i]`: candidate i's softmax vector (every vector the same length); `stability[i]`
// in [0, 1]; `target`: the letter's index in the vectors.
class TrialSelector {
 public:
  TrialSelector(std::vector<std::vector<double>> probabilities, std::vector<double> stability, int target,
                SelectionOptions options);
  SetScore score(const std::vector<size_t>& set) const;
  Selection select() const;
  // The floor in force is `floor`, or relaxed_share × the best mean when no set reaches `floor`.
  void set_similarity_floor(double floor);
  size_t pool_size() const { return similarity_.size(); }
  double similarity_floor() const { return floor_; }

 private:
  SetScore score_of_sums(double pair_sum, double similarity_sum, double quality_sum, size_t size) const;
  Selection select_once() const;
  Selection exhaustive() const;
  Selection local_search() const;
  std::vector<double> distance_;  // pool × pool cosine distances
  std::vector<double> similarity_, quality_;
  SelectionOptions options_;
  double floor_ = 0;      // the similarity floor in force (min_similarity, or relaxed)
  double best_mean_ = 0;  // the mean of the pool's best `trials` similarities
};

// Every set of `trials` out of the pool, scored: the reference the tests compare select() with.
Selection brute_force_selection(const TrialSelector& selector, int trials);

}  // namespace pcglab::birds
