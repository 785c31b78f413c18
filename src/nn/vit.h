// The official ChatGPT4PCG classifier: a Hugging Face ViTForImageClassification checkpoint folder
// (config.json + model.safetensors, optional preprocessor_config.json), such as
// pittawat/vit-base-uppercase-english-characters. Weights are read by nn/safetensors.h and every
// Hugging Face name and shape is checked here, so a wrong folder fails with a message naming the
// file and the tensor before libtorch is loaded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/image.h"
#include "nn/torch_runtime.h"

namespace pcglab::nn {

struct VitConfig {
  int hidden = 768, layers = 12, heads = 12, intermediate = 3072, image = 224, patch = 16, channels = 3;
  double layer_norm_eps = 1e-12;
  std::string hidden_act = "gelu";
  std::vector<std::string> labels;  // id2label in id order
  // Preprocessing (ViTImageProcessor): resize to image×image (PIL bilinear), ×rescale, normalise.
  double rescale = 1.0 / 255.0;
  std::vector<double> mean = {0.5, 0.5, 0.5}, std = {0.5, 0.5, 0.5};
};

// Reads config.json (and preprocessor_config.json when present). Throws SetupError naming the file.
VitConfig read_vit_config(const std::filesystem::path& dir);

// PIL's Image.resize(size, BILINEAR) for 8-bit images, bit for bit (antialiased when shrinking:
// the triangle filter's support grows with the scale; 22-bit fixed-point coefficients; horizontal
// pass first, rounded to 8 bits, then vertical).
Image pil_resize_bilinear(const Image& image, int width, int height);

// The processor's pixel values for one image: RGB, resized, rescaled, normalised; channels-first.
std::vector<float> vit_pixels(const Image& image, const VitConfig& config);

class VitClassifier {
 public:
  static VitClassifier load(const std::filesystem::path& dir);

  const VitConfig& config() const { return config_; }

  // Logits (n × labels) and, when `cls` is given, the CLS embeddings (n × hidden) of preprocessed
  // pixels (n × channels × image × image).
  void forward(const float* pixels, size_t n, std::vector<float>& logits,
               std::vector<float>* cls = nullptr) const;

 private:
  VitClassifier() = default;
  VitConfig config_;
  TorchHandle handle_;
};

// Writes a randomly initialised checkpoint folder of `config`'s shape (labels A..Z when empty),
// in the exact Hugging Face layout: for benchmarks and tests where no real checkpoint exists.
void write_random_vit(const std::filesystem::path& dir, VitConfig config, uint64_t seed);

// softmax over each row of `logits` (rows of `width`).
std::vector<float> softmax_rows(const std::vector<float>& logits, size_t width);

}  // namespace pcglab::nn
