#include "sandbox/protocol.h"

#include <algorithm>
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
  if (depth > kMaxDepth)  // the caller's value (e.g. arguments from a file): its item's error
    throw InputError(fmt::format("a sandbox value nested more than {} levels deep", kMaxDepth));
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

// Decodes a payload into a DecodedDocument in two linear passes over the same code: the first
// checks everything and counts the slots, the second (on a checked payload) fills exactly that
// many, so the slots are allocated once and the host holds the payload plus 4 bytes per value.
class Decoder {
 public:
  Decoder(std::string_view bytes, std::vector<uint32_t>* slots) : bytes_(bytes), slots_(slots) {}

  // The value's slot content (DecodedDocument): a scalar's position, or kContainer | header index.
  uint32_t value(int depth) {
    if (depth > kMaxDepth) fail("value nested more than {} levels deep", kMaxDepth);
    const auto at = static_cast<uint32_t>(pos_);
    const char tag = take<char>();
    switch (tag) {
      case 'N':
      case 'T':
      case 'F': return at;
      case 'i':
      case 'f': bytes(8); return at;
      case 's': bytes(take<uint64_t>()); return at;
      case 'l': {
        const uint32_t n = take<uint32_t>();
        if (n > left()) fail("list of {} items in {} bytes", n, left());
        const size_t header = open_container(at, n);
        for (uint32_t k = 0; k < n; ++k) set(header + 1 + k, value(depth + 1));
        return static_cast<uint32_t>(header) | DecodedDocument::kContainer;
      }
      case 'd': {
        const uint32_t n = take<uint32_t>();
        if (n > left() / 2) fail("dict of {} items in {} bytes", n, left());
        const size_t header = open_container(at, 2 * static_cast<size_t>(n));
        for (uint32_t k = 0; k < n; ++k) {
          const uint32_t key = value(depth + 1);
          if ((key & DecodedDocument::kContainer) != 0 || bytes_[key] != 's')
            fail("dict key that is not a str");
          set(header + 1 + 2 * k, key);
          set(header + 2 + 2 * k, value(depth + 1));
        }
        if (slots_ != nullptr) refuse_duplicate_keys(header, n);
        return static_cast<uint32_t>(header) | DecodedDocument::kContainer;
      }
      case 'a': array(); return at;
      default: fail("unknown value tag {}", static_cast<int>(static_cast<unsigned char>(tag)));
    }
  }

  size_t left() const { return bytes_.size() - pos_; }
  size_t slot_count() const { return slot_count_; }

 private:
  template <class... Args>
  [[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) const {
    throw ProtocolError(fmt::format("malformed reply at byte {}: {}", pos_,
                                    fmt::format(format, std::forward<Args>(args)...)));
  }

  // Reserves the header slot and `children` slots; returns the header's index.
  size_t open_container(uint32_t at, size_t children) {
    const size_t header = slot_count_;
    slot_count_ += 1 + children;
    if (slots_ != nullptr) {
      slots_->resize(slot_count_);
      (*slots_)[header] = at;
    }
    return header;
  }

  void set(size_t slot, uint32_t content) {
    if (slots_ != nullptr) (*slots_)[slot] = content;
  }

  std::string_view key_at(uint32_t position) const {
    uint64_t n;
    std::memcpy(&n, bytes_.data() + position + 1, sizeof n);
    return bytes_.substr(position + 9, n);
  }

  // A Python dict has no duplicate keys; a reply that has some was forged (and its JSON form would
  // be ambiguous). Sorting positions: O(n log n) in the worst case, 4 bytes per key.
  void refuse_duplicate_keys(size_t header, uint32_t n) {
    if (n < 2) return;
    keys_.resize(n);
    for (uint32_t k = 0; k < n; ++k) keys_[k] = (*slots_)[header + 1 + 2 * k];
    std::sort(keys_.begin(), keys_.end(), [&](uint32_t a, uint32_t b) { return key_at(a) < key_at(b); });
    for (uint32_t k = 1; k < n; ++k)
      if (key_at(keys_[k - 1]) == key_at(keys_[k])) fail("duplicate dict key \"{}\"", key_at(keys_[k]));
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

  void array() {
    const std::string_view dtype = bytes(take<uint8_t>());
    const size_t itemsize = dtype_itemsize(dtype);
    if (itemsize == 0) fail("unsupported dtype '{}'", dtype);
    const uint8_t ndim = take<uint8_t>();
    if (ndim > 32) fail("array with {} dimensions", ndim);
    uint64_t count = 1;
    bool zero = false, overflow = false;
    for (uint8_t k = 0; k < ndim; ++k) {
      const int64_t s = take<int64_t>();
      if (s < 0) fail("negative array dimension {}", s);
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
    bytes(size);
  }

  std::string_view bytes_;
  std::vector<uint32_t>* slots_;  // null: the checking pass
  size_t pos_ = 0;
  size_t slot_count_ = 0;
  std::vector<uint32_t> keys_;  // scratch for refuse_duplicate_keys
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

std::string encode_call_frame(const std::string& function, const List& args, const Dict& kwargs) {
  PCGLAB_CHECK(args.size() <= UINT32_MAX && kwargs.size() <= UINT32_MAX) << "too many arguments";
  std::string frame;
  put<uint32_t>(frame, kMagic);
  frame += static_cast<char>(Op::kCall);
  frame.append(3, '\0');
  put<uint64_t>(frame, 0);  // the payload's size, written below
  frame += 'l';
  put<uint32_t>(frame, 3);
  encode(Value(function), frame, kHeaderSize, 1);
  frame += 'l';
  put<uint32_t>(frame, static_cast<uint32_t>(args.size()));
  for (const Value& v : args) encode(v, frame, kHeaderSize, 2);
  frame += 'd';
  put<uint32_t>(frame, static_cast<uint32_t>(kwargs.size()));
  for (const auto& [k, x] : kwargs) {
    encode(Value(k), frame, kHeaderSize, 2);
    encode(x, frame, kHeaderSize, 2);
  }
  const uint64_t size = frame.size() - kHeaderSize;
  std::memcpy(frame.data() + 8, &size, sizeof size);
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

DecodedValue decode_payload(std::string payload) {
  if (payload.size() >= DecodedDocument::kContainer)
    throw ProtocolError(
        fmt::format("a reply of {} bytes is too large to decode (at most 2 GiB)", payload.size()));
  auto doc = std::make_shared<DecodedDocument>();
  Decoder check(payload, nullptr);
  check.value(0);
  if (check.left() != 0)
    throw ProtocolError(fmt::format("{} trailing bytes after the reply's value", check.left()));
  doc->slots.reserve(check.slot_count());
  Decoder fill(payload, &doc->slots);
  const uint32_t root = fill.value(0);
  doc->bytes = std::move(payload);  // the views' positions stay valid: they are offsets
  return DecodedValue(std::move(doc), root);
}

}  // namespace pcglab::sandbox
