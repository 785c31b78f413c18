#include "nn/torch_runtime.h"

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "core/check.h"

namespace pcglab::nn {
namespace fs = std::filesystem;

namespace {
constexpr const char* kModuleName = "libpcglab_torch.so";

// Under AddressSanitizer (preset `debug`): GCC 12's LeakSanitizer crashes at exit ("Tracer caught
// signal 11") while reading the dynamic thread-local storage of the libraries libtorch loads. So a
// process checks its leaks once just before it loads libtorch (everything allocated until then is
// checked, and a leak fails the process as usual), which also turns off the check at exit.
void check_leaks_before_libtorch() {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();
#endif
}

struct Module {
  void* handle = nullptr;
  fs::path path;
  double load_seconds = 0;
};

std::vector<fs::path> candidates() {
  std::vector<fs::path> out;
  if (const char* env = std::getenv("PCGLAB_TORCH_LIBRARY"); env != nullptr && *env != '\0')
    out.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(exe.parent_path() / kModuleName);
    out.push_back(exe.parent_path().parent_path() / kModuleName);
    out.push_back(exe.parent_path().parent_path().parent_path() / kModuleName);
  }
#ifdef PCGLAB_TORCH_MODULE_DIR
  out.push_back(fs::path(PCGLAB_TORCH_MODULE_DIR) / kModuleName);
#endif
  return out;
}

Module& module() {
  static Module m;
  static std::once_flag once;
  static std::string failure;
  std::call_once(once, [] {
    std::string tried;
    for (const auto& p : candidates()) {
      std::error_code ec;
      if (!fs::exists(p, ec)) {
        tried += fmt::format("\n  {}: not found", p.string());
        continue;
      }
      check_leaks_before_libtorch();
      const auto start = std::chrono::steady_clock::now();
      void* h = ::dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (h == nullptr) {
        tried += fmt::format("\n  {}: {}", p.string(), ::dlerror());
        continue;
      }
      m.handle = h;
      m.path = p;
      m.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      return;
    }
    failure = fmt::format(
        "cannot load the neural-network module {} (libtorch); build pcglab with `make` or set "
        "PCGLAB_TORCH_LIBRARY to its path. Tried:{}",
        kModuleName, tried);
  });
  if (m.handle == nullptr) throw SetupError(failure);
  return m;
}
}  // namespace

void* torch_symbol(const char* symbol) {
  Module& m = module();
  void* sym = ::dlsym(m.handle, symbol);
  if (sym == nullptr) {
    throw SetupError(fmt::format("{} has no entry point {}: rebuild pcglab", m.path.string(), symbol));
  }
  return sym;
}

fs::path torch_module_path() {
  return module().path;
}

TorchInfo torch_info() {
  TorchInfo info;
  auto* version = torch_entry<const char*()>("pcglab_torch_version");
  auto* threads = torch_entry<int()>("pcglab_torch_threads");
  info.version = version();
  info.threads = threads();
  info.load_seconds = module().load_seconds;
  return info;
}

void set_torch_threads(int threads) {
  torch_entry<void(int)>("pcglab_torch_set_threads")(threads);
}

}  // namespace pcglab::nn

namespace pcglab::nn {
double matmul_gflops(int n, int repeats) {
  // repeats 0 indexed an empty vector of timings in the module.
  PCGLAB_CHECK(n >= 1 && repeats >= 1)
      << "matmul_gflops(n = " << n << ", repeats = " << repeats << "): both must be at least 1";
  return torch_entry<double(int, int)>("pcglab_torch_matmul_gflops")(n, repeats);
}
}  // namespace pcglab::nn
