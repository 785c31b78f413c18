// Moving a network's named weights across a libtorch module's boundary (nn/torch/abi.h), shared by
// every track's networks (birds' letter CNN, PCGRL's PPO): the module exports its tensors through a
// sink and loads them from views of a safetensors file.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "nn/safetensors.h"
#include "nn/torch/abi.h"

namespace pcglab::nn {

// The tensors the module's export entry point gives for `handle`.
std::map<std::string, Tensor> export_module_weights(void* handle, PcglabTensorExportFn export_weights);

// Loads `file`'s tensors through the module's load entry point; throws SetupError "<path>: <cause>"
// (the cause the entry point writes into the call's error buffer: a missing tensor or a wrong shape).
void load_module_weights(void* handle, PcglabTensorLoadFn load_weights, const SafetensorsFile& file,
                         const std::filesystem::path& path);

}  // namespace pcglab::nn
