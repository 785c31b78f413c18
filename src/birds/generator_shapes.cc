#include "birds/generator_shapes.h"

#include <algorithm>

#include "core/check.h"

namespace pcglab::birds {
namespace {

// A post under cell (r, c): the empty cells below it filled down to the structure or the ground.
void post_under(Mask& mask, int r, int c) {
  for (int y = r - 1; y >= 0 && !mask[y][c]; --y) mask[y][c] = true;
}

// A row's plan so far, from some column to the row's end: compared by cells of the mask built,
// then (stepped) fewest necks — a one-cell block under a leaning stroke, whose next step would rest
// on that one cell —, fewest cells added, fewest cantilevers, fewest blocks.
struct RowScore {
  int built = 0, necks = 0, added = 0, cantilevers = 0, blocks = 0;
  bool operator<(const RowScore& o) const {
    if (built != o.built) return built < o.built;
    if (necks != o.necks) return necks > o.necks;
    if (added != o.added) return added > o.added;
    if (cantilevers != o.cantilevers) return cantilevers > o.cantilevers;
    return blocks > o.blocks;
  }
};

// The plan's state: the first free row of every column, with the columns one outside the mask on
// each side (where the grid has room) that the stepped rule may fill. Rows are planned bottom-up;
// each row's blocks are the best tiling of that row (RowScore) given the rows below.
class DropPlanner {
 public:
  DropPlanner(const Mask& mask, const PlanRules& rules) : mask_(mask), rules_(rules) {
    rows_ = static_cast<int>(mask.size());
    cols_ = rows_ ? static_cast<int>(mask[0].size()) : 0;
    PCGLAB_CHECK(cols_ <= kGridWidth && rows_ <= kGridHeight) << "mask larger than the drop grid";
    offset_ = (kGridWidth - cols_) / 2;
    lo_ = rules.stepped ? std::max(-offset_, -1) : 0;
    hi_ = rules.stepped ? std::min(cols_ + 1, kGridWidth - offset_) : cols_;
    top_.assign(static_cast<size_t>(hi_ - lo_), 0);
    count_.wanted = cells(mask);
  }

  std::vector<std::pair<DropBlock, int>> plan() {
    for (int r = 0; r < rows_; ++r) plan_row(r);
    return std::move(drops_);
  }
  const PlanCount& count() const { return count_; }

 private:
  enum class Move { kSkip, kSmall, kB31 };

  bool in_mask(int r, int c) const { return c >= 0 && c < cols_ && r < rows_ && mask_[r][c]; }
  bool in_grid(int c) const { return c >= lo_ && c < hi_; }
  int& top(int c) { return top_[static_cast<size_t>(c - lo_)]; }
  bool want(int r, int c) { return in_mask(r, c) && top(c) <= r; }
  bool supported(int r, int c) { return in_grid(c) && top(c) == r; }
  // The stem above (r, c): mask cells r+1, r+2, ... of column c, one after the other.
  int stem_above(int r, int c) const {
    int n = 0;
    while (in_mask(r + 1 + n, c)) ++n;
    return n;
  }
  // The mask goes on diagonally above column c: its cell (r + 1, c) is wanted, (r, c) is not.
  bool leans_over(int r, int c) const { return in_mask(r + 1, c) && !in_mask(r, c); }
  bool counterweighted_end(int r, int c) {
    return supported(r, c) && stem_above(r, c) >= kCounterweightCells;
  }

  // Whether a b31 over c..c+2 lands on row r and stands there (0: no, 1: yes, 2: as a
  // counterweighted cantilever).
  int b31_stands(int r, int c) {
    if (!in_grid(c) || !in_grid(c + 2) || std::max({top(c), top(c + 1), top(c + 2)}) != r) return 0;
    if (!rules_.stepped && !(want(r, c) && want(r, c + 1) && want(r, c + 2))) return 0;
    if (supported(r, c + 1) || (supported(r, c) && supported(r, c + 2))) return 1;
    if (rules_.counterweighted && (counterweighted_end(r, c) || counterweighted_end(r, c + 2))) return 2;
    return 0;
  }

  void plan_row(int r) {
    const int n = hi_ - lo_;
    std::vector<RowScore> best(static_cast<size_t>(n) + 3);
    std::vector<Move> move(static_cast<size_t>(n) + 1, Move::kSkip);
    for (int i = n - 1; i >= 0; --i) {
      const int c = lo_ + i;
      const auto at = static_cast<size_t>(i);
      best[at] = best[at + 1];  // skip (a wanted cell left here is lost)
      move[at] = Move::kSkip;
      if (want(r, c) && supported(r, c)) {
        RowScore s = best[at + 1];
        ++s.built, ++s.blocks;
        s.necks += rules_.stepped && (leans_over(r, c - 1) || leans_over(r, c + 1)) ? 1 : 0;
        if (best[at] < s) best[at] = s, move[at] = Move::kSmall;
      }
      if (i + 2 < n) {
        const int stands = b31_stands(r, c);
        if (stands == 0) continue;
        RowScore s = best[at + 3];
        for (int k = 0; k < 3; ++k) want(r, c + k) ? ++s.built : ++s.added;
        s.cantilevers += stands == 2 ? 1 : 0;
        ++s.blocks;
        if (best[at] < s) best[at] = s, move[at] = Move::kB31;
      }
    }
    for (int i = 0; i < n;) {
      const int c = lo_ + i;
      switch (move[static_cast<size_t>(i)]) {
        case Move::kSkip:
          if (want(r, c)) ++count_.dropped;
          ++i;
          break;
        case Move::kSmall:
          drop_small(r, c);
          ++i;
          break;
        case Move::kB31:
          drop_b31(r, c + 1);
          i += 3;
          break;
      }
    }
  }

  void drop_b31(int r, int centre) {
    drops_.emplace_back(DropBlock::kB31, offset_ + centre);
    for (int c = centre - 1; c <= centre + 1; ++c) {
      if (!in_mask(r, c)) ++count_.added;
      top(c) = r + 1;
    }
  }

  // A b11, or a b13 when the column goes on for two more rows with nothing beside them (a b31
  // there would need this column's top at that row).
  void drop_small(int r, int c) {
    auto alone = [&](int y) { return in_mask(y, c) && !in_mask(y, c - 1) && !in_mask(y, c + 1); };
    const bool column = r + 2 < rows_ && alone(r + 1) && alone(r + 2);
    drops_.emplace_back(column ? DropBlock::kB13 : DropBlock::kB11, offset_ + c);
    top(c) = r + (column ? 3 : 1);
  }

  const Mask& mask_;
  PlanRules rules_;
  int rows_ = 0, cols_ = 0, offset_ = 0, lo_ = 0, hi_ = 0;
  std::vector<int> top_;  // first free row per column lo_..hi_-1
  std::vector<std::pair<DropBlock, int>> drops_;
  PlanCount count_;
};

}  // namespace

std::vector<std::pair<DropBlock, int>> plan_drops(const Mask& mask, int* dropped, const PlanRules& rules,
                                                  PlanCount* count) {
  DropPlanner planner(mask, rules);
  auto drops = planner.plan();
  if (dropped != nullptr) *dropped = planner.count().dropped;
  if (count != nullptr) *count = planner.count();
  return drops;
}

Mask fill_under_overhangs(Mask mask) {
  // A cell with empty cells below it gets a column down to the next filled cell (or the ground),
  // unless it can be bridged: both horizontal neighbours are filled (a b31 can span one gap).
  const int rows = static_cast<int>(mask.size()), cols = rows ? static_cast<int>(mask[0].size()) : 0;
  for (int r = 1; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (!mask[r][c] || mask[r - 1][c]) continue;
      const bool bridged = c > 0 && c + 1 < cols && mask[r][c - 1] && mask[r][c + 1] && mask[r - 1][c - 1] &&
                           mask[r - 1][c + 1];
      if (bridged) continue;
      post_under(mask, r, c);
    }
  return mask;
}

Mask prop_overhangs(Mask mask) {
  const int rows = static_cast<int>(mask.size()), cols = rows ? static_cast<int>(mask[0].size()) : 0;
  for (int r = 1; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (!mask[r][c] || mask[r - 1][c]) continue;
      int end = c;  // the run of hanging cells c..end
      while (end + 1 < cols && mask[r][end + 1] && !mask[r - 1][end + 1]) ++end;
      const bool held_left = c > 0 && mask[r][c - 1], held_right = end + 1 < cols && mask[r][end + 1];
      if (held_left && held_right && end == c) {  // one cell between two held ones: a b31 bridges it
        c = end;
        continue;
      }
      if (held_left && !held_right) {
        for (int x = end; x >= c; x -= 2) post_under(mask, r, x);
      } else {
        // Held on the right only, on both sides, or on neither: posts from the left end.
        for (int x = c; x <= end; x += 2) post_under(mask, r, x);
        if ((end - c) % 2 == 1 && !held_right) post_under(mask, r, end);
      }
      c = end;
    }
  return mask;
}

Mask thicken(Mask mask) {
  for (auto& row : mask) {
    const auto original = row;
    for (size_t c = 0; c + 1 < row.size(); ++c)
      if (original[c] && !original[c + 1] && (c == 0 || !original[c - 1])) row[c + 1] = true;
  }
  return mask;
}

Mask thicken_rows(Mask mask) {
  const auto original = mask;
  for (size_t r = 0; r + 1 < mask.size(); ++r)
    for (size_t c = 0; c < mask[r].size(); ++c)
      if (original[r][c] && !original[r + 1][c] && (r == 0 || !original[r - 1][c])) mask[r + 1][c] = true;
  return mask;
}

Mask hollow(Mask mask) {
  const auto original = mask;
  for (size_t r = 1; r + 1 < mask.size(); ++r)
    for (size_t c = 1; c + 1 < mask[r].size(); ++c)
      if (original[r][c] && original[r - 1][c] && original[r + 1][c] && original[r][c - 1] &&
          original[r][c + 1])
        mask[r][c] = false;
  return mask;
}

Mask thicken_where_hanging(Mask mask) {
  const auto original = mask;
  const int rows = static_cast<int>(mask.size()), cols = rows ? static_cast<int>(mask[0].size()) : 0;
  auto filled = [&](int r, int c) { return r >= 0 && c >= 0 && c < cols && original[r][c]; };
  for (int r = 1; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      if (!original[r][c] || original[r - 1][c]) continue;  // not hanging
      for (int side : {-1, 1}) {
        // The stem beside the hanging cell, one cell thin (nothing on its far side): the column
        // under the hanging cell is filled along it, down to where the stem ends.
        const int stem = c + side;
        if (!filled(r, stem) || !filled(r - 1, stem) || filled(r - 1, stem + side)) continue;
        for (int y = r - 1; y >= 0 && filled(y, stem) && !mask[y][c]; --y) mask[y][c] = true;
        break;
      }
    }
  return mask;
}

int cells(const Mask& mask) {
  int n = 0;
  for (const auto& row : mask) n += static_cast<int>(std::count(row.begin(), row.end(), true));
  return n;
}

}  // namespace pcglab::birds
