#include "birds/grid_faces.h"

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::birds {
namespace {

// The table: "<LETTER> <style>", then the rows top first ('#' a cell). Every face is checked by
// GridFaces.EveryFaceIsBuiltWholeByThePlan (no cell left out) and GridFaces.EveryFaceStandsInTheEvaluator.
// Drawn by hand for this grid; no typeface's outlines were copied.
constexpr const char* kTable = R"(
A peak
..##..
.####.
######
##..##
######
##..##
##..##

A short
.###.
#####
##.##
#####
##.##

B block
####.
##.##
##.##
#####
##.##
##.##
#####

B narrow
###
#.#
###
#.#
#.#
###

B tall
###.
#.##
#.##
####
#.##
#.##
####

B even
###
#.#
###
#.#
###

B round
.###.
###.#
###.#
#####
##.##
##.##
#####

C round
.###.
###..
###..
##...
##...
###..
.####

C round-tall
.###.
###..
###..
##...
##...
##...
###..
.####

C round-flat
.###.
###..
###..
##...
##...
##...
#####

C round-short
.###.
###..
###..
##...
###..
.####

D block
####.
#####
##.##
##.##
##.##
#####

D tall
###.
#.##
#.##
#.##
#.##
#.##
####

D narrow
###
#.#
#.#
#.#
###

D hook
###.
#.##
#.##
#.##
####

D shoulder
.###.
###.#
###.#
##..#
##..#
#####

E stem
###.
##..
##..
###.
##..
##..
####

E short
###
##.
###
##.
###

E even
###
##.
##.
###
##.
##.
###

E round
.###.
###..
###..
####.
##.#.
##.#.
#####

E round3
.###
###.
###.
##..
###.
##..
####

F stem
###
##.
##.
###
##.
##.
##.

F short
###
##.
###
##.
##.

G round
.###.
###..
###..
##...
##.##
#####
.####

G round-bar
.###.
###..
###..
##...
##.##
##.##
#####

G round-spur
.###.
###..
###..
##..#
##..#
#####

H block
##..##
##..##
######
##..##
##..##

H narrow
#.#
#.#
###
#.#
#.#
#.#

H tall
##.##
##.##
##.##
#####
##.##
##.##
##.##

I serif
###
.#.
.#.
.#.
.#.
###

I slab
.###.
..#..
..#..
..#..
..#..
#####

I tall
###
.#.
.#.
.#.
.#.
.#.
###

J hook
..###
...#.
...#.
...#.
#..#.
####.

J tall
.###
..#.
..#.
..#.
..#.
#.#.
###.

J round
...##
...##
...##
#..##
#####

K stem
##.#.
##.#.
####.
####.
##.##
##.##

K arms
#...
#.#.
###.
###.
#.##
#.##

K tall
#...
#.#.
#.#.
###.
###.
#.##
#.##

L stem
##..
##..
##..
##..
##..
####

L slab
#..
#..
#..
#..
#..
###

L tall
#..
#..
#..
#..
#..
#..
###

L wide
##...
##...
##...
#####

M block
#.###
#.#.#
#.#.#
#.#.#
#.#.#

M wide
##.##
#####
#.###
#.#.#
#.#.#
#.#.#

N tall
##..#
###.#
#####
##.##
##.##
##.##

O ring
######
##..##
##..##
##..##
######

O tall
###
#.#
#.#
#.#
#.#
###

O narrow
###
#.#
#.#
###

O wide
#######
##..###
##...##
##...##
#######

O slab
#####
##.##
##.##
#####

O shoulder
.###.
###.#
###.#
##..#
##..#
#####

O round2
.###.
###.#
###.#
##..#
##..#
##..#
#####

P narrow
###
#.#
#.#
###
##.
##.
##.

P tall
###
#.#
#.#
###
##.
##.
##.
##.

P short
###
#.#
###
##.
##.

P slab
###.
#.#.
###.
##..
##..

Q tail
###.
#.#.
#.#.
#.#.
###.
.###

Q tall
###.
#.#.
#.#.
#.#.
#.#.
####
.###

Q round
.###..
###.#.
###.#.
##..#.
##.##.
######

R bowl
####
##.#
##.#
####
##.#
##.#
##.#

R narrow
###
#.#
###
###
#.#
#.#

R wide
####
#.##
####
####
##.#
##.#

R tall
###
#.#
#.#
###
###
#.#
#.#

R short
####
##.#
####
##.#
##.#

S thick
###
##.
##.
###
.##
.##
###

S shifted
.###
.##.
.##.
.###
..##
..##
####

S wide
.###
.##.
.###
..##
####

S short
###
##.
###
.##
###

S hook
###.
##..
###.
.###
####

T slab
.###.
..#..
..#..
..#..
..#..
..#..

T tall
###
.#.
.#.
.#.
.#.
.#.
.#.

T wide
.###.
..#..
..#..
..#..
..#..

T cap
#####
.####
..###
..##.
.###.

T post
###
.#.
.#.
.#.
.#.

U block
##..##
##..##
##..##
##..##
######

U narrow
#.#
#.#
#.#
#.#
###

U tall
#.#
#.#
#.#
#.#
#.#
#.#
###

U thick
##.##
##.##
##.##
#####

U cup
#...#
#...#
#...#
#####

U round
##..#
##..#
##..#
##..#
#####

// V: each arm leans out one cell per stage on a six-cell vertex (two b31s side by side); the
// cells beside the notch (the arm's inner column, dropped after the arm's b31 in the bottom-up
// order) weigh on the inner end of the b31 below and counterweight the arm's outward step, so
// two stages stand where a bare stair of b31s tips after one or two (docs/birds.md).
V notch-tall
###....###
####..####
####..####
####..####
.###..###.
.########.
.########.
.########.
..######..
..######..

V notch
####..####
####..####
####..####
.###..###.
.########.
.########.
.########.
..######..

V notch-open
###....###
###....###
####..####
.###..###.
.###..###.
.###..###.
.########.
..######..
..######..

V notch-flat
####..####
####..####
####..####
####..####
.########.
.########.
..######..
..######..

V notch-low
###....###
####..####
.###..###.
.###..###.
.########.
..######..
..######..

W block
#...#
#...#
#.#.#
#####
##.##

W wide
#.#.#
#.#.#
#.#.#
#####
##.##

W narrow
#.#.#
#####

X cross
#....
####.
.###.
.###.
##.##

X yoke
##..##
######
.####.
..###.
.####.
######

X tall
##..##
##..##
######
.####.
..###.
.####.
######
##..##

X narrow
#.#
###
.#.
###
#.#

Y arms
##..##
######
.####.
..###.
..##..
..##..

Y short
##..##
######
.####.
..###.
..##..

Y fork
#.#
#.#
###
.#.
.#.
.#.

Z shoulder
####.
.###.
..###
..###
.###.
###..
#####

Z shoulder-wide
#####
.####
..###
..###
.###.
###..
#####
)";

}  // namespace

std::vector<GridFace> parse_grid_faces(const std::string& text) {
  std::vector<GridFace> faces;
  std::vector<std::string> rows;  // the current face's rows, top first
  auto finish = [&](int line) {
    if (faces.empty() || !faces.back().mask.empty()) {
      PCGLAB_CHECK(rows.empty()) << "grid faces line " << line << ": rows without a header";
      return;
    }
    PCGLAB_CHECK(!rows.empty()) << "grid faces line " << line << ": face " << faces.back().letter << " "
                                << faces.back().style << " has no rows";
    for (auto it = rows.rbegin(); it != rows.rend(); ++it) {
      std::vector<bool> row;
      for (char ch : *it) row.push_back(ch == '#');
      faces.back().mask.push_back(std::move(row));
    }
    rows.clear();
  };
  int line_number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.empty() || line.rfind("//", 0) == 0) {
      finish(line_number);
      continue;
    }
    if (line[0] == '#' || line[0] == '.') {
      PCGLAB_CHECK(line.find_first_not_of("#.") == std::string::npos)
          << "grid faces line " << line_number << ": a row holds only '#' and '.'";
      PCGLAB_CHECK(rows.empty() || rows.back().size() == line.size())
          << "grid faces line " << line_number << ": rows of unequal width";
      PCGLAB_CHECK(!faces.empty() && faces.back().mask.empty())
          << "grid faces line " << line_number << ": rows without a header";
      rows.push_back(line);
      continue;
    }
    finish(line_number);
    PCGLAB_CHECK(line.size() >= 3 && line[0] >= 'A' && line[0] <= 'Z' && line[1] == ' ')
        << "grid faces line " << line_number << ": a header is \"<LETTER> <style>\", got \"" << line << "\"";
    GridFace face;
    face.letter = line[0];
    face.style = line.substr(2);
    for (const GridFace& f : faces)
      PCGLAB_CHECK(f.letter != face.letter || f.style != face.style)
          << "grid faces line " << line_number << ": " << line << " twice";
    faces.push_back(std::move(face));
  }
  finish(line_number + 1);
  return faces;
}

std::vector<GridFace> parse_user_grid_faces(const std::string& text, const std::string& source) {
  std::string lines = text;  // a file written on Windows: its lines end in "\r\n"
  std::erase(lines, '\r');
  std::vector<GridFace> faces;
  try {
    faces = parse_grid_faces(lines);
  } catch (const CheckError& e) {  // the parser's context ("grid faces line N: ..."), not the check's
    const std::string what = e.what();
    const size_t at = what.find("grid faces line ");
    throw SetupError(fmt::format("{}: {}", source, at == std::string::npos ? what : what.substr(at)));
  }
  for (const GridFace& f : faces) {
    const size_t rows = f.mask.size(), columns = rows == 0 ? 0 : f.mask[0].size();  // rows: >= 1 (parsed)
    if (rows > kMaxGridFaceRows || columns > kMaxGridFaceColumns)
      throw SetupError(
          fmt::format("{}: face \"{} {}\" is {} rows × {} columns; at most {} × {} (the drop grid)", source,
                      f.letter, f.style, rows, columns, kMaxGridFaceRows, kMaxGridFaceColumns));
    // The style names the face in the responses' text and generate.json: a plain word.
    if (f.style.empty() || f.style.size() > 40 ||
        f.style.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
            std::string::npos)
      throw SetupError(fmt::format("{}: face \"{} {}\": a style is 1-40 letters, digits, '_', '.' or '-'",
                                   source, f.letter, f.style));
    bool any = false;
    for (const auto& row : f.mask)
      for (bool cell : row) any = any || cell;
    if (!any)
      throw SetupError(fmt::format("{}: face \"{} {}\" has no cell ('#')", source, f.letter, f.style));
  }
  return faces;
}

const std::vector<GridFace>& grid_faces() {
  static const std::vector<GridFace> kFaces = parse_grid_faces(kTable);
  return kFaces;
}

std::vector<GridFace> grid_faces_of(char letter) {
  std::vector<GridFace> out;
  for (const GridFace& f : grid_faces())
    if (f.letter == letter) out.push_back(f);
  return out;
}

std::vector<std::vector<bool>> stretch_rows(const std::vector<std::vector<bool>>& mask, int row, int times) {
  PCGLAB_CHECK(row >= 0 && row < static_cast<int>(mask.size()) && times >= 0) << "row " << row;
  std::vector<std::vector<bool>> out(mask.begin(), mask.begin() + row + 1);
  for (int k = 0; k < times; ++k) out.push_back(mask[static_cast<size_t>(row)]);
  out.insert(out.end(), mask.begin() + row + 1, mask.end());
  return out;
}

std::vector<std::vector<bool>> add_feet(const std::vector<std::vector<bool>>& mask) {
  std::vector<std::vector<bool>> out;
  for (const auto& row : mask) {
    std::vector<bool> wide(row.size() + 2, false);
    std::copy(row.begin(), row.end(), wide.begin() + 1);
    out.push_back(std::move(wide));
  }
  if (out.empty()) return out;
  // A run's end gets a foot where the gap beside it is at least three cells (or the edge), so
  // two feet never close a gap between legs.
  const std::vector<bool> ground = out[0];
  const auto empty = [&](int c) { return c < 0 || c >= static_cast<int>(ground.size()) || !ground[c]; };
  for (int c = 0; c < static_cast<int>(ground.size()); ++c) {
    if (!ground[c]) continue;
    if (empty(c - 1) && empty(c - 2) && empty(c - 3) && c > 0) out[0][c - 1] = true;
    if (empty(c + 1) && empty(c + 2) && empty(c + 3) && c + 1 < static_cast<int>(ground.size()))
      out[0][c + 1] = true;
  }
  return out;
}

std::vector<std::vector<bool>> stretch_column(const std::vector<std::vector<bool>>& mask, int column) {
  std::vector<std::vector<bool>> out;
  for (const auto& row : mask) {
    PCGLAB_CHECK(column >= 0 && column < static_cast<int>(row.size())) << "column " << column;
    std::vector<bool> wide(row.begin(), row.begin() + column + 1);
    wide.insert(wide.end(), row.begin() + column, row.end());
    out.push_back(std::move(wide));
  }
  return out;
}

}  // namespace pcglab::birds
