// libtorch is loaded only when a command needs a neural network.
//
// Linking libtorch into pcglab would cost every command ~0.8 s of libtorch start-up (operator
// registration), even `pcglab --version`. So every file that includes libtorch headers is built
// into a separate shared module that this loader opens on first use: one module per owner, so a
// track adds its own network without touching another's —
//   src/nn/torch/*.cc       -> libpcglab_torch.so          (module "nn": libtorch itself, ViT)
//   src/<track>/torch/*.cc  -> libpcglab_<track>_torch.so  (module "<track>")
// Each module exports one symbol, a versioned C table of function pointers (nn/torch/abi.h); the
// plain C++ headers of nn/ and of the tracks call through torch_table<T>(). Modules share libtorch
// (one copy in the process) and pcglab_core's globals (log level, progress bar, named mutexes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/registry.h"
#include "nn/torch/abi.h"

namespace pcglab::nn {

// The file of module `module`: "nn" -> libpcglab_torch.so, else libpcglab_<module>_torch.so.
std::string torch_module_file(const std::string& module);

// Opens module `module` once (thread-safe) and returns its table after checking it (see
// check_torch_table). Search order: the folder of $PCGLAB_TORCH_LIBRARY (the nn module's path; for
// "nn" the file itself), the executable's folder, its parent and grandparent, the build folder.
// Throws SetupError naming the library and the cause when it cannot be loaded.
const PcglabTorchTableHeader& torch_module_table(const std::string& module, uint32_t abi_version,
                                                 size_t table_size);

// The table of `module`, of type Table (whose first member is the header).
template <class Table>
const Table& torch_table(const std::string& module, uint32_t abi_version) {
  return reinterpret_cast<const Table&>(torch_module_table(module, abi_version, sizeof(Table)));
}

// A libtorch module, registered by the plain C++ code that calls it (PCGLAB_REGISTER_TORCH_MODULE):
// `pcglab cli registry` lists them, and a test opens every registered module and checks its table.
struct TorchModuleKind {
  static constexpr const char* kRegistryKind = "libtorch-modules";
  uint32_t abi_version = 0;
  size_t table_size = 0;
};

// Opens and checks the table of every registered module (for tests and `nn info`).
void open_registered_torch_modules();

// Throws SetupError unless `header` is the table of `module` in the layout pcglab was built with:
// the same ABI version and the same size. The message names `library` and both versions.
void check_torch_table(const PcglabTorchTableHeader* header, const std::filesystem::path& library,
                       const std::string& module, uint32_t abi_version, size_t table_size);

// Owns an object a module entry point created and frees it with the module's destroy entry point
// on destruction. Move-only, so classes holding one need no move or destructor code of their own.
class TorchHandle {
 public:
  using Destroy = void (*)(void*);
  TorchHandle() = default;
  TorchHandle(void* object, Destroy destroy) : object_(object), destroy_(destroy) {}
  TorchHandle(TorchHandle&& o) noexcept : object_(std::exchange(o.object_, nullptr)), destroy_(o.destroy_) {}
  TorchHandle& operator=(TorchHandle&& o) noexcept {
    std::swap(object_, o.object_);
    std::swap(destroy_, o.destroy_);
    return *this;
  }
  ~TorchHandle() {
    if (object_ != nullptr) destroy_(object_);
  }
  void* get() const { return object_; }

 private:
  void* object_ = nullptr;
  Destroy destroy_ = nullptr;
};

// The message of a failed entry point call: each call gets its own buffer (a handle may be shared
// by many threads, so no error is kept in it). Entry points write a NUL-terminated, truncated text.
struct TorchError {
  char text[512] = {};
};

// Where module `module` was loaded from (loads it if needed).
std::filesystem::path torch_module_path(const std::string& module = "nn");

// The modules opened so far: name, file, ABI version, load time.
struct LoadedTorchModule {
  std::string module;
  std::filesystem::path path;
  uint32_t abi_version = 0;
  double load_seconds = 0;
};
std::vector<LoadedTorchModule> loaded_torch_modules();

// libtorch's version and its intra-op thread count, from the nn module.
struct TorchInfo {
  std::string version;
  int threads = 0;
  double load_seconds = 0;  // time spent opening the nn module (libtorch start-up)
};
TorchInfo torch_info();

// Sets libtorch's intra-op threads (0: one per core).
void set_torch_threads(int threads);

// libtorch's default CPU generator (process-global), for tests that check that a module leaves it
// alone: reseed it, and draw one uniform [0, 1) number from it.
void seed_torch_global_rng(uint64_t seed);
double draw_torch_global_rng();

// This machine's float32 matrix-multiply rate with libtorch (n×n products, median of `repeats`).
double matmul_gflops(int n, int repeats = 5);

}  // namespace pcglab::nn

// PCGLAB_REGISTER_TORCH_MODULE("birds", PcglabBirdsTorchTable, PCGLAB_BIRDS_TORCH_ABI, "the letter CNN");
#define PCGLAB_REGISTER_TORCH_MODULE(module, Table, abi_version, description)     \
  PCGLAB_REGISTER(::pcglab::nn::TorchModuleKind, module,                          \
                  ::pcglab::nn::torch_module_file(module) + ": " + (description), \
                  ::pcglab::nn::TorchModuleKind{abi_version, sizeof(Table)})
