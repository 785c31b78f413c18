#include "core/json.h"

#include "core/files.h"

namespace pcglab {

Json parse_json(std::string_view text, std::string_view source) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based offset of the problem; report it as line and column.
    size_t line = 1;
    size_t col = 1;
    const size_t stop = std::min<size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    for (size_t i = 0; i < stop; ++i) {
      if (text[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    std::string what = e.what();
    if (const auto pos = what.find("parse error"); pos != std::string::npos) what = what.substr(pos);
    throw InputError(fmt::format("{}:{}:{}: invalid JSON: {}", source, line, col, what));
  }
}

Json read_json_file(const std::filesystem::path& path) {
  return parse_json(read_file(path), path.string());
}

std::string dump_json(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string dump_json(const OrderedJson& value, int indent) {
  return value.dump(indent, ' ', false, OrderedJson::error_handler_t::replace);
}

void write_json_file(const std::filesystem::path& path, const Json& value, int indent) {
  write_file_atomic(path, dump_json(value, indent) + "\n");
}

void write_json_file(const std::filesystem::path& path, const OrderedJson& value, int indent) {
  write_file_atomic(path, dump_json(value, indent) + "\n");
}

}  // namespace pcglab
