#include "nn/torch_runtime.h"

#include <dlfcn.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include <fmt/format.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#include "core/check.h"
#include "nn/torch/table.h"

namespace pcglab::nn {
namespace fs = std::filesystem;

namespace {

// Under AddressSanitizer (preset `debug`): GCC 12's LeakSanitizer crashes at exit ("Tracer caught
// signal 11") while reading the dynamic thread-local storage of the libraries libtorch loads. So a
// process checks its leaks once just before it loads libtorch (everything allocated until then is
// checked, and a leak fails the process as usual), which also turns off the check at exit. Later
// calls (a second module) do nothing.
void check_leaks_before_libtorch() {
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();
#endif
}

struct Module {
  std::once_flag once;
  std::atomic<const PcglabTorchTableHeader*> table{nullptr};  // set last: path and time are ready
  fs::path path;
  double load_seconds = 0;
  std::string failure;
};

std::vector<fs::path> candidates(const std::string& file) {
  std::vector<fs::path> out;
  if (const char* env = std::getenv("PCGLAB_TORCH_LIBRARY"); env != nullptr && *env != '\0') {
    const fs::path nn = env;
    out.push_back(file == torch_module_file("nn") ? nn : nn.parent_path() / file);
  }
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    out.push_back(exe.parent_path() / file);
    out.push_back(exe.parent_path().parent_path() / file);
    out.push_back(exe.parent_path().parent_path().parent_path() / file);
  }
#ifdef PCGLAB_TORCH_MODULE_DIR
  out.push_back(fs::path(PCGLAB_TORCH_MODULE_DIR) / file);
#endif
  return out;
}

// Opens the first candidate that loads and has the table symbol; fills `m` or its failure.
void open_module(const std::string& module, Module& m) {
  const std::string file = torch_module_file(module);
  std::string tried;
  for (const auto& p : candidates(file)) {
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
    auto* table_fn = reinterpret_cast<PcglabTorchTableFn>(::dlsym(h, PCGLAB_TORCH_TABLE_SYMBOL));
    if (table_fn == nullptr) {
      m.failure = fmt::format("{}: not a pcglab libtorch module (no symbol {}): rebuild pcglab with `make`",
                              p.string(), PCGLAB_TORCH_TABLE_SYMBOL);
      return;
    }
    m.path = p;
    m.load_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    m.table.store(table_fn(), std::memory_order_release);
    return;
  }
  m.failure = fmt::format(
      "cannot load the neural-network module {} (libtorch code of '{}'); build pcglab with `make` or "
      "set PCGLAB_TORCH_LIBRARY to the path of libpcglab_torch.so (the other modules are looked up "
      "beside it). Tried:{}",
      file, module, tried);
}

std::mutex& modules_mutex() {
  static std::mutex m;
  return m;
}

// Never destroyed: a handle freed during static destruction still finds its module.
std::map<std::string, std::unique_ptr<Module>>& modules() {
  static auto* m = new std::map<std::string, std::unique_ptr<Module>>();
  return *m;
}

Module& loaded(const std::string& module) {
  Module* m = nullptr;
  {
    const std::lock_guard<std::mutex> lock(modules_mutex());
    auto& slot = modules()[module];
    if (!slot) slot = std::make_unique<Module>();
    m = slot.get();
  }
  std::call_once(m->once, [&] { open_module(module, *m); });
  if (m->table == nullptr) throw SetupError(m->failure);
  return *m;
}

const PcglabNnTorchTable& nn_table() {
  return torch_table<PcglabNnTorchTable>("nn", PCGLAB_NN_TORCH_ABI);
}

}  // namespace

std::string torch_module_file(const std::string& module) {
  return module == "nn" ? "libpcglab_torch.so" : fmt::format("libpcglab_{}_torch.so", module);
}

void check_torch_table(const PcglabTorchTableHeader* header, const fs::path& library,
                       const std::string& module, uint32_t abi_version, size_t table_size) {
  if (header == nullptr)
    throw SetupError(
        fmt::format("{}: its libtorch table is missing: rebuild pcglab with `make`", library.string()));
  const std::string name = header->module != nullptr ? header->module : "";
  if (name != module)
    throw SetupError(
        fmt::format("{}: holds the libtorch table of module '{}', expected '{}': rebuild pcglab "
                    "with `make`",
                    library.string(), name, module));
  if (header->abi_version != abi_version || header->size != table_size)
    throw SetupError(
        fmt::format("{}: libtorch table of module '{}' has ABI version {} ({} bytes), but this pcglab was "
                    "built for ABI version {} ({} bytes): the module is stale or from another build; "
                    "rebuild pcglab with `make`",
                    library.string(), module, header->abi_version, header->size, abi_version, table_size));
}

const PcglabTorchTableHeader& torch_module_table(const std::string& module, uint32_t abi_version,
                                                 size_t table_size) {
  const Module& m = loaded(module);
  const PcglabTorchTableHeader* table = m.table.load(std::memory_order_acquire);
  check_torch_table(table, m.path, module, abi_version, table_size);
  return *table;
}

fs::path torch_module_path(const std::string& module) {
  return loaded(module).path;
}

std::vector<LoadedTorchModule> loaded_torch_modules() {
  std::vector<LoadedTorchModule> out;
  const std::lock_guard<std::mutex> lock(modules_mutex());
  for (const auto& [name, m] : modules()) {
    // A module's path and time are written before its table (release), read after it (acquire).
    const PcglabTorchTableHeader* table = m->table.load(std::memory_order_acquire);
    if (table != nullptr) out.push_back({name, m->path, table->abi_version, m->load_seconds});
  }
  return out;
}

void open_registered_torch_modules() {
  for (const auto* e : registry<TorchModuleKind>().entries())
    torch_module_table(e->name, e->value.abi_version, e->value.table_size);
}

PCGLAB_REGISTER_TORCH_MODULE("nn", PcglabNnTorchTable, PCGLAB_NN_TORCH_ABI,
                             "libtorch itself (version, threads) and the Hugging Face ViT");

TorchInfo torch_info() {
  const auto& t = nn_table();
  TorchInfo info;
  info.version = t.torch_version();
  info.threads = t.threads();
  info.load_seconds = loaded("nn").load_seconds;
  return info;
}

void set_torch_threads(int threads) {
  nn_table().set_threads(threads);
}

void seed_torch_global_rng(uint64_t seed) {
  nn_table().global_rng_seed(seed);
}

double draw_torch_global_rng() {
  return nn_table().global_rng_draw();
}

double matmul_gflops(int n, int repeats) {
  // repeats 0 indexed an empty vector of timings in the module.
  PCGLAB_CHECK(n >= 1 && repeats >= 1)
      << "matmul_gflops(n = " << n << ", repeats = " << repeats << "): both must be at least 1";
  return nn_table().matmul_gflops(n, repeats);
}

}  // namespace pcglab::nn
