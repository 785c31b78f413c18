#include "nn/vit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "core/check.h"
#include "core/json.h"
#include "core/rng.h"
#include "nn/safetensors.h"
#include "nn/torch/table.h"
#include "nn/torch_runtime.h"

namespace pcglab::nn {
namespace {

template <class T>
void read_field(const Json& j, const char* key, T& out, const std::filesystem::path& file) {
  if (!j.contains(key)) return;
  try {
    out = j.at(key).get<T>();
  } catch (const std::exception&) {
    throw SetupError(fmt::format("{}: field '{}' has the wrong type", file.string(), key));
  }
}

// PIL's precompute_coeffs for the bilinear (triangle) filter.
struct Coefficients {
  int ksize = 0;
  std::vector<int> bounds;  // per output: first input, count
  std::vector<int32_t> kk;  // per output: ksize fixed-point weights
};

constexpr int kPrecisionBits = 32 - 8 - 2;

Coefficients precompute(int in_size, int out_size) {
  const double scale = static_cast<double>(in_size) / out_size;
  const double filterscale = std::max(scale, 1.0);
  const double support = 1.0 * filterscale;
  Coefficients c;
  c.ksize = static_cast<int>(std::ceil(support)) * 2 + 1;
  c.bounds.resize(2 * out_size);
  c.kk.assign(static_cast<size_t>(out_size) * c.ksize, 0);
  std::vector<double> k(c.ksize);
  for (int xx = 0; xx < out_size; ++xx) {
    const double center = (xx + 0.5) * scale;
    double ww = 0.0;
    const double ss = 1.0 / filterscale;
    int xmin = static_cast<int>(center - support + 0.5);
    if (xmin < 0) xmin = 0;
    int xmax = static_cast<int>(center + support + 0.5);
    if (xmax > in_size) xmax = in_size;
    xmax -= xmin;
    for (int x = 0; x < xmax; ++x) {
      double t = (x + xmin - center + 0.5) * ss;
      if (t < 0) t = -t;
      const double w = t < 1.0 ? 1.0 - t : 0.0;
      k[x] = w;
      ww += w;
    }
    for (int x = 0; x < c.ksize; ++x) {
      double v = x < xmax ? (ww != 0.0 ? k[x] / ww : k[x]) : 0.0;
      c.kk[static_cast<size_t>(xx) * c.ksize + x] =
          static_cast<int32_t>(v < 0 ? -0.5 + v * (1 << kPrecisionBits) : 0.5 + v * (1 << kPrecisionBits));
    }
    c.bounds[2 * xx] = xmin;
    c.bounds[2 * xx + 1] = xmax;
  }
  return c;
}

uint8_t clip8(int64_t ss) {
  const int64_t v = ss >> kPrecisionBits;
  return static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255));
}

}  // namespace

VitConfig read_vit_config(const std::filesystem::path& dir) {
  const auto file = dir / "config.json";
  if (!std::filesystem::exists(file))
    throw SetupError(
        fmt::format("{}: no config.json: expected a Hugging Face ViTForImageClassification folder "
                    "(config.json + model.safetensors)",
                    dir.string()));
  const Json j = as_setup_input([&] { return read_json_file(file); });
  VitConfig c;
  read_field(j, "hidden_size", c.hidden, file);
  read_field(j, "num_hidden_layers", c.layers, file);
  read_field(j, "num_attention_heads", c.heads, file);
  read_field(j, "intermediate_size", c.intermediate, file);
  read_field(j, "image_size", c.image, file);
  read_field(j, "patch_size", c.patch, file);
  read_field(j, "num_channels", c.channels, file);
  read_field(j, "layer_norm_eps", c.layer_norm_eps, file);
  read_field(j, "hidden_act", c.hidden_act, file);
  if (c.hidden_act != "gelu" && c.hidden_act != "gelu_new" && c.hidden_act != "gelu_pytorch_tanh")
    throw SetupError(fmt::format("{}: unsupported hidden_act '{}'", file.string(), c.hidden_act));
  if (!j.contains("id2label") || !j["id2label"].is_object() || j["id2label"].empty())
    throw SetupError(fmt::format("{}: no id2label", file.string()));
  const auto& labels = j["id2label"];
  c.labels.resize(labels.size());
  for (const auto& [id, label] : labels.items()) {
    size_t index = 0;
    try {
      index = std::stoul(id);
    } catch (const std::exception&) {
      throw SetupError(fmt::format("{}: id2label key '{}' is not a number", file.string(), id));
    }
    if (index >= c.labels.size() || !label.is_string())
      throw SetupError(fmt::format("{}: id2label is not the ids 0..{}", file.string(), c.labels.size() - 1));
    c.labels[index] = label.get<std::string>();
  }
  const auto pre = dir / "preprocessor_config.json";
  if (std::filesystem::exists(pre)) {
    const Json p = as_setup_input([&] { return read_json_file(pre); });
    read_field(p, "rescale_factor", c.rescale, pre);
    read_field(p, "image_mean", c.mean, pre);
    read_field(p, "image_std", c.std, pre);
    if (p.contains("size") && p["size"].is_object()) {
      int height = c.image, width = c.image;
      read_field(p["size"], "height", height, pre);
      read_field(p["size"], "width", width, pre);
      if (height != width)
        throw SetupError(
            fmt::format("{}: size {}x{} is not square (the ViT's image is)", pre.string(), width, height));
      c.image = height;
    }
    if (p.contains("resample") && p["resample"] != 2)
      throw SetupError(fmt::format("{}: only bilinear resampling (2) is supported", pre.string()));
    if (c.mean.size() != 3 || c.std.size() != 3)
      throw SetupError(fmt::format("{}: image_mean/std need 3 values", pre.string()));
  }
  // Checked once the preprocessor's size is known: it decides the image size the patches tile.
  const auto shape_source =
      std::filesystem::exists(pre) ? fmt::format("{} and {}", file.string(), pre.string()) : file.string();
  if (c.hidden <= 0 || c.heads <= 0 || c.hidden % c.heads != 0 || c.patch <= 0 || c.image <= 0 ||
      c.image % c.patch != 0 || c.layers < 0 || c.channels != 3)
    throw SetupError(
        fmt::format("{}: unsupported ViT shape (hidden {}, heads {}, image {}, patch {}, channels {})",
                    shape_source, c.hidden, c.heads, c.image, c.patch, c.channels));
  return c;
}

Image pil_resize_bilinear(const Image& in, int width, int height) {
  PCGLAB_CHECK(in.width > 0 && in.height > 0 && width > 0 && height > 0) << "empty resize";
  const int ch = in.channels;
  const bool horizontal = width != in.width, vertical = height != in.height;
  Coefficients h = precompute(in.width, width), v = precompute(in.height, height);
  Image src = in;
  if (horizontal) {
    const int first = v.bounds[0], last = v.bounds[2 * height - 2] + v.bounds[2 * height - 1];
    if (vertical)
      for (int i = 0; i < height; ++i) v.bounds[2 * i] -= first;
    else
      PCGLAB_CHECK(first == 0 && last == in.height) << "bounds";
    Image tmp(width, last - first, ch);
    for (int yy = 0; yy < tmp.height; ++yy)
      for (int xx = 0; xx < width; ++xx) {
        const int xmin = h.bounds[2 * xx], xmax = h.bounds[2 * xx + 1];
        const int32_t* k = &h.kk[static_cast<size_t>(xx) * h.ksize];
        for (int c = 0; c < ch; ++c) {
          int64_t ss = 1 << (kPrecisionBits - 1);
          for (int x = 0; x < xmax; ++x) ss += static_cast<int64_t>(in.at(x + xmin, yy + first)[c]) * k[x];
          tmp.at(xx, yy)[c] = clip8(ss);
        }
      }
    src = std::move(tmp);
  }
  if (!vertical) return src;
  Image out(width, height, ch);
  for (int yy = 0; yy < height; ++yy) {
    const int ymin = v.bounds[2 * yy], ymax = v.bounds[2 * yy + 1];
    const int32_t* k = &v.kk[static_cast<size_t>(yy) * v.ksize];
    for (int xx = 0; xx < width; ++xx)
      for (int c = 0; c < ch; ++c) {
        int64_t ss = 1 << (kPrecisionBits - 1);
        for (int y = 0; y < ymax; ++y) ss += static_cast<int64_t>(src.at(xx, y + ymin)[c]) * k[y];
        out.at(xx, yy)[c] = clip8(ss);
      }
  }
  return out;
}

std::vector<float> vit_pixels(const Image& image, const VitConfig& config) {
  // Grey images are resized once: converting to RGB copies the value into the three channels.
  const Image base = image.channels == 1 ? image : convert_channels(image, 3);
  const Image resized = pil_resize_bilinear(base, config.image, config.image);
  const size_t plane = static_cast<size_t>(config.image) * config.image;
  std::vector<float> out(3 * plane);
  for (int c = 0; c < 3; ++c) {
    const float mean = static_cast<float>(config.mean[c]), std = static_cast<float>(config.std[c]);
    for (size_t i = 0; i < plane; ++i) {
      const uint8_t v = resized.pixels[i * resized.channels + (resized.channels == 1 ? 0 : c)];
      // HF rescales in float64 then casts to float32, then normalises in float32.
      const float rescaled = static_cast<float>(static_cast<double>(v) * config.rescale);
      out[c * plane + i] = (rescaled - mean) / std;
    }
  }
  return out;
}

VitClassifier VitClassifier::load(const std::filesystem::path& dir) {
  VitClassifier vit;
  vit.config_ = read_vit_config(dir);
  const auto& c = vit.config_;
  const auto weights = dir / "model.safetensors";
  if (!std::filesystem::exists(weights))
    throw SetupError(
        fmt::format("{}: no model.safetensors (pytorch_model.bin is not supported: convert it with "
                    "the safetensors library)",
                    dir.string()));
  const SafetensorsFile file = read_safetensors(weights);
  const int64_t H = c.hidden, I = c.intermediate, L = static_cast<int64_t>(c.labels.size());
  const int64_t tokens = static_cast<int64_t>(c.image / c.patch) * (c.image / c.patch) + 1;
  std::vector<std::pair<std::string, std::vector<int64_t>>> expected = {
      {"vit.embeddings.cls_token", {1, 1, H}},
      {"vit.embeddings.position_embeddings", {1, tokens, H}},
      {"vit.embeddings.patch_embeddings.projection.weight", {H, c.channels, c.patch, c.patch}},
      {"vit.embeddings.patch_embeddings.projection.bias", {H}},
      {"vit.layernorm.weight", {H}},
      {"vit.layernorm.bias", {H}},
      {"classifier.weight", {L, H}},
      {"classifier.bias", {L}}};
  for (int i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("vit.encoder.layer.{}.", i);
    for (const char* n : {"attention.attention.query", "attention.attention.key", "attention.attention.value",
                          "attention.output.dense"}) {
      expected.push_back({p + n + ".weight", {H, H}});
      expected.push_back({p + n + ".bias", {H}});
    }
    for (const char* n : {"layernorm_before", "layernorm_after"}) {
      expected.push_back({p + n + ".weight", {H}});
      expected.push_back({p + n + ".bias", {H}});
    }
    expected.push_back({p + "intermediate.dense.weight", {I, H}});
    expected.push_back({p + "intermediate.dense.bias", {I}});
    expected.push_back({p + "output.dense.weight", {H, I}});
    expected.push_back({p + "output.dense.bias", {H}});
  }
  std::vector<PcglabTensorView> views;
  for (const auto& [name, shape] : expected) {
    const Tensor& t = file.get(name, shape);
    views.push_back({name.c_str(), static_cast<int>(t.shape.size()), t.shape.data(), t.values.data()});
  }
  const PcglabVitConfig pc{c.hidden,         c.layers,
                           c.heads,          c.intermediate,
                           c.image,          c.patch,
                           c.channels,       static_cast<int>(L),
                           c.layer_norm_eps, c.hidden_act == "gelu" ? 0 : 1};
  const auto& table = torch_table<PcglabNnTorchTable>("nn", PCGLAB_NN_TORCH_ABI);
  vit.handle_ =
      TorchHandle(table.vit_create(&pc, views.data(), static_cast<int>(views.size())), table.vit_destroy);
  return vit;
}

void VitClassifier::forward(const float* pixels, size_t n, std::vector<float>& logits,
                            std::vector<float>* cls) const {
  logits.assign(n * config_.labels.size(), 0.0f);
  if (cls != nullptr) cls->assign(n * config_.hidden, 0.0f);
  if (n == 0) return;
  TorchError error;
  const int rc = torch_table<PcglabNnTorchTable>("nn", PCGLAB_NN_TORCH_ABI)
                     .vit_forward(handle_.get(), pixels, static_cast<int64_t>(n), logits.data(),
                                  cls != nullptr ? cls->data() : nullptr, error.text, sizeof error.text);
  if (rc != 0) throw std::runtime_error(fmt::format("ViT forward pass failed: {}", error.text));
}

void write_random_vit(const std::filesystem::path& dir, VitConfig c, uint64_t seed) {
  if (c.labels.empty())
    for (char ch = 'A'; ch <= 'Z'; ++ch) c.labels.emplace_back(1, ch);
  Json config = {{"architectures", {"ViTForImageClassification"}},
                 {"model_type", "vit"},
                 {"hidden_size", c.hidden},
                 {"num_hidden_layers", c.layers},
                 {"num_attention_heads", c.heads},
                 {"intermediate_size", c.intermediate},
                 {"image_size", c.image},
                 {"patch_size", c.patch},
                 {"num_channels", c.channels},
                 {"layer_norm_eps", c.layer_norm_eps},
                 {"hidden_act", c.hidden_act},
                 {"qkv_bias", true}};
  for (size_t i = 0; i < c.labels.size(); ++i) config["id2label"][std::to_string(i)] = c.labels[i];
  write_json_file(dir / "config.json", config);
  Rng rng(seed);
  std::map<std::string, Tensor> t;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, double mean, double std) {
    Tensor x{std::move(shape), {}};
    x.values.resize(static_cast<size_t>(x.numel()));
    for (float& v : x.values) v = static_cast<float>(mean + std * rng.normal());
    t.emplace(name, std::move(x));
  };
  const int64_t H = c.hidden, I = c.intermediate, L = static_cast<int64_t>(c.labels.size());
  const int64_t tokens = static_cast<int64_t>(c.image / c.patch) * (c.image / c.patch) + 1;
  add("vit.embeddings.cls_token", {1, 1, H}, 0, 0.02);
  add("vit.embeddings.position_embeddings", {1, tokens, H}, 0, 0.02);
  add("vit.embeddings.patch_embeddings.projection.weight", {H, c.channels, c.patch, c.patch}, 0, 0.02);
  add("vit.embeddings.patch_embeddings.projection.bias", {H}, 0, 0.02);
  add("vit.layernorm.weight", {H}, 1, 0.02);
  add("vit.layernorm.bias", {H}, 0, 0.02);
  add("classifier.weight", {L, H}, 0, 0.02);
  add("classifier.bias", {L}, 0, 0.02);
  for (int i = 0; i < c.layers; ++i) {
    const std::string p = fmt::format("vit.encoder.layer.{}.", i);
    for (const char* n : {"attention.attention.query", "attention.attention.key", "attention.attention.value",
                          "attention.output.dense"}) {
      add(p + n + ".weight", {H, H}, 0, 0.02);
      add(p + n + ".bias", {H}, 0, 0.02);
    }
    for (const char* n : {"layernorm_before", "layernorm_after"}) {
      add(p + n + ".weight", {H}, 1, 0.02);
      add(p + n + ".bias", {H}, 0, 0.02);
    }
    add(p + "intermediate.dense.weight", {I, H}, 0, 0.02);
    add(p + "intermediate.dense.bias", {I}, 0, 0.02);
    add(p + "output.dense.weight", {H, I}, 0, 0.02);
    add(p + "output.dense.bias", {H}, 0, 0.02);
  }
  write_safetensors(dir / "model.safetensors", t);
}

std::vector<float> softmax_rows(const std::vector<float>& logits, size_t width) {
  std::vector<float> out(logits.size());
  for (size_t r = 0; r + width <= logits.size(); r += width) {
    const float m = *std::max_element(logits.begin() + static_cast<std::ptrdiff_t>(r),
                                      logits.begin() + static_cast<std::ptrdiff_t>(r + width));
    double sum = 0;
    for (size_t i = 0; i < width; ++i) sum += std::exp(static_cast<double>(logits[r + i] - m));
    for (size_t i = 0; i < width; ++i)
      out[r + i] = static_cast<float>(std::exp(static_cast<double>(logits[r + i] - m)) / sum);
  }
  return out;
}

}  // namespace pcglab::nn
