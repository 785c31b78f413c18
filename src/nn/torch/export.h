// Helpers of every libtorch module's table (see nn/torch/abi.h). A module is built with
// -fvisibility=hidden; its only exported symbol is the table function that PCGLAB_TORCH_TABLE
// defines, so two modules never clash and nothing else can be looked up by name.
#pragma once

#include <cstddef>
#include <cstdio>

#include "nn/torch/abi.h"

// `table`: a static struct whose first member is `PcglabTorchTableHeader header`.
#define PCGLAB_TORCH_TABLE(table)                                                                            \
  extern "C" __attribute__((visibility("default"))) const PcglabTorchTableHeader* pcglab_torch_table(void) { \
    return &(table).header;                                                                                  \
  }

// The header of a table of type T: its ABI version, its size and the module's name.
#define PCGLAB_TORCH_TABLE_HEADER(T, abi_version, module) \
  PcglabTorchTableHeader {                                \
    abi_version, static_cast<uint32_t>(sizeof(T)), module \
  }

// Entry points report a failure in the caller's buffer (`error`, `size` bytes), never in the
// handle: a handle may be used by many threads at once.
inline void pcglab_report_error(char* error, size_t size, const char* message) {
  if (error != nullptr && size > 0) std::snprintf(error, size, "%s", message);
}
