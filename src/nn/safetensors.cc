#include "nn/safetensors.h"

#include <cstring>

#include <fmt/format.h>

#include "core/check.h"
#include "core/files.h"
#include "core/json.h"

namespace pcglab::nn {
namespace {

float half_to_float(uint16_t h) {
  const uint32_t sign = (h >> 15) & 1, exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign << 31;
    } else {  // subnormal: normalise
      int e = -1;
      uint32_t m = mantissa;
      do {
        ++e;
        m <<= 1;
      } while ((m & 0x400) == 0);
      bits = (sign << 31) | static_cast<uint32_t>(127 - 15 - e) << 23 | (m & 0x3ff) << 13;
    }
  } else if (exponent == 31) {
    bits = (sign << 31) | 0x7f800000u | mantissa << 13;
  } else {
    bits = (sign << 31) | (exponent - 15 + 127) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32") return 4;
  if (dtype == "F16" || dtype == "BF16") return 2;
  if (dtype == "F64") return 8;
  return 0;
}

void convert(const std::string& dtype, const char* src, size_t n, float* out) {
  for (size_t i = 0; i < n; ++i) {
    if (dtype == "F32") {
      std::memcpy(&out[i], src + 4 * i, 4);
    } else if (dtype == "F64") {
      double d;
      std::memcpy(&d, src + 8 * i, 8);
      out[i] = static_cast<float>(d);
    } else {
      uint16_t h;
      std::memcpy(&h, src + 2 * i, 2);
      if (dtype == "F16") {
        out[i] = half_to_float(h);
      } else {
        const uint32_t bits = static_cast<uint32_t>(h) << 16;
        std::memcpy(&out[i], &bits, 4);
      }
    }
  }
}

}  // namespace

int64_t Tensor::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string shape_string(const std::vector<int64_t>& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

const Tensor& SafetensorsFile::get(const std::string& name, const std::vector<int64_t>& shape) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) throw SetupError(fmt::format("{}: no tensor '{}'", source, name));
  if (!shape.empty() && it->second.shape != shape) {
    throw SetupError(fmt::format("{}: tensor '{}' has shape {}, expected {}", source, name,
                                 shape_string(it->second.shape), shape_string(shape)));
  }
  return it->second;
}

SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& source) {
  auto fail = [&](const std::string& why) {
    return SetupError(fmt::format("{}: not a safetensors file: {}", source, why));
  };
  if (bytes.size() < 8) throw fail("shorter than the 8-byte header length");
  uint64_t header_size = 0;
  for (int i = 7; i >= 0; --i) header_size = header_size << 8 | static_cast<uint8_t>(bytes[i]);
  if (header_size > bytes.size() - 8)
    throw fail(fmt::format("header length {} exceeds the file", header_size));
  Json header;
  try {
    header = Json::parse(bytes.substr(8, header_size));
  } catch (const std::exception& e) {
    throw fail(fmt::format("header is not JSON ({})", e.what()));
  }
  if (!header.is_object()) throw fail("header is not a JSON object");
  SafetensorsFile file;
  file.source = source;
  const size_t data_begin = 8 + header_size, data_size = bytes.size() - data_begin;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__") {
      if (info.is_object())
        for (const auto& [k, v] : info.items())
          if (v.is_string()) file.metadata[k] = v.get<std::string>();
      continue;
    }
    try {
      const std::string dtype = info.at("dtype").get<std::string>();
      const size_t size = dtype_size(dtype);
      if (size == 0) throw fail(fmt::format("tensor '{}' has unsupported dtype {}", name, dtype));
      Tensor t;
      t.shape = info.at("shape").get<std::vector<int64_t>>();
      for (int64_t d : t.shape)
        if (d < 0) throw fail(fmt::format("tensor '{}' has a negative dimension", name));
      const auto offsets = info.at("data_offsets").get<std::vector<uint64_t>>();
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_size)
        throw fail(fmt::format("tensor '{}' has data offsets outside the file", name));
      const auto n = static_cast<uint64_t>(t.numel());
      if (offsets[1] - offsets[0] != n * size)
        throw fail(fmt::format("tensor '{}': {} bytes for shape {} of {}", name, offsets[1] - offsets[0],
                               shape_string(t.shape), dtype));
      t.values.resize(n);
      convert(dtype, bytes.data() + data_begin + offsets[0], n, t.values.data());
      file.tensors.emplace(name, std::move(t));
    } catch (const nlohmann::json::exception& e) {
      throw fail(fmt::format("tensor '{}' has a malformed entry ({})", name, e.what()));
    }
  }
  return file;
}

SafetensorsFile read_safetensors(const std::filesystem::path& path) {
  return parse_safetensors(as_setup_input([&] { return read_file(path); }), path.string());
}

std::string encode_safetensors(const std::map<std::string, Tensor>& tensors,
                               const std::map<std::string, std::string>& metadata) {
  OrderedJson header = OrderedJson::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    PCGLAB_CHECK(static_cast<int64_t>(t.values.size()) == t.numel())
        << name << ": values do not match the shape";
    const uint64_t bytes = 4 * t.values.size();
    header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
  }
  std::string text = header.dump();
  while ((8 + text.size()) % 8 != 0) text.push_back(' ');  // align the data, as the library does
  std::string out(8, '\0');
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  out += text;
  for (const auto& [name, t] : tensors)
    out.append(reinterpret_cast<const char*>(t.values.data()), 4 * t.values.size());
  return out;
}

void write_safetensors(const std::filesystem::path& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  write_file_atomic(path, encode_safetensors(tensors, metadata));
}

}  // namespace pcglab::nn
