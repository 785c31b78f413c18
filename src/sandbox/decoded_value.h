// A value decoded from a worker's reply, in a compact form: the reply's bytes themselves plus one
// 4-byte slot per list item, dict key and dict value (and one per container), so decoding a reply
// of B bytes holds at most about 5 B bytes on the host whatever it contains (a `[None] * 2**23`
// reply: 8 MiB of bytes and 32 MiB of slots, instead of 96 bytes per element as sandbox::Value
// trees). Decoding (protocol.h: decode_payload) takes time linear in the reply's size.
//
// A DecodedValue is a cheap handle (a shared pointer and a slot): copies share the reply's bytes,
// strings and array data are views into them, valid while any handle of the reply lives. Values a
// caller builds (call arguments) stay sandbox::Value; to_value() turns a small decoded value into
// one.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/json.h"
#include "sandbox/value.h"

namespace pcglab::sandbox {

// A decoded numpy array: dtype and shape, and its raw little-endian elements in the reply's bytes
// (8-byte aligned in the payload).
struct ArrayView {
  std::string_view dtype;
  std::vector<int64_t> shape;
  std::string_view data;

  size_t element_count() const;
  NdArray to_array() const;  // a copy
};

// The reply's bytes and the slots that index them (built by decode_payload).
//   A slot holds either the payload position of a scalar's tag (None, bool, int, float, str,
//   array), or kContainer | the index of a list's or dict's header slot. A header slot holds the
//   payload position of the container's tag; the container's children follow it: a list's n
//   items, a dict's n (key, value) pairs.
struct DecodedDocument {
  static constexpr uint32_t kContainer = 0x80000000u;
  std::string bytes;
  std::vector<uint32_t> slots;

  size_t memory_bytes() const { return bytes.capacity() + slots.capacity() * sizeof(uint32_t); }
};

class DecodedValue {
 public:
  DecodedValue() = default;  // None
  // The value a slot's content `ref` names in `document` (for decode_payload).
  DecodedValue(std::shared_ptr<const DecodedDocument> document, uint32_t ref)
      : doc_(std::move(document)), ref_(ref) {}

  // The same names as Value::type_name: "None", "bool", "int", "float", "str", "list", "dict", "ndarray".
  const char* type_name() const;
  bool is_none() const { return tag() == 'N'; }
  // Whether the value would decode to that alternative of Value (bool, int64_t, double,
  // std::string, List, Dict, NdArray).
  template <class T>
  bool is() const;

  // The held value; each throws CheckError naming both types when it holds another.
  bool as_bool() const;
  int64_t as_int() const;
  double as_float() const;
  std::string_view as_str() const;
  ArrayView as_array() const;

  // Items of a list, entries of a dict (CheckError for another type).
  size_t size() const;
  DecodedValue operator[](size_t i) const;  // list item i
  std::string_view key(size_t i) const;     // dict entry i's key
  DecodedValue item(size_t i) const;        // dict entry i's value
  // A dict's value for `key` (a linear search: for a few lookups; iterate for many).
  std::optional<DecodedValue> find(std::string_view key) const;

  // The value as a sandbox::Value tree (about 100 bytes per element: for small values).
  Value to_value() const;
  // Bytes the whole reply holds on the host (its bytes and slots).
  size_t document_bytes() const { return doc_ ? doc_->memory_bytes() : 0; }

 private:
  char tag() const;
  uint32_t position() const;  // payload position of the tag
  uint32_t count() const;     // a container's items or entries (CheckError for a scalar)
  DecodedValue child(size_t k) const;
  [[noreturn]] void wrong_type(const char* wanted) const;

  std::shared_ptr<const DecodedDocument> doc_;  // null: None
  uint32_t ref_ = 0;                            // what the value's slot holds
};

// JSON form, as to_json(const Value&) gives it (arrays as {"dtype", "shape", "data"}, non-finite
// floats as null); linear in the value's size (dict entries are appended, never looked up: the
// decoder refused duplicate keys).
OrderedJson to_json(const DecodedValue& value);
// dump_json(to_json(value)) without building the JSON tree (one node per value): the text only.
std::string to_json_text(const DecodedValue& value);

}  // namespace pcglab::sandbox
