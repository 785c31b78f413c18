#include "sandbox/decoded_value.h"

#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::sandbox {
namespace {

template <class T>
T read_at(const std::string& bytes, size_t pos) {
  T v;
  std::memcpy(&v, bytes.data() + pos, sizeof(T));
  return v;
}

const char* tag_type_name(char tag) {
  switch (tag) {
    case 'N': return "None";
    case 'T':
    case 'F': return "bool";
    case 'i': return "int";
    case 'f': return "float";
    case 's': return "str";
    case 'l': return "list";
    case 'd': return "dict";
    default: return "ndarray";
  }
}

}  // namespace

size_t ArrayView::element_count() const {
  size_t n = 1;
  for (int64_t s : shape) n *= static_cast<size_t>(s);
  return n;
}

NdArray ArrayView::to_array() const {
  NdArray a;
  a.dtype = std::string(dtype);
  a.shape = shape;
  a.data = std::string(data);
  return a;
}

uint32_t DecodedValue::position() const {
  return (ref_ & DecodedDocument::kContainer) != 0 ? doc_->slots[ref_ & ~DecodedDocument::kContainer] : ref_;
}

char DecodedValue::tag() const {
  return doc_ ? doc_->bytes[position()] : 'N';
}

const char* DecodedValue::type_name() const {
  return tag_type_name(tag());
}

void DecodedValue::wrong_type(const char* wanted) const {
  throw CheckError(fmt::format("sandbox value is a {}, not a {}", type_name(), wanted));
}

template <class T>
bool DecodedValue::is() const {
  const char t = tag();
  if constexpr (std::is_same_v<T, bool>)
    return t == 'T' || t == 'F';
  else if constexpr (std::is_same_v<T, int64_t>)
    return t == 'i';
  else if constexpr (std::is_same_v<T, double>)
    return t == 'f';
  else if constexpr (std::is_same_v<T, std::string>)
    return t == 's';
  else if constexpr (std::is_same_v<T, List>)
    return t == 'l';
  else if constexpr (std::is_same_v<T, Dict>)
    return t == 'd';
  else {
    static_assert(std::is_same_v<T, NdArray>, "not a sandbox value type");
    return t == 'a';
  }
}
template bool DecodedValue::is<bool>() const;
template bool DecodedValue::is<int64_t>() const;
template bool DecodedValue::is<double>() const;
template bool DecodedValue::is<std::string>() const;
template bool DecodedValue::is<List>() const;
template bool DecodedValue::is<Dict>() const;
template bool DecodedValue::is<NdArray>() const;

bool DecodedValue::as_bool() const {
  if (!is<bool>()) wrong_type("bool");
  return tag() == 'T';
}

int64_t DecodedValue::as_int() const {
  if (!is<int64_t>()) wrong_type("int");
  return read_at<int64_t>(doc_->bytes, position() + 1);
}

double DecodedValue::as_float() const {
  if (!is<double>()) wrong_type("float");
  return read_at<double>(doc_->bytes, position() + 1);
}

std::string_view DecodedValue::as_str() const {
  if (!is<std::string>()) wrong_type("str");
  const size_t pos = position();
  const auto n = read_at<uint64_t>(doc_->bytes, pos + 1);
  return std::string_view(doc_->bytes).substr(pos + 9, n);
}

ArrayView DecodedValue::as_array() const {
  if (!is<NdArray>()) wrong_type("ndarray");
  // Checked by the decoder: 'a', dtype size and dtype, ndim and shape, data size, padding, data.
  const std::string& b = doc_->bytes;
  size_t pos = position() + 1;
  ArrayView a;
  const auto dl = static_cast<uint8_t>(b[pos++]);
  a.dtype = std::string_view(b).substr(pos, dl);
  pos += dl;
  const auto ndim = static_cast<uint8_t>(b[pos++]);
  for (uint8_t k = 0; k < ndim; ++k, pos += 8) a.shape.push_back(read_at<int64_t>(b, pos));
  const auto size = read_at<uint64_t>(b, pos);
  pos += 8;
  pos += (8 - pos % 8) % 8;
  a.data = std::string_view(b).substr(pos, size);
  return a;
}

uint32_t DecodedValue::count() const {
  const char t = tag();
  if (t != 'l' && t != 'd') wrong_type("list or dict");
  return read_at<uint32_t>(doc_->bytes, position() + 1);
}

size_t DecodedValue::size() const {
  return count();
}

DecodedValue DecodedValue::child(size_t k) const {
  return DecodedValue(doc_, doc_->slots[(ref_ & ~DecodedDocument::kContainer) + 1 + k]);
}

DecodedValue DecodedValue::operator[](size_t i) const {
  if (!is<List>()) wrong_type("list");
  PCGLAB_CHECK(i < count()) << "list item " << i << " of " << count();
  return child(i);
}

std::string_view DecodedValue::key(size_t i) const {
  if (!is<Dict>()) wrong_type("dict");
  PCGLAB_CHECK(i < count()) << "dict entry " << i << " of " << count();
  return child(2 * i).as_str();
}

DecodedValue DecodedValue::item(size_t i) const {
  if (!is<Dict>()) wrong_type("dict");
  PCGLAB_CHECK(i < count()) << "dict entry " << i << " of " << count();
  return child(2 * i + 1);
}

std::optional<DecodedValue> DecodedValue::find(std::string_view k) const {
  const size_t n = size();
  for (size_t i = 0; i < n; ++i)
    if (key(i) == k) return item(i);
  return std::nullopt;
}

Value DecodedValue::to_value() const {
  switch (tag()) {
    case 'N': return Value();
    case 'T': return Value(true);
    case 'F': return Value(false);
    case 'i': return Value(as_int());
    case 'f': return Value(as_float());
    case 's': return Value(std::string(as_str()));
    case 'l': {
      List out;
      out.reserve(count());
      for (size_t i = 0; i < count(); ++i) out.push_back(child(i).to_value());
      return Value(std::move(out));
    }
    case 'd': {
      Dict out;
      out.reserve(count());
      for (size_t i = 0; i < count(); ++i) out.emplace_back(std::string(key(i)), item(i).to_value());
      return Value(std::move(out));
    }
    default: return Value(as_array().to_array());
  }
}

OrderedJson to_json(const DecodedValue& value) {
  if (value.is<List>()) {
    OrderedJson out = OrderedJson::array();
    auto& list = out.get_ref<OrderedJson::array_t&>();
    list.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i) list.push_back(to_json(value[i]));
    return out;
  }
  if (value.is<Dict>()) {
    // Appended to the object's vector: OrderedJson's operator[] looks each key up (quadratic).
    OrderedJson out = OrderedJson::object();
    auto& entries = static_cast<OrderedJson::object_t::Container&>(out.get_ref<OrderedJson::object_t&>());
    entries.reserve(value.size());
    for (size_t i = 0; i < value.size(); ++i)
      entries.emplace_back(std::string(value.key(i)), to_json(value.item(i)));
    return out;
  }
  if (value.is<NdArray>()) {
    const ArrayView a = value.as_array();
    return array_json(a.dtype, a.shape, a.data);
  }
  if (value.is<double>()) {
    const double d = value.as_float();
    return std::isfinite(d) ? OrderedJson(d) : OrderedJson(nullptr);
  }
  if (value.is<int64_t>()) return value.as_int();
  if (value.is<bool>()) return value.as_bool();
  if (value.is<std::string>()) return std::string(value.as_str());
  return nullptr;
}

namespace {
// A string JSON writes as it is: printable ASCII without quotes or backslashes (no copy into a
// JSON node for a 250 MB string).
bool plain_ascii(std::string_view s) {
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x80 || c == '"' || c == '\\') return false;
  }
  return true;
}

void append_json_text(const DecodedValue& value, std::string& out) {
  if (value.is<List>()) {
    out += '[';
    for (size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ',';
      append_json_text(value[i], out);
    }
    out += ']';
  } else if (value.is<Dict>()) {
    out += '{';
    for (size_t i = 0; i < value.size(); ++i) {
      if (i > 0) out += ',';
      out += dump_json(OrderedJson(std::string(value.key(i))));
      out += ':';
      append_json_text(value.item(i), out);
    }
    out += '}';
  } else if (value.is_none()) {
    out += "null";
  } else if (value.is<bool>()) {
    out += value.as_bool() ? "true" : "false";
  } else if (value.is<int64_t>()) {
    out += fmt::format_int(value.as_int()).c_str();
  } else if (value.is<std::string>() && plain_ascii(value.as_str())) {
    out += '"';
    out += value.as_str();
    out += '"';
  } else {
    out += dump_json(to_json(value));  // floats and other strings as nlohmann writes them
  }
}
}  // namespace

std::string to_json_text(const DecodedValue& value) {
  std::string out;
  append_json_text(value, out);
  return out;
}

}  // namespace pcglab::sandbox
