// Named parameters and buffers of a libtorch module in and out of plain tensor views (used by the
// load/export entry points of every network in this module).
#pragma once

#include <torch/torch.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "nn/torch/abi.h"

namespace pcglab::nn::torch_detail {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Copies each named tensor from the view of the same name; throws std::runtime_error naming a
// missing tensor or a wrong shape.
inline void load_named(const NamedTensors& named, const PcglabTensorView* views, int n) {
  torch::NoGradGuard no_grad;
  for (const auto& [name, tensor] : named) {
    const PcglabTensorView* found = nullptr;
    for (int i = 0; i < n; ++i)
      if (name == views[i].name) found = &views[i];
    if (found == nullptr) throw std::runtime_error("no tensor '" + name + "'");
    std::vector<int64_t> shape(found->shape, found->shape + found->ndim);
    if (tensor.sizes() != torch::IntArrayRef(shape))
      throw std::runtime_error("tensor '" + name + "' has shape " + c10::str(torch::IntArrayRef(shape)) +
                               ", expected " + c10::str(tensor.sizes()));
    tensor.copy_(torch::from_blob(const_cast<float*>(found->data), shape, torch::kFloat32));
  }
}

inline void export_named(const NamedTensors& named, PcglabTensorSink sink, void* context) {
  for (const auto& [name, tensor] : named) {
    const torch::Tensor t = tensor.detach().contiguous();
    const std::vector<int64_t> shape(t.sizes().begin(), t.sizes().end());
    const PcglabTensorView view{name.c_str(), static_cast<int>(shape.size()), shape.data(),
                                t.data_ptr<float>()};
    sink(context, &view);
  }
}

inline NamedTensors parameters_of(torch::nn::Module& module) {
  NamedTensors out;
  for (auto& p : module.named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

}  // namespace pcglab::nn::torch_detail
