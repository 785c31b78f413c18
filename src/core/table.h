// Tabular results printed as Markdown, CSV, JSON (an array of objects) or JSON Lines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"

namespace pcglab {

enum class OutputFormat { kMd, kCsv, kJson, kJsonl };

// "md", "csv", "json", "jsonl". Throws SetupError for anything else.
OutputFormat parse_output_format(std::string_view name);
std::string_view output_format_name(OutputFormat format);

struct Table {
  std::vector<std::string> columns;
  std::vector<std::vector<Json>> rows;  // each row has one cell per column

  void add_row(std::vector<Json> row);
};

// The whole table in `format`, ending with a newline (empty JSON array "[]" for no rows).
// Markdown is for people: floating-point numbers with 6 significant digits (0.8, not
// 0.800000011920929). CSV, JSON and JSON Lines are for programs: every number in full (the
// shortest text that reads back as the same double; NaN and infinities: "nan", "inf", "-inf" in
// Markdown and CSV, null in JSON).
std::string format_table(const Table& table, OutputFormat format);

// A cell as plain text: strings unquoted, numbers as JSON prints them, NaN and infinities as
// "nan", "inf", "-inf" (JSON, which has no such numbers, writes them as null), null as "".
std::string cell_text(const Json& cell);

}  // namespace pcglab
