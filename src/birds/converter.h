// Text-to-XML conversion exactly as the official ChatGPT4PCG converter (npm chatgpt4pcg@1.4.1,
// converter.ts / xml.ts): drop calls on a 20×16 grid, the official landing rules and errors, the
// final left shift, and the level XML byte for byte. All arithmetic is exact: every coordinate is a
// multiple of 0.00005, so pcglab computes in integer units of 1e-5 where the official code uses
// BigNumber, and prints numbers as BigNumber's toFixed() does.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "birds/level.h"
#include "core/error_kind.h"

namespace pcglab::birds {

inline constexpr int kGridWidth = 20;
inline constexpr int kGridHeight = 16;
inline constexpr int64_t kCellUnits = 24010;      // 0.2401 in units of 1e-5
inline constexpr int64_t kStartXUnits = 200000;   // 2
inline constexpr int64_t kStartYUnits = -350000;  // -3.5

// b31: 3 wide 1 high (RectSmall, 0°); b13: 1 wide 3 high (RectSmall, 90°); b11: SquareTiny.
enum class DropBlock { kB31, kB13, kB11 };

struct DropBlockShape {
  int width;
  int height;
  const char* science_birds_type;
  int rotation;
  const char* token;
};
const DropBlockShape& shape_of(DropBlock block);

// Grid rows bottom (0) to top (15); 1 = occupied.
using DropGrid = std::array<std::array<uint8_t, kGridWidth>, kGridHeight>;

struct PlacedBlock {
  DropBlock type;
  int column;  // centre column after the left shift
  int row;     // bottom row
};

struct ConvertedLevel {
  std::vector<PlacedBlock> blocks;  // in drop order
  DropGrid grid{};                  // after the shift
  std::string xml;                  // the official converter's text
  Level level;                      // the same level as data
};

// Which official converter to reproduce. k1_4_1 (npm chatgpt4pcg@1.4.1, used since 2023-03-20) is
// the default. k2023_initial is the package's first commit (4648c09/3666931, 2023-03-20), before
// "add error when boundary is intruded" (e5bfa74): a b31 at slot 0 or 19, or any block dropped on a
// full column, stays in row 15 instead of failing. The 2023 sample level V1_L_5.xml was made by it.
enum class ConverterVersion { k1_4_1, k2023_initial };
ConverterVersion parse_converter_version(std::string_view name);  // "1.4.1" or "2023-initial"

// Converts a program of drop calls (the output of extract_code, or any text: lines not starting
// with "<function>(" are ignored; the text is lower-cased first, as convertTextToXML does).
// A program the official converter refuses is the item's failure: ItemFailure (core/error_kind.h)
// of kind bad-input whose message is the official one: "BlockType does not exist.", "Height
// boundary is intruded.", "Width boundary is intruded.".
ConvertedLevel convert_program(std::string_view program, std::string_view function = "drop_block",
                               ConverterVersion version = ConverterVersion::k1_4_1);

// A number in units of 1e-5 as BigNumber.toFixed() prints it ("2.12005", "17", "-3.37995").
std::string format_units(int64_t units);

// Prints one drop call as the official pattern expects it: "drop_block('b31', 5)".
std::string format_drop_call(DropBlock block, int slot, std::string_view function = "drop_block");

}  // namespace pcglab::birds
