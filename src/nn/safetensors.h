// Reader and writer for the safetensors format (Hugging Face): an 8-byte little-endian header
// length N, N bytes of JSON {"name": {"dtype": "F32", "shape": [..], "data_offsets": [b, e]}, ...,
// "__metadata__": {..}}, then the raw little-endian tensor bytes. Plain C++ (no libtorch), so the
// checkpoint is validated before libtorch is loaded and errors name the file and the tensor.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace pcglab::nn {

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major; every supported dtype is converted to float32

  int64_t numel() const;
};

struct SafetensorsFile {
  std::map<std::string, Tensor> tensors;
  std::map<std::string, std::string> metadata;  // "__metadata__" (string values only)

  // The tensor `name`; throws SetupError naming `source` and the tensor when it is missing or its
  // shape differs from `shape` (when given).
  const Tensor& get(const std::string& name, const std::vector<int64_t>& shape = {}) const;
  std::string source;  // the path it was read from, for errors
};

// Reads F32, F16, BF16 and F64 tensors (as float32). Throws SetupError("<path>: <cause>") on a
// truncated file, a bad header, overlapping or out-of-range offsets, or an unsupported dtype.
SafetensorsFile read_safetensors(const std::filesystem::path& path);
SafetensorsFile parse_safetensors(const std::string& bytes, const std::string& source);

// Writes F32 tensors (sorted by name, as the Python library does), atomically.
std::string encode_safetensors(const std::map<std::string, Tensor>& tensors,
                               const std::map<std::string, std::string>& metadata = {});
void write_safetensors(const std::filesystem::path& path, const std::map<std::string, Tensor>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

std::string shape_string(const std::vector<int64_t>& shape);

}  // namespace pcglab::nn
