// The built-in letter classifier: a small CNN on 32×32 grey images (ink = 1), trained by
// `pcglab birds train-letters`. The entries of birds/torch/table.h, used by birds/letters/letter_cnn.cc.
#include <torch/torch.h>

#include <cstring>
#include <memory>
#include <string>

#include "birds/torch/table.h"
#include "nn/torch/caller_thread.h"
#include "nn/torch/export.h"
#include "nn/torch/global_rng.h"
#include "nn/torch/named_weights.h"

namespace {

constexpr int kSize = 32;

struct LetterCnnImpl : torch::nn::Module {
  LetterCnnImpl()
      : conv1(torch::nn::Conv2dOptions(1, 32, 5).padding(2)),
        conv2(torch::nn::Conv2dOptions(32, 64, 3).padding(1)),
        conv3(torch::nn::Conv2dOptions(64, 128, 3).padding(1)),
        bn1(32),
        bn2(64),
        bn3(128),
        fc1(128 * 4 * 4, 256),
        fc2(256, 26) {
    register_module("conv1", conv1);
    register_module("bn1", bn1);
    register_module("conv2", conv2);
    register_module("bn2", bn2);
    register_module("conv3", conv3);
    register_module("bn3", bn3);
    register_module("fc1", fc1);
    register_module("fc2", fc2);
  }
  torch::Tensor forward(torch::Tensor x) {
    x = torch::max_pool2d(torch::relu(bn1(conv1(x))), 2);
    x = torch::max_pool2d(torch::relu(bn2(conv2(x))), 2);
    x = torch::max_pool2d(torch::relu(bn3(conv3(x))), 2);
    x = torch::relu(fc1(x.flatten(1)));
    x = torch::dropout(x, 0.25, is_training());
    return fc2(x);
  }
  torch::nn::Conv2d conv1, conv2, conv3;
  torch::nn::BatchNorm2d bn1, bn2, bn3;
  torch::nn::Linear fc1, fc2;
};
TORCH_MODULE(LetterCnn);

// Shared by every thread that classifies with it: predict only reads it (the network is put in
// eval mode when created and after each training epoch, never while predicting).
struct Handle {
  explicit Handle(LetterCnn n) : net(std::move(n)) {}
  LetterCnn net;
  std::unique_ptr<torch::optim::Adam> optimizer;
  torch::Tensor rng_state;  // the generator stream after the initial weights: dropout draws from it
};

torch::Tensor images_tensor(const uint8_t* images, int64_t n) {
  auto bytes = torch::from_blob(const_cast<uint8_t*>(images), {n, 1, kSize, kSize}, torch::kUInt8);
  return bytes.to(torch::kFloat32).div_(255.0f);
}

// Parameters and buffers (batch-norm statistics) by name; num_batches_tracked is skipped.
pcglab::nn::torch_detail::NamedTensors state(LetterCnn& net) {
  auto out = pcglab::nn::torch_detail::parameters_of(*net);
  for (auto& b : net->named_buffers())
    if (b.key().find("num_batches_tracked") == std::string::npos) out.emplace_back(b.key(), b.value());
  return out;
}

void* letter_cnn_create(uint64_t seed) {
  auto [net, state] = pcglab::nn::torch_detail::seeded_build(seed, [] { return LetterCnn(); });
  auto* h = new Handle(std::move(net));
  h->rng_state = std::move(state);
  h->net->eval();
  return h;
}

void letter_cnn_destroy(void* handle) {
  delete static_cast<Handle*>(handle);
}

// Copies `n` named tensors into the network. Returns 0, or -1 with the cause in `error`.
int letter_cnn_load(void* handle, const PcglabTensorView* views, int n, char* error, size_t error_size) {
  auto* h = static_cast<Handle*>(handle);
  try {
    pcglab::nn::torch_detail::load_named(state(h->net), views, n);
    return 0;
  } catch (const std::exception& e) {
    pcglab_report_error(error, error_size, e.what());
    return -1;
  }
}

void letter_cnn_export(void* handle, PcglabTensorSink sink, void* context) {
  pcglab::nn::torch_detail::export_named(state(static_cast<Handle*>(handle)->net), sink, context);
}

// Softmax probabilities (n × 26) of n images (n × 32 × 32 bytes, ink = 255). Safe to call from
// several threads at once on one handle. Returns 0, or -1 with the cause in `error`.
int letter_cnn_predict(void* handle, const uint8_t* images, int64_t n, float* probs, char* error,
                       size_t error_size) {
  auto* h = static_cast<Handle*>(handle);
  try {
    const pcglab::nn::torch_detail::CallerThreadOnly one_thread;
    torch::InferenceMode guard;
    const torch::Tensor p = torch::softmax(h->net->forward(images_tensor(images, n)), 1).contiguous();
    std::memcpy(probs, p.data_ptr<float>(), sizeof(float) * n * 26);
    return 0;
  } catch (const std::exception& e) {
    pcglab_report_error(error, error_size, e.what());
    return -1;
  }
}

double run_epoch(Handle* h, const uint8_t* images, const int32_t* labels, const int64_t* order, int64_t n,
                 int batch, double lr) {
  if (!h->optimizer)
    h->optimizer = std::make_unique<torch::optim::Adam>(h->net->parameters(), torch::optim::AdamOptions(lr));
  for (auto& group : h->optimizer->param_groups())
    static_cast<torch::optim::AdamOptions&>(group.options()).lr(lr);
  h->net->train();
  double total = 0;
  int64_t batches = 0;
  std::vector<uint8_t> buffer(static_cast<size_t>(batch) * kSize * kSize);
  std::vector<int64_t> targets(batch);
  for (int64_t start = 0; start < n; start += batch) {
    const int64_t m = std::min<int64_t>(batch, n - start);
    for (int64_t i = 0; i < m; ++i) {
      const int64_t k = order[start + i];
      std::memcpy(&buffer[i * kSize * kSize], images + k * kSize * kSize, kSize * kSize);
      targets[i] = labels[k];
    }
    const torch::Tensor x = images_tensor(buffer.data(), m);
    const torch::Tensor y = torch::from_blob(targets.data(), {m}, torch::kInt64);
    h->optimizer->zero_grad();
    const torch::Tensor loss = torch::nn::functional::cross_entropy(
        h->net->forward(x), y, torch::nn::functional::CrossEntropyFuncOptions().label_smoothing(0.05));
    loss.backward();
    h->optimizer->step();
    total += loss.item<double>();
    ++batches;
  }
  h->net->eval();
  return batches ? total / batches : 0.0;
}

// Dropout draws from the network's own generator stream (global_rng.h), not the caller's.
double letter_cnn_train_epoch(void* handle, const uint8_t* images, const int32_t* labels,
                              const int64_t* order, int64_t n, int batch, double lr, char* error,
                              size_t error_size) {
  auto* h = static_cast<Handle*>(handle);
  try {
    return pcglab::nn::torch_detail::with_rng_state(
        h->rng_state, [&] { return run_epoch(h, images, labels, order, n, batch, lr); });
  } catch (const std::exception& e) {
    h->net->eval();
    pcglab_report_error(error, error_size, e.what());
    return -1;
  }
}

const PcglabBirdsTorchTable kTable = {
    PCGLAB_TORCH_TABLE_HEADER(PcglabBirdsTorchTable, PCGLAB_BIRDS_TORCH_ABI, "birds"),
    letter_cnn_create,
    letter_cnn_destroy,
    letter_cnn_load,
    letter_cnn_export,
    letter_cnn_predict,
    letter_cnn_train_epoch,
};

}  // namespace

PCGLAB_TORCH_TABLE(kTable)
