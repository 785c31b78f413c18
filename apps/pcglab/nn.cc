// The `pcglab nn` group: the libtorch runtime shared by every track's networks (docs/nn.md).
#include "command.h"
#include "nn/torch_runtime.h"

namespace pcglab::cli {
namespace {

Action setup_nn_info(CLI::App&, const GlobalOptions& global) {
  return [&global] {
    const nn::TorchInfo info = nn::torch_info();
    Table t;
    t.columns = {"libtorch", "threads", "module", "load_seconds"};
    t.add_row({info.version, info.threads, nn::torch_module_path().string(), info.load_seconds});
    print_table(t, global);
    return kExitOk;
  };
}

}  // namespace

PCGLAB_REGISTER_GROUP("nn", "The libtorch runtime (CPU) shared by every track's networks");
PCGLAB_REGISTER_COMMAND("nn", "info", "Load libtorch and show its version, threads and load time",
                        setup_nn_info);

}  // namespace pcglab::cli
