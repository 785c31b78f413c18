// Reading and writing Science Birds level XML.
//
// The reader accepts any Science Birds level: blocks of every type and material with rotation,
// pigs, TNT, platforms (with scale), birds, slingshot and camera. It tolerates what real files do:
// ASCII/UTF-8 files that declare encoding="utf-16" (as the official converter writes them), real
// UTF-16 with a byte-order mark, and CRLF line ends. Unknown elements, unknown block types or
// materials, and missing or malformed numbers are errors naming the file, the line and the cause.
//
// The writer prints the official converter's layout (declaration, two-space indentation, "\n"
// line ends, " />" empty elements, numbers as BigNumber.toFixed() prints them), so reading then
// writing a converter-made file gives it back byte for byte.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "birds/level.h"

namespace pcglab::birds {

// Throws InputError("<source>:<line>: <cause>").
Level parse_level_xml(std::string_view bytes, const std::string& source);
Level read_level_file(const std::filesystem::path& path);

std::string write_level_xml(const Level& level);

// Block and pig types Science Birds knows, and material names.
bool is_block_type(std::string_view type);
bool is_pig_type(std::string_view type);
bool is_bird_type(std::string_view type);
std::string_view material_name(Material material);
bool parse_material(std::string_view name, Material& out);

// Shortest decimal that reads back as `value`, in plain notation (no exponent), like toFixed().
std::string format_decimal(double value);

}  // namespace pcglab::birds
