// The built-in generator's shapes on the drop grid: masks (`mask[r][c]`, r = 0 the bottom row),
// their stroke variants, and the drop plan that builds a mask bottom-up under the official drop
// model (birds/converter.h).
//
// The plan's rules: a cell is built where its block lands exactly there and is supported — a b11
// or b13 on a filled cell (or the ground), a b31 on its centre cell or on both ends. Two optional
// rules build more of a glyph's overhanging and leaning strokes (PlanRules):
//  - stepped: a cell that nothing holds is built by a b31 centred on a supported neighbour column,
//    even where the b31's third cell is not in the mask (one cell added beside the stroke). A
//    diagonal of one cell per row becomes a staircase of b31s, each resting with its centre on the
//    step below; an arm one cell off a stem gets a b31 centred on the stem.
//  - counterweighted: a b31 whose one end rests on a stem and whose centre overhangs (a cantilever),
//    where the stem goes on above that end for at least kCounterweightCells cells: the blocks
//    dropped on the supported end afterwards (the rest of the stem, later in the bottom-up order)
//    hold it down. Whether the whole level stands is the evaluator's to say: the generator
//    simulates every candidate and keeps only those that stand.
#pragma once

#include <utility>
#include <vector>

#include "birds/converter.h"

namespace pcglab::birds {

using Mask = std::vector<std::vector<bool>>;

struct PlanRules {
  bool stepped = false;
  bool counterweighted = false;
};

// Cells of the stem that must stand on a cantilever's supported end (the b13 and b11 blocks of
// the stem above it weigh at least as much as the b31's overhanging two thirds).
inline constexpr int kCounterweightCells = 3;

// What a plan built of its mask.
struct PlanCount {
  int wanted = 0;   // cells of the mask
  int dropped = 0;  // of which not built
  int added = 0;    // cells built that are not in the mask (the stepped rule's third cells)
  // Cells of the mask built / cells of the mask (1 for an empty mask).
  double fidelity() const { return wanted > 0 ? 1.0 - static_cast<double>(dropped) / wanted : 1.0; }
};

// A mask → drop program (block, slot), in drop order. The shape is centred on the 20-column grid;
// the stepped rule may add cells one column outside the mask. Cells that cannot be built are left
// out (counted in `dropped`, or in `count`).
std::vector<std::pair<DropBlock, int>> plan_drops(const Mask& mask, int* dropped = nullptr,
                                                  const PlanRules& rules = {}, PlanCount* count = nullptr);

// Fills the empty cells under overhanging cells (down to the structure), except one-cell gaps a
// b31 can bridge: a variant that trades the glyph's exact shape for buildability.
Mask fill_under_overhangs(Mask mask);

// Props overhangs with narrow posts instead of filling under them: under a run of hanging cells,
// a one-cell post down to the structure at the run's far end (from the cell that holds it) and
// every second cell back towards it, so every gap left is one cell a b31 bridges, and the counters
// between the posts stay open.
Mask prop_overhangs(Mask mask);

// Vertical strokes one cell thicker (to the right): a b31 on two cells of a thick stroke stands,
// so one-cell arms (C, E, F, ...) can be built.
Mask thicken(Mask mask);
// Horizontal strokes one cell thicker (upwards): a bar of one row gets a second.
Mask thicken_rows(Mask mask);
// Outline only: a cell whose four neighbours are filled is emptied (solid strokes become hollow).
Mask hollow(Mask mask);
// Only the strokes that need it thicker: a one-cell vertical stroke from which an arm hangs (a cell
// of the stroke with a hanging neighbour above it) gets a second column on the arm's side, so the
// arm's b31 rests on its centre; the glyph's other strokes keep their width.
Mask thicken_where_hanging(Mask mask);

int cells(const Mask& mask);

}  // namespace pcglab::birds
