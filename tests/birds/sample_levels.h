// The five sample levels of the official repository (shared/data/science-birds-levels) as the
// drop_block programs that produce them: the converter writes each file byte for byte (checked
// against the published files by text_pipeline_test when the reference data is present), so tests
// that only need these levels as inputs run on a clone alone.
#pragma once

#include <stdexcept>
#include <string>

#include "birds/converter.h"
#include "birds/level_xml.h"

namespace pcglab::testing {

struct SampleLevel {
  const char* file;     // its name in science-birds-levels/
  const char* program;  // the drop_block program
  birds::ConverterVersion version;
};

inline constexpr SampleLevel kSampleLevels[] = {
    {"V1_L_1.xml",
     "drop_block('b11', 0)\ndrop_block('b13', 0)\ndrop_block('b31', 1)\ndrop_block('b31', "
     "2)\ndrop_block('b31', 3)\n"
     "drop_block('b11', 4)\n",
     birds::ConverterVersion::k1_4_1},
    {"V1_L_5.xml",
     "drop_block('b31', 0)\ndrop_block('b13', 18)\ndrop_block('b11', 9)\ndrop_block('b11', "
     "9)\ndrop_block('b11', 19)\n"
     "drop_block('b11', 9)\n",
     birds::ConverterVersion::k2023_initial},
    {"result_22.xml", "drop_block('b31', 1)\ndrop_block('b13', 1)\ndrop_block('b31', 1)\n",
     birds::ConverterVersion::k1_4_1},
    {"result_23.xml",
     "drop_block('b31', 1)\ndrop_block('b13', 0)\ndrop_block('b13', 2)\ndrop_block('b31', 1)\n",
     birds::ConverterVersion::k1_4_1},
    {"result_24.xml",
     "drop_block('b31', 5)\ndrop_block('b13', 4)\ndrop_block('b13', 6)\ndrop_block('b31', 5)\n",
     birds::ConverterVersion::k1_4_1},  // same level dropped further right: the left shift removes the offset
};

// The XML text of a sample level ("V1_L_1.xml"), as the official converter wrote it.
inline std::string sample_level_xml(const std::string& file) {
  for (const SampleLevel& s : kSampleLevels) {
    if (file != s.file) continue;
    try {
      return birds::convert_program(s.program, "drop_block", s.version).xml;
    } catch (const ItemFailure& e) {
      throw std::runtime_error(file + ": " + e.what());
    }
  }
  throw std::runtime_error("no sample level " + file);
}

inline birds::Level sample_level(const std::string& file) {
  return birds::parse_level_xml(sample_level_xml(file), file);
}

}  // namespace pcglab::testing
