#include "birds/generator_select.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "birds/diversity.h"
#include "core/check.h"

namespace pcglab::birds {
namespace {

// Number of sets of k out of n, as a double (saturates far above any limit).
double combinations(size_t n, size_t k) {
  if (k > n) return 0;
  double c = 1;
  for (size_t i = 0; i < k; ++i) c = c * static_cast<double>(n - i) / static_cast<double>(i + 1);
  return c;
}

}  // namespace

double SetScore::key() const {
  return feasible ? objective : -1.0 - deficit;
}

TrialSelector::TrialSelector(std::vector<std::vector<double>> probabilities, std::vector<double> stability,
                             int target, SelectionOptions options)
    : options_(options) {
  PCGLAB_CHECK(probabilities.size() == stability.size())
      << probabilities.size() << " vectors, " << stability.size() << " stabilities";
  PCGLAB_CHECK(options_.trials >= 1) << "trials " << options_.trials;
  const size_t n = probabilities.size();
  distance_.assign(n * n, 0.0);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + 1; j < n; ++j)
      distance_[i * n + j] = distance_[j * n + i] = cosine_distance(probabilities[i], probabilities[j]);
  for (size_t i = 0; i < n; ++i) {
    PCGLAB_CHECK(target >= 0 && static_cast<size_t>(target) < probabilities[i].size()) << "target " << target;
    similarity_.push_back(probabilities[i][static_cast<size_t>(target)]);
    quality_.push_back(stability[i] * similarity_.back());
  }
  std::vector<double> best = similarity_;
  const size_t k = std::min(best.size(), static_cast<size_t>(options_.trials));
  std::partial_sort(best.begin(), best.begin() + static_cast<std::ptrdiff_t>(k), best.end(),
                    std::greater<>());
  for (size_t i = 0; i < k; ++i) best_mean_ += best[i] / static_cast<double>(k);
  set_similarity_floor(options_.min_similarity);
}

SetScore TrialSelector::score_of_sums(double pair_sum, double similarity_sum, double quality_sum,
                                      size_t size) const {
  SetScore s;
  const double n = options_.configured_trials;
  const double denominator = n * (n + 1) / 2 - n;
  s.diversity = denominator > 0 ? pair_sum / denominator : 0;
  if (size > 0) {
    s.mean_similarity = similarity_sum / static_cast<double>(size);
    s.mean_quality = quality_sum / static_cast<double>(size);
  }
  s.objective = s.diversity * s.mean_quality;
  s.deficit = std::max(0.0, floor_ - s.mean_similarity);
  s.feasible = s.deficit <= 0;
  return s;
}

SetScore TrialSelector::score(const std::vector<size_t>& set) const {
  const size_t n = pool_size();
  double pairs = 0, sim = 0, quality = 0;
  for (size_t a = 0; a < set.size(); ++a) {
    PCGLAB_CHECK(set[a] < n) << "candidate " << set[a] << " of " << n;
    sim += similarity_[set[a]];
    quality += quality_[set[a]];
    for (size_t b = a + 1; b < set.size(); ++b) pairs += distance_[set[a] * n + set[b]];
  }
  return score_of_sums(pairs, sim, quality, set.size());
}

void TrialSelector::set_similarity_floor(double floor) {
  floor_ = best_mean_ >= floor ? floor : options_.relaxed_share * best_mean_;
}

Selection TrialSelector::select() const {
  if (options_.min_diversity <= 0 || options_.similarity_step <= 0) return select_once();
  Selection best;
  size_t evaluated = 0;
  for (int step = 0;; ++step) {
    const double floor = std::max(0.0, options_.min_similarity - step * options_.similarity_step);
    TrialSelector lowered = *this;
    lowered.set_similarity_floor(floor);
    Selection s = lowered.select_once();
    evaluated += s.sets_evaluated;
    const bool enough = s.score.diversity >= options_.min_diversity;
    if (step == 0 || enough || s.score.objective > best.score.objective) best = std::move(s);
    if (enough || floor <= 0) break;
  }
  best.sets_evaluated = evaluated;
  return best;
}

Selection TrialSelector::select_once() const {
  const size_t n = pool_size(), k = static_cast<size_t>(options_.trials);
  if (n == 0) return {};
  if (n <= k) {  // every candidate, then the best one again
    Selection s;
    for (size_t i = 0; i < n; ++i) s.chosen.push_back(i);
    const size_t best =
        static_cast<size_t>(std::max_element(quality_.begin(), quality_.end()) - quality_.begin());
    while (s.chosen.size() < k) s.chosen.push_back(best);
    std::sort(s.chosen.begin(), s.chosen.end());
    s.score = score(s.chosen);
    s.similarity_floor = floor_;
    s.sets_evaluated = 1;
    return s;
  }
  return combinations(n, k) <= options_.exhaustive_limit ? exhaustive() : local_search();
}

Selection TrialSelector::exhaustive() const {
  return brute_force_selection(*this, options_.trials);
}

Selection TrialSelector::local_search() const {
  const size_t n = pool_size(), k = static_cast<size_t>(options_.trials);
  Selection best;
  double best_key = -1e300;
  std::vector<double> row(n);  // Σ over the set of distance(c, member), for every c
  std::vector<char> in(n);
  for (size_t start = 0; start < n; ++start) {
    std::vector<size_t> set{start};
    std::fill(in.begin(), in.end(), 0);
    in[start] = 1;
    for (size_t c = 0; c < n; ++c) row[c] = distance_[c * n + start];
    double pairs = 0, sim = similarity_[start], quality = quality_[start];
    // Greedy: add the candidate that gives the best set.
    while (set.size() < k) {
      size_t add = n;
      double add_key = -1e300;
      for (size_t c = 0; c < n; ++c) {
        if (in[c]) continue;
        const double key =
            score_of_sums(pairs + row[c], sim + similarity_[c], quality + quality_[c], set.size() + 1).key();
        ++best.sets_evaluated;
        if (key > add_key) add_key = key, add = c;
      }
      set.push_back(add);
      in[add] = 1;
      pairs += row[add], sim += similarity_[add], quality += quality_[add];
      for (size_t c = 0; c < n; ++c) row[c] += distance_[c * n + add];
    }
    // Best-improvement swaps until none improves.
    double current = score_of_sums(pairs, sim, quality, k).key();
    for (;;) {
      size_t out_pos = k, swap_in = n;
      double swap_key = current;
      for (size_t pos = 0; pos < k; ++pos) {
        const size_t a = set[pos];
        for (size_t c = 0; c < n; ++c) {
          if (in[c]) continue;
          const double key =
              score_of_sums(pairs - row[a] + row[c] - distance_[c * n + a],
                            sim - similarity_[a] + similarity_[c], quality - quality_[a] + quality_[c], k)
                  .key();
          ++best.sets_evaluated;
          if (key > swap_key + 1e-15) swap_key = key, out_pos = pos, swap_in = c;
        }
      }
      if (out_pos == k) break;
      const size_t a = set[out_pos];
      pairs += row[swap_in] - row[a] - distance_[swap_in * n + a];
      sim += similarity_[swap_in] - similarity_[a];
      quality += quality_[swap_in] - quality_[a];
      for (size_t c = 0; c < n; ++c) row[c] += distance_[c * n + swap_in] - distance_[c * n + a];
      in[a] = 0, in[swap_in] = 1;
      set[out_pos] = swap_in;
      current = swap_key;
    }
    if (current > best_key + 1e-15) {
      best_key = current;
      best.chosen = set;
    }
  }
  std::sort(best.chosen.begin(), best.chosen.end());
  best.score = score(best.chosen);
  best.similarity_floor = floor_;
  return best;
}

Selection brute_force_selection(const TrialSelector& selector, int trials) {
  const size_t n = selector.pool_size(), k = static_cast<size_t>(trials);
  Selection best;
  if (k == 0 || k > n) return best;
  std::vector<size_t> set(k);
  for (size_t i = 0; i < k; ++i) set[i] = i;
  double best_key = -1e300;
  for (;;) {
    const SetScore s = selector.score(set);
    ++best.sets_evaluated;
    if (s.key() > best_key) best_key = s.key(), best.chosen = set, best.score = s;
    // Next combination in lexicographic order.
    size_t i = k;
    while (i > 0 && set[i - 1] == n - k + i - 1) --i;
    if (i == 0) break;
    ++set[i - 1];
    for (size_t j = i; j < k; ++j) set[j] = set[j - 1] + 1;
  }
  return best;
}

}  // namespace pcglab::birds
