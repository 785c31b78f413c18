// libtorch is loaded only when a command needs a neural network.
//
// Linking libtorch into pcglab would cost every command ~0.8 s of libtorch start-up (operator
// registration), even `pcglab --version`. So every file that includes libtorch headers lives in
// src/nn/torch/ and is built into a separate shared module, libpcglab_torch.so, which this loader
// opens on first use. The public headers of src/nn/ are plain C++ and declare factories that look
// up `extern "C"` entry points in that module with torch_entry().
#pragma once

#include <filesystem>
#include <string>
#include <utility>

namespace pcglab::nn {

// Opens libpcglab_torch.so once (thread-safe) and returns the address of `symbol`.
// Search order: $PCGLAB_TORCH_LIBRARY, the executable's folder, its parent, the build folder.
// Throws SetupError naming the library and the cause when it cannot be loaded.
void* torch_symbol(const char* symbol);

// The entry point `symbol` cast to the function type F.
template <class F>
F* torch_entry(const char* symbol) {
  return reinterpret_cast<F*>(torch_symbol(symbol));
}

// Owns an object a module entry point created and frees it with the module's `destroy` entry point
// on destruction. Move-only, so classes holding one need no move or destructor code of their own.
class TorchHandle {
 public:
  TorchHandle() = default;
  TorchHandle(void* object, const char* destroy) : object_(object), destroy_(destroy) {}
  TorchHandle(TorchHandle&& o) noexcept : object_(std::exchange(o.object_, nullptr)), destroy_(o.destroy_) {}
  TorchHandle& operator=(TorchHandle&& o) noexcept {
    std::swap(object_, o.object_);
    std::swap(destroy_, o.destroy_);
    return *this;
  }
  ~TorchHandle() {
    if (object_ != nullptr) torch_entry<void(void*)>(destroy_)(object_);
  }
  void* get() const { return object_; }

 private:
  void* object_ = nullptr;
  const char* destroy_ = nullptr;
};

// The message of a failed entry point call: each call gets its own buffer (a handle may be shared
// by many threads, so no error is kept in it). Entry points write a NUL-terminated, truncated text.
struct TorchError {
  char text[512] = {};
};

// Where the module was loaded from (loads it if needed).
std::filesystem::path torch_module_path();

// libtorch's version and its intra-op thread count, from the loaded module.
struct TorchInfo {
  std::string version;
  int threads = 0;
  double load_seconds = 0;  // time spent opening the module (libtorch start-up)
};
TorchInfo torch_info();

// Sets libtorch's intra-op threads (0: one per core).
void set_torch_threads(int threads);

}  // namespace pcglab::nn

namespace pcglab::nn {
// This machine's float32 matrix-multiply rate with libtorch (n×n products, median of `repeats`).
double matmul_gflops(int n, int repeats = 5);
}  // namespace pcglab::nn
