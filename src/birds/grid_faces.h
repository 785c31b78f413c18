// Letter forms designed for the drop grid: pcglab's own small table of masks, several styles per
// letter (heights 2-10 rows, widths 3-10 columns, stems of one or two cells, with or without serifs,
// square or stepped corners), each drawn so that every cell is built by plan_drops
// (birds/generator.h): a cell rests on the cell below, or is an end of a b31 whose centre rests on
// the row below, or the centre of a b31 bridging a one-cell gap. Diagonals are stair steps; an arm
// that overhangs rests on a thick stem. The generator adds them to each letter's candidates
// (font "grid:<style>"), beside the typeface glyphs, which lose overhangs and diagonals when made
// buildable.
#pragma once

#include <string>
#include <vector>

namespace pcglab::birds {

struct GridFace {
  char letter = 'A';
  std::string style;                    // "stem", "serif", ... (unique per letter)
  std::vector<std::vector<bool>> mask;  // mask[r][c], r = 0 the bottom row (plan_drops' layout)
};

// Every face of the table, in the table's order (letters A-Z, styles in their order).
const std::vector<GridFace>& grid_faces();

// The faces of one letter, in the table's order.
std::vector<GridFace> grid_faces_of(char letter);

// Parses faces written as "<LETTER> <style>" followed by its rows, top row first, '#' a cell and
// '.' none; faces are separated by blank lines and lines starting with "//" are comments. Throws
// CheckError naming the line for a malformed table (rows of unequal width, a bad header).
std::vector<GridFace> parse_grid_faces(const std::string& text);

// The largest face a user's table may hold: its derived forms (two rows taller, feet two columns
// wider) fit the 20 × 16 drop grid or are left out.
inline constexpr int kMaxGridFaceRows = 16;
inline constexpr int kMaxGridFaceColumns = 18;

// A user's table of faces (`birds generate --grid-faces FILE`; `source` names it in errors):
// parse_grid_faces, and every face at most kMaxGridFaceRows × kMaxGridFaceColumns with at least one
// cell. Throws SetupError naming `source` and the line or the face. An empty text is no faces.
std::vector<GridFace> parse_user_grid_faces(const std::string& text, const std::string& source);

// The mask with row `row` repeated (`times` extra copies above it): a taller face of the same
// style; cells above a repeated row rest on the copies as they rested on the row.
std::vector<std::vector<bool>> stretch_rows(const std::vector<std::vector<bool>>& mask, int row, int times);

// The mask one column wider on each side with its bottom row's runs one cell longer at their ends
// (feet on the ground, which always carries them), except into a gap of less than three cells.
std::vector<std::vector<bool>> add_feet(const std::vector<std::vector<bool>>& mask);

// The mask with column `column` repeated once (a wider face); not always buildable (a b31's
// centre may move off its support): check it with plan_drops.
std::vector<std::vector<bool>> stretch_column(const std::vector<std::vector<bool>>& mask, int column);

}  // namespace pcglab::birds
