#include "birds/converter.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include <fmt/format.h>

namespace pcglab::birds {
namespace {

constexpr DropBlockShape kShapes[] = {
    {3, 1, "RectSmall", 0, "b31"},
    {1, 3, "RectSmall", 90, "b13"},
    {1, 1, "SquareTiny", 0, "b11"},
};

constexpr const char* kNoBlockType = "BlockType does not exist.";
constexpr const char* kHeightIntruded = "Height boundary is intruded.";
constexpr const char* kWidthIntruded = "Width boundary is intruded.";

// JavaScript String.prototype.substring(start, end): clamp, then swap if reversed.
std::string js_substring(std::string_view s, long start, long end) {
  const long n = static_cast<long>(s.size());
  start = std::clamp(start, 0L, n);
  end = std::clamp(end, 0L, n);
  if (start > end) std::swap(start, end);
  return std::string(s.substr(static_cast<size_t>(start), static_cast<size_t>(end - start)));
}

// parseInt(text, 10) on already-trimmed text; nullopt for NaN. Values beyond the grid are clamped
// to a large sentinel (the official code only ever indexes with them, which yields undefined).
std::optional<long> js_parse_int(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i])) != 0) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  long value = 0;
  size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits)
    value = std::min(value * 10 + (s[i] - '0'), 1L << 40);
  if (digits == 0) return std::nullopt;
  return negative ? -value : value;
}

std::string js_trim_ascii(std::string_view s) {
  size_t a = 0;
  size_t b = s.size();
  auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; };
  while (a < b && ws(s[a])) ++a;
  while (b > a && ws(s[b - 1])) --b;
  return std::string(s.substr(a, b - a));
}

DropBlock block_type_of(const std::string& upper) {
  if (upper == "B31") return DropBlock::kB31;
  if (upper == "B13") return DropBlock::kB13;
  if (upper == "B11") return DropBlock::kB11;
  throw InputError(kNoBlockType);
}

bool occupied(const DropGrid& g, int row, long col) {
  return col < 0 || col >= kGridWidth || g[row][col] != 0;
}

// getBlockPositionOnGrid: the row the block comes to rest on.
int landing_row(const DropGrid& grid, DropBlock type, long slot, bool legacy) {
  const DropBlockShape& s = shape_of(type);
  const int half = (s.width - 1) / 2;
  if (!legacy && occupied(grid, kGridHeight - 1, slot)) throw InputError(kHeightIntruded);
  int y = kGridHeight - 1;
  for (int row = kGridHeight - 1; row >= 0; --row) {
    if (grid[row][slot] != 0) break;
    if (s.width > 1) {
      bool empty = true;
      for (int j = 1; j <= half; ++j) {
        if (slot - j < 0 || slot + j > kGridWidth - 1) {
          if (!legacy) throw InputError(kWidthIntruded);
          empty = false;  // the first version treated the boundary as a wall
          break;
        }
        if (grid[row][slot - j] != 0 || grid[row][slot + j] != 0) {
          empty = false;
          break;
        }
      }
      if (!empty) break;
    }
    y = row;
  }
  return y;
}

// Returns the number of cells written outside the grid on the right (the first version wrote
// grid[15][20], which JavaScript keeps as a 21st element that row sums count; [-1] is not counted).
int place(DropGrid& grid, DropBlock type, int row, int slot) {
  const DropBlockShape& s = shape_of(type);
  const int half = (s.width - 1) / 2;
  int outside_right = 0;
  grid[row][slot] = 1;
  for (int j = 1; j <= half; ++j) {
    if (slot - j >= 0) grid[row][slot - j] = 1;
    if (slot + j < kGridWidth) {
      grid[row][slot + j] = 1;
    } else {
      ++outside_right;
    }
  }
  for (int j = 1; j < s.height; ++j) {
    if (row + j > kGridHeight - 1) throw InputError(kHeightIntruded);
    grid[row + j][slot] = 1;
  }
  return outside_right;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

double to_double(int64_t units) {
  return static_cast<double>(units) / 100000.0;
}

void write_xml(ConvertedLevel& out, int phantom_cells_top_row) {
  int max_row_cells = 0;
  int top_row = 0;
  for (int r = 0; r < kGridHeight; ++r) {
    int sum = r == kGridHeight - 1 ? phantom_cells_top_row : 0;
    for (uint8_t c : out.grid[r]) sum += c;
    max_row_cells = std::max(max_row_cells, sum);
    if (sum > 0) top_row = r;
  }
  const int64_t width = kStartXUnits + max_row_cells * kCellUnits;    // |start.x| + cells * 0.2401
  const int64_t height = -kStartYUnits + (top_row + 1) * kCellUnits;  // |start.y| + rows * 0.2401
  const int64_t raw_camera = std::max(height * 16 / 10, width) * 2;
  const int64_t camera = std::max<int64_t>(raw_camera, 1700000);
  const int level_width = static_cast<int>(width / 1800000) + 3;

  Level& level = out.level;
  level.width = level_width;
  level.camera = Camera{2, 0, to_double(camera), to_double(camera + 500000)};
  level.birds = {Bird{"BirdRed"}};
  level.slingshot = Slingshot{-9, -2.5};
  std::string xml = "<?xml version=\"1.0\" encoding=\"utf-16\"?>\n";
  xml += fmt::format("<Level width=\"{}\">\n", level_width);
  xml += fmt::format("  <Camera x=\"2\" y=\"0\" minWidth=\"{}\" maxWidth=\"{}\" />\n", format_units(camera),
                     format_units(camera + 500000));
  xml += "  <Birds>\n    <Bird type=\"BirdRed\" />\n  </Birds>\n";
  xml += "  <Slingshot x=\"-9\" y=\"-2.5\" />\n";
  xml += "  <GameObjects>\n";
  for (const PlacedBlock& b : out.blocks) {
    const DropBlockShape& s = shape_of(b.type);
    const int64_t magic = s.width > 1 ? kCellUnits : 0;
    const int64_t x = b.column * kCellUnits + s.width * kCellUnits / 2 + kStartXUnits - magic;
    const int64_t y = b.row * kCellUnits + s.height * kCellUnits / 2 + kStartYUnits;
    xml += fmt::format("    <Block type=\"{}\" material=\"wood\" x=\"{}\" y=\"{}\" rotation=\"{}\" />\n",
                       s.science_birds_type, format_units(x), format_units(y), s.rotation);
    level.blocks.push_back(Block{s.science_birds_type, Material::kWood, to_double(x), to_double(y),
                                 static_cast<double>(s.rotation)});
  }
  xml += "  </GameObjects>\n</Level>";
  out.xml = std::move(xml);
}

}  // namespace

const DropBlockShape& shape_of(DropBlock block) {
  return kShapes[static_cast<int>(block)];
}

std::string format_units(int64_t units) {
  const bool negative = units < 0;
  const uint64_t a = negative ? static_cast<uint64_t>(-units) : static_cast<uint64_t>(units);
  std::string out = fmt::format("{}{}", negative ? "-" : "", a / 100000);
  uint64_t frac = a % 100000;
  if (frac != 0) {
    std::string digits = fmt::format("{:05}", frac);
    while (!digits.empty() && digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  return out;
}

std::string format_drop_call(DropBlock block, int slot, std::string_view function) {
  return fmt::format("{}('{}', {})", function, shape_of(block).token, slot);
}

ConverterVersion parse_converter_version(std::string_view name) {
  if (name == "1.4.1") return ConverterVersion::k1_4_1;
  if (name == "2023-initial") return ConverterVersion::k2023_initial;
  throw SetupError(fmt::format("unknown converter version \"{}\" (use 1.4.1 or 2023-initial)", name));
}

ConvertedLevel convert_program(std::string_view program, std::string_view function,
                               ConverterVersion version) {
  const bool legacy = version == ConverterVersion::k2023_initial;
  int phantom = 0;
  const std::string text = lower(program);
  const std::string prefix = std::string(function) + "(";
  ConvertedLevel out;
  DropGrid grid{};
  try {
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      if (nl == std::string::npos) nl = text.size();
      const std::string_view line(text.data() + start, nl - start);
      start = nl + 1;
      if (line.substr(0, prefix.size()) != prefix) continue;
      const long comma = static_cast<long>(line.find(','));
      const long comma_index = comma == static_cast<long>(std::string_view::npos) ? -1 : comma;
      std::string type_text = js_substring(line, static_cast<long>(prefix.size()) + 1, comma_index - 1);
      for (char& c : type_text) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      std::string slot_text = js_substring(line, comma_index + 1, static_cast<long>(line.size()));
      slot_text = js_trim_ascii(slot_text.substr(0, slot_text.find(')')));
      const DropBlock type = block_type_of(type_text);
      const std::optional<long> slot = js_parse_int(slot_text);
      // Outside 0..19 (or NaN) the official code reads undefined: 1.4.1 throws; the first
      // version wrote a broken level (x="NaN" or a block off the grid), reported as the same error.
      if (!slot || *slot < 0 || *slot >= kGridWidth) throw InputError(kHeightIntruded);
      const int row = landing_row(grid, type, *slot, legacy);
      const int outside = place(grid, type, row, static_cast<int>(*slot));
      if (row == kGridHeight - 1) phantom += outside;
      out.blocks.push_back(PlacedBlock{type, static_cast<int>(*slot), row});
    }
  } catch (const InputError& e) {  // the official converter's error: the program's item failure
    throw ItemFailure(ErrorKind::kBadInput, e.what());
  }
  // shiftBlocksOnGrid: move everything left so the leftmost occupied column is 0.
  int shift = kGridWidth;
  for (int c = 0; c < kGridWidth && shift == kGridWidth; ++c) {
    for (int r = 0; r < kGridHeight; ++r) {
      if (grid[r][c] != 0) {
        shift = c;
        break;
      }
    }
  }
  for (auto& b : out.blocks) b.column -= shift;
  for (auto& row : grid) {
    std::array<uint8_t, kGridWidth> moved{};
    for (int c = shift; c < kGridWidth; ++c) moved[c - shift] = row[c];
    row = moved;
  }
  out.grid = grid;
  write_xml(out, phantom);
  return out;
}

}  // namespace pcglab::birds
