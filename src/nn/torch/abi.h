// The C boundary between pcglab and its libtorch modules (plain C types only: no libtorch type
// crosses it). Included by both sides.
//
// Every libtorch module (libpcglab_torch.so for nn, libpcglab_<track>_torch.so for a track) exports
// exactly one symbol, `pcglab_torch_table`: a function returning its table, a struct of function
// pointers that starts with a PcglabTorchTableHeader. The module's header (e.g.
// src/birds/torch/table.h) declares the struct and its ABI version; nn/torch_runtime.h opens the
// module by name and refuses a table whose version or size differ from the ones pcglab was built
// with (a stale module left beside a newer executable), naming the library and both versions.
// Changing a table (adding, removing or retyping an entry) means raising its ABI version.
#pragma once

#include <stddef.h>
#include <stdint.h>

extern "C" {

struct PcglabTorchTableHeader {
  uint32_t abi_version;  // the module's <MODULE>_TORCH_ABI when it was built
  uint32_t size;         // sizeof its whole table struct when it was built
  const char* module;    // "nn", "birds", "pcgrl", ...
};

// The one exported symbol of a module.
typedef const PcglabTorchTableHeader* (*PcglabTorchTableFn)(void);
#define PCGLAB_TORCH_TABLE_SYMBOL "pcglab_torch_table"

struct PcglabTensorView {
  const char* name;
  int ndim;
  const int64_t* shape;
  const float* data;
};

// Receives each named tensor of a model when it is exported.
typedef void (*PcglabTensorSink)(void* context, const PcglabTensorView* tensor);

// Loads `n` named tensors into a model. Returns 0, or -1 with the cause in `error` (NUL-terminated,
// truncated to `error_size`).
typedef int (*PcglabTensorLoadFn)(void* handle, const PcglabTensorView* views, int n, char* error,
                                  size_t error_size);
// Gives each named tensor of a model to `sink`.
typedef void (*PcglabTensorExportFn)(void* handle, PcglabTensorSink sink, void* context);
}
