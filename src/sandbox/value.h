// Values that cross the sandbox boundary: the arguments of a call into generated Python code and
// what it returns. The same set of types a JSON document has (None, bool, int, float, str, list,
// dict with str keys) plus numpy arrays, which travel as raw little-endian buffers with their dtype
// and shape so that a call with two 16x16 int8 arrays costs no text conversion.
//
// Python ints outside the int64 range, tuples (sent as lists), bytes and other objects are not
// values: the worker reports "cannot be returned" naming the type. Arrays are C-contiguous with one
// of the dtypes in kArrayDtypes; a decoded array is checked against its dtype and shape.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "core/json.h"

namespace pcglab::sandbox {

// numpy's dtype.str of the supported element types: bool, int8..int64, uint8..uint64, float32/64.
inline constexpr std::string_view kArrayDtypes[] = {"|b1", "|i1", "|u1", "<i2", "<u2", "<i4",
                                                    "<u4", "<i8", "<u8", "<f4", "<f8"};

// Bytes per element of a supported dtype; 0 for any other string.
size_t dtype_itemsize(std::string_view dtype);

struct NdArray {
  std::string dtype = "<f8";   // numpy dtype.str, one of kArrayDtypes
  std::vector<int64_t> shape;  // empty: a 0-d array (one element)
  std::string data;            // raw little-endian elements, C order

  size_t element_count() const;
  bool operator==(const NdArray&) const = default;
};

// The dtype string of a C++ element type (int8_t -> "|i1", double -> "<f8", bool -> "|b1").
template <class T>
constexpr std::string_view dtype_of() {
  if constexpr (std::is_same_v<T, bool>)
    return "|b1";
  else if constexpr (std::is_same_v<T, int8_t>)
    return "|i1";
  else if constexpr (std::is_same_v<T, uint8_t>)
    return "|u1";
  else if constexpr (std::is_same_v<T, int16_t>)
    return "<i2";
  else if constexpr (std::is_same_v<T, uint16_t>)
    return "<u2";
  else if constexpr (std::is_same_v<T, int32_t>)
    return "<i4";
  else if constexpr (std::is_same_v<T, uint32_t>)
    return "<u4";
  else if constexpr (std::is_same_v<T, int64_t>)
    return "<i8";
  else if constexpr (std::is_same_v<T, uint64_t>)
    return "<u8";
  else if constexpr (std::is_same_v<T, float>)
    return "<f4";
  else {
    static_assert(std::is_same_v<T, double>, "unsupported array element type");
    return "<f8";
  }
}

// An array of `shape` holding `values` (their count must match the shape).
template <class T>
NdArray make_array(std::vector<int64_t> shape, const std::vector<T>& values) {
  NdArray a;
  a.dtype = std::string(dtype_of<T>());
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

// The elements of an array whose dtype is T's (throws CheckError for another dtype).
template <class T>
std::vector<T> array_values(const NdArray& a);

class Value;
using List = std::vector<Value>;
using Dict = std::vector<std::pair<std::string, Value>>;  // insertion order, like a Python dict

class Value {
 public:
  using Storage = std::variant<std::monostate, bool, int64_t, double, std::string, List, Dict, NdArray>;

  Value() = default;
  Value(std::nullptr_t) {}                      // NOLINT(google-explicit-constructor)
  Value(bool b) : v_(b) {}                      // NOLINT(google-explicit-constructor)
  Value(int i) : v_(int64_t{i}) {}              // NOLINT(google-explicit-constructor)
  Value(int64_t i) : v_(i) {}                   // NOLINT(google-explicit-constructor)
  Value(double d) : v_(d) {}                    // NOLINT(google-explicit-constructor)
  Value(std::string s) : v_(std::move(s)) {}    // NOLINT(google-explicit-constructor)
  Value(const char* s) : v_(std::string(s)) {}  // NOLINT(google-explicit-constructor)
  Value(List l) : v_(std::move(l)) {}           // NOLINT(google-explicit-constructor)
  Value(Dict d) : v_(std::move(d)) {}           // NOLINT(google-explicit-constructor)
  Value(NdArray a) : v_(std::move(a)) {}        // NOLINT(google-explicit-constructor)

  bool is_none() const { return std::holds_alternative<std::monostate>(v_); }
  template <class T>
  bool is() const {
    return std::holds_alternative<T>(v_);
  }
  // The held value; throws CheckError naming both types when it holds another.
  template <class T>
  const T& as() const;

  const Storage& storage() const { return v_; }
  const char* type_name() const;  // "None", "bool", "int", "float", "str", "list", "dict", "ndarray"
  bool operator==(const Value&) const = default;

 private:
  Storage v_;
};

// JSON form, for the CLI and logs: arrays become {"dtype", "shape", "data": nested lists}; floats
// that JSON cannot hold (NaN, inf) become null.
OrderedJson to_json(const Value& value);
// The JSON form of an array's elements: {"dtype", "shape", "data": nested lists} (data null when
// the dtype is unknown or the data does not match the shape).
OrderedJson array_json(std::string_view dtype, const std::vector<int64_t>& shape, std::string_view data);
// Levels of lists and dicts a value may have below its own (a request wraps the arguments in two
// or three more; the protocol carries at most kMaxDepth = 100 in all).
inline constexpr int kMaxValueDepth = 90;
// From JSON (the CLI's --args): null, bool, integers (int64), floats, strings, arrays, objects.
// Throws InputError for an integer outside int64, and for a value nested more than
// kMaxValueDepth levels (or `max_depth`) below `json`.
Value from_json(const Json& json);
Value from_json(const Json& json, int max_depth);

}  // namespace pcglab::sandbox
