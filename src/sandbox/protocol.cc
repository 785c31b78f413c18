#include "sandbox/protocol.h"

#include <cstring>

#include <fmt/format.h>

#include "core/check.h"

namespace pcglab::sandbox {
namespace {

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

void encode(const Value& value, std::string& out, size_t base, int depth) {
  PCGLAB_CHECK(depth <= kMaxDepth) << "sandbox value nested more than " << kMaxDepth << " levels";
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          out += 'N';
        } else if constexpr (std::is_same_v<T, bool>) {
          out += v ? 'T' : 'F';
        } else if constexpr (std::is_same_v<T, int64_t>) {
          out += 'i';
          put(out, v);
        } else if constexpr (std::is_same_v<T, double>) {
          out += 'f';
          put(out, v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          out += 's';
          put<uint64_t>(out, v.size());
          out += v;
        } else if constexpr (std::is_same_v<T, List>) {
          PCGLAB_CHECK(v.size() <= UINT32_MAX) << "list too long for the sandbox protocol";
          out += 'l';
          put<uint32_t>(out, static_cast<uint32_t>(v.size()));
          for (const auto& x : v) encode(x, out, base, depth + 1);
        } else if constexpr (std::is_same_v<T, Dict>) {
          PCGLAB_CHECK(v.size() <= UINT32_MAX) << "dict too large for the sandbox protocol";
          out += 'd';
          put<uint32_t>(out, static_cast<uint32_t>(v.size()));
          for (const auto& [k, x] : v) {
            encode(Value(k), out, base, depth + 1);
            encode(x, out, base, depth + 1);
          }
        } else {
          const size_t itemsize = dtype_itemsize(v.dtype);
          PCGLAB_CHECK(itemsize > 0) << "unsupported array dtype '" << v.dtype << "'";
          PCGLAB_CHECK(v.shape.size() <= 32) << "array with more than 32 dimensions";
          for (int64_t s : v.shape) PCGLAB_CHECK(s >= 0) << "negative array dimension";
          PCGLAB_CHECK(v.data.size() == v.element_count() * itemsize)
              << "array data of " << v.data.size() << " bytes does not match its shape and dtype";
          out += 'a';
          out += static_cast<char>(v.dtype.size());
          out += v.dtype;
          out += static_cast<char>(v.shape.size());
          for (int64_t s : v.shape) put(out, s);
          put<uint64_t>(out, v.data.size());
          out.append((8 - (out.size() - base) % 8) % 8, '\0');
          out += v.data;
        }
      },
      value.storage());
}

class Decoder {
 public:
  explicit Decoder(std::string_view bytes) : bytes_(bytes) {}

  Value value(int depth) {
    if (depth > kMaxDepth) fail("value nested more than {} levels deep", kMaxDepth);
    const char tag = take<char>();
    switch (tag) {
      case 'N': return Value();
      case 'T': return Value(true);
      case 'F': return Value(false);
      case 'i': return Value(take<int64_t>());
      case 'f': return Value(take<double>());
      case 's': return Value(std::string(bytes(take<uint64_t>())));
      case 'l': {
        const uint32_t n = take<uint32_t>();
        if (n > left()) fail("list of {} items in {} bytes", n, left());
        List list;
        list.reserve(n);
        for (uint32_t k = 0; k < n; ++k) list.push_back(value(depth + 1));
        return Value(std::move(list));
      }
      case 'd': {
        const uint32_t n = take<uint32_t>();
        if (n > left() / 2) fail("dict of {} items in {} bytes", n, left());
        Dict dict;
        dict.reserve(n);
        for (uint32_t k = 0; k < n; ++k) {
          Value key = value(depth + 1);
          if (!key.is<std::string>()) fail("dict key of type {}", key.type_name());
          dict.emplace_back(key.as<std::string>(), value(depth + 1));
        }
        return Value(std::move(dict));
      }
      case 'a': return Value(array());
      default: fail("unknown value tag {}", static_cast<int>(static_cast<unsigned char>(tag)));
    }
  }

  size_t left() const { return bytes_.size() - pos_; }

 private:
  template <class... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw ProtocolError(fmt::format("malformed reply at byte {}: {}", pos_,
                                    fmt::format(format, std::forward<Args>(args)...)));
  }

  std::string_view bytes(uint64_t n) {
    if (n > left()) fail("{} bytes announced, {} left", n, left());
    const std::string_view out = bytes_.substr(pos_, n);
    pos_ += n;
    return out;
  }

  template <class T>
  T take() {
    T v;
    std::memcpy(&v, bytes(sizeof(T)).data(), sizeof(T));
    return v;
  }

  NdArray array() {
    NdArray a;
    a.dtype = std::string(bytes(take<uint8_t>()));
    const size_t itemsize = dtype_itemsize(a.dtype);
    if (itemsize == 0) fail("unsupported dtype '{}'", a.dtype);
    const uint8_t ndim = take<uint8_t>();
    if (ndim > 32) fail("array with {} dimensions", ndim);
    uint64_t count = 1;
    bool zero = false, overflow = false;
    for (uint8_t k = 0; k < ndim; ++k) {
      const int64_t s = take<int64_t>();
      if (s < 0) fail("negative array dimension {}", s);
      a.shape.push_back(s);
      const auto dim = static_cast<uint64_t>(s);
      if (dim == 0)
        zero = true;
      else if (count > UINT64_MAX / dim)
        overflow = true;
      else
        count *= dim;
    }
    const uint64_t size = take<uint64_t>();
    const bool matches = zero ? size == 0 : !overflow && count <= size / itemsize && count * itemsize == size;
    if (!matches) fail("array data of {} bytes does not match its shape", size);
    bytes((8 - pos_ % 8) % 8);
    a.data = std::string(bytes(size));
    return a;
  }

  std::string_view bytes_;
  size_t pos_ = 0;
};

}  // namespace

void encode_value(const Value& value, std::string& out) {
  encode(value, out, 0, 0);
}

std::string encode_frame(uint8_t code, const Value& value) {
  std::string payload;
  encode(value, payload, 0, 0);
  std::string frame;
  frame.reserve(kHeaderSize + payload.size());
  put<uint32_t>(frame, kMagic);
  frame += static_cast<char>(code);
  frame.append(3, '\0');
  put<uint64_t>(frame, payload.size());
  frame += payload;
  return frame;
}

std::string encode_map_frame(const std::string& function, const std::vector<List>& arg_lists) {
  std::string payload = "l";
  put<uint32_t>(payload, 2);
  encode(Value(function), payload, 0, 1);
  PCGLAB_CHECK(arg_lists.size() <= UINT32_MAX) << "too many calls in one message";
  payload += 'l';
  put<uint32_t>(payload, static_cast<uint32_t>(arg_lists.size()));
  for (const List& args : arg_lists) {
    payload += 'l';
    put<uint32_t>(payload, static_cast<uint32_t>(args.size()));
    for (const Value& v : args) encode(v, payload, 0, 3);
  }
  std::string frame;
  frame.reserve(kHeaderSize + payload.size());
  put<uint32_t>(frame, kMagic);
  frame += static_cast<char>(Op::kMap);
  frame.append(3, '\0');
  put<uint64_t>(frame, payload.size());
  frame += payload;
  return frame;
}

FrameHeader decode_header(const char* bytes) {
  uint32_t magic;
  std::memcpy(&magic, bytes, 4);
  if (magic != kMagic || bytes[5] != 0 || bytes[6] != 0 || bytes[7] != 0)
    throw ProtocolError(
        "malformed reply header (something other than the worker wrote to the protocol channel)");
  FrameHeader h;
  h.code = static_cast<uint8_t>(bytes[4]);
  std::memcpy(&h.size, bytes + 8, 8);
  return h;
}

Value decode_payload(std::string_view payload) {
  Decoder d(payload);
  Value v = d.value(0);
  if (d.left() != 0) throw ProtocolError(fmt::format("{} trailing bytes after the reply's value", d.left()));
  return v;
}

}  // namespace pcglab::sandbox
