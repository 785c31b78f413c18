// Moving a libtorch module's named weights across the libpcglab_torch.so boundary, shared by the
// networks of every track (birds' letter CNN, PCGRL's PPO): the module exports its tensors through a sink and
// loads them from views of a safetensors file.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "nn/safetensors.h"

namespace pcglab::nn {

// The tensors the module's `<prefix>_export` entry point gives for `handle`.
std::map<std::string, Tensor> export_module_weights(void* handle, const std::string& prefix);

// Loads `file`'s tensors through `<prefix>_load`; throws SetupError "<path>: <cause>" (the cause
// the entry point writes into the call's error buffer: a missing tensor or a wrong shape).
void load_module_weights(void* handle, const std::string& prefix, const SafetensorsFile& file,
                         const std::filesystem::path& path);

}  // namespace pcglab::nn
