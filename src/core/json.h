// JSON helpers over nlohmann::json with errors that name the file and the field.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/check.h"

namespace pcglab {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// Parses `text`; `source` names where it came from (a path, "response 3") in the error message.
Json parse_json(std::string_view text, std::string_view source);

// Reads and parses a JSON file. Throws InputError("<path>: <cause>").
Json read_json_file(const std::filesystem::path& path);

// Writes JSON atomically (indent < 0: compact). Strings are written as UTF-8; invalid UTF-8 is
// replaced with U+FFFD instead of failing, so odd generated text never aborts a write.
void write_json_file(const std::filesystem::path& path, const Json& value, int indent = 2);
void write_json_file(const std::filesystem::path& path, const OrderedJson& value, int indent = 2);

// Dump that never throws on invalid UTF-8 (replaces it with U+FFFD).
std::string dump_json(const Json& value, int indent = -1);
std::string dump_json(const OrderedJson& value, int indent = -1);

// A required field of an object, converted to T. Throws InputError naming `where` and the key.
template <class T>
T json_field(const Json& object, std::string_view key, std::string_view where) {
  if (!object.is_object()) throw InputError(fmt::format("{}: expected a JSON object", where));
  const auto it = object.find(key);
  if (it == object.end()) throw InputError(fmt::format("{}: missing field \"{}\"", where, key));
  try {
    return it->template get<T>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: field \"{}\" has the wrong type ({})", where, key, it->type_name()));
  }
}

// An optional field, or `fallback` when absent or null.
template <class T>
T json_field_or(const Json& object, std::string_view key, T fallback, std::string_view where) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  return json_field<T>(object, key, where);
}

}  // namespace pcglab
