#include "nn/module_weights.h"

#include <fmt/format.h>

#include "core/check.h"
#include "nn/torch_runtime.h"

namespace pcglab::nn {
namespace {

void collect(void* context, const PcglabTensorView* view) {
  auto& out = *static_cast<std::map<std::string, Tensor>*>(context);
  Tensor t;
  t.shape.assign(view->shape, view->shape + view->ndim);
  t.values.assign(view->data, view->data + t.numel());
  out.emplace(view->name, std::move(t));
}

}  // namespace

std::map<std::string, Tensor> export_module_weights(void* handle, PcglabTensorExportFn export_weights) {
  std::map<std::string, Tensor> tensors;
  export_weights(handle, &collect, &tensors);
  return tensors;
}

void load_module_weights(void* handle, PcglabTensorLoadFn load_weights, const SafetensorsFile& file,
                         const std::filesystem::path& path) {
  std::vector<PcglabTensorView> views;
  for (const auto& [name, t] : file.tensors)
    views.push_back({name.c_str(), static_cast<int>(t.shape.size()), t.shape.data(), t.values.data()});
  TorchError error;
  const int rc =
      load_weights(handle, views.data(), static_cast<int>(views.size()), error.text, sizeof error.text);
  if (rc != 0) throw SetupError(fmt::format("{}: {}", path.string(), error.text));
}

}  // namespace pcglab::nn
