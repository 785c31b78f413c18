// Entry points of libpcglab_torch.so are `extern "C" PCGLAB_TORCH_EXPORT`; everything else in
// the module is hidden (the module is built with -fvisibility=hidden).
#pragma once
#define PCGLAB_TORCH_EXPORT __attribute__((visibility("default")))

#include <cstddef>
#include <cstdio>

// Entry points report a failure in the caller's buffer (`error`, `size` bytes), never in the
// handle: a handle may be used by many threads at once.
inline void pcglab_report_error(char* error, size_t size, const char* message) {
  if (error != nullptr && size > 0) std::snprintf(error, size, "%s", message);
}
