#include "core/table.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace pcglab {

OutputFormat parse_output_format(std::string_view name) {
  if (name == "md") return OutputFormat::kMd;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "json") return OutputFormat::kJson;
  if (name == "jsonl") return OutputFormat::kJsonl;
  throw SetupError(fmt::format("unknown output format \"{}\" (use md, csv, json or jsonl)", name));
}

std::string_view output_format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::kMd: return "md";
    case OutputFormat::kCsv: return "csv";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kJsonl: return "jsonl";
  }
  return "md";
}

void Table::add_row(std::vector<Json> row) {
  PCGLAB_CHECK(row.size() == columns.size())
      << "row has " << row.size() << " cells, table has " << columns.size() << " columns";
  rows.push_back(std::move(row));
}

namespace {
// "nan", "inf" or "-inf" for a value that is not finite.
const char* non_finite_text(double v) {
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}
}  // namespace

std::string cell_text(const Json& cell) {
  if (cell.is_null()) return "";
  // JSON has no NaN or infinity (nlohmann writes null): a text cell says what the value is.
  if (cell.is_number_float() && !std::isfinite(cell.get<double>()))
    return non_finite_text(cell.get<double>());
  if (cell.is_string()) return cell.get<std::string>();
  return dump_json(cell);
}

namespace {

// A number for people (Markdown): 6 significant digits, trailing zeros dropped, no exponent
// between 1e-4 and 1e15 (0.800000011920929 -> 0.8, 99.99999999999986 -> 100).
std::string md_number(double v) {
  if (!std::isfinite(v)) return non_finite_text(v);
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a < 1e-4 || a >= 1e15) return fmt::format("{:.6g}", v);
  const int integer_digits = static_cast<int>(std::floor(std::log10(a))) + 1;
  std::string s = fmt::format("{:.{}f}", v, std::max(0, 6 - integer_digits));
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string md_cell(const Json& cell) {
  return cell.is_number_float() ? md_number(cell.get<double>()) : cell_text(cell);
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string md_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += "<br>";
    } else if (c != '\r') {
      out += c;
    }
  }
  return out;
}

OrderedJson row_object(const Table& t, const std::vector<Json>& row) {
  OrderedJson obj = OrderedJson::object();
  for (size_t i = 0; i < t.columns.size(); ++i) obj[t.columns[i]] = OrderedJson::parse(dump_json(row[i]));
  return obj;
}
}  // namespace

std::string format_table(const Table& table, OutputFormat format) {
  std::string out;
  switch (format) {
    case OutputFormat::kMd: {
      std::vector<std::string> escaped_cols;
      for (const auto& c : table.columns) escaped_cols.push_back(md_escape(c));
      out += "| " + fmt::format("{}", fmt::join(escaped_cols, " | ")) + " |\n|";
      for (size_t i = 0; i < table.columns.size(); ++i) out += "---|";
      out += "\n";
      for (const auto& row : table.rows) {
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(md_escape(md_cell(c)));
        out += "| " + fmt::format("{}", fmt::join(cells, " | ")) + " |\n";
      }
      break;
    }
    case OutputFormat::kCsv: {
      std::vector<std::string> cols;
      for (const auto& c : table.columns) cols.push_back(csv_escape(c));
      out += fmt::format("{}\n", fmt::join(cols, ","));
      for (const auto& row : table.rows) {
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(csv_escape(cell_text(c)));
        out += fmt::format("{}\n", fmt::join(cells, ","));
      }
      break;
    }
    case OutputFormat::kJson: {
      OrderedJson arr = OrderedJson::array();
      for (const auto& row : table.rows) arr.push_back(row_object(table, row));
      out = dump_json(arr, 2) + "\n";
      break;
    }
    case OutputFormat::kJsonl:
      for (const auto& row : table.rows) out += dump_json(row_object(table, row)) + "\n";
      break;
  }
  return out;
}

}  // namespace pcglab
