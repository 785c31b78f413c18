// `pcglab bench classifier`: images per second of the letter classifiers on level-sized images
// (preprocessing included), ViT-B/16 with random weights, and this machine's float32 matmul peak.
#include <algorithm>
#include <chrono>

#include <unistd.h>
#include <filesystem>
#include "birds/letters/letter_classifier.h"
#include "command.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "nn/torch_runtime.h"
#include "nn/vit.h"

namespace pcglab::cli {
namespace {

struct ClassifierBenchOptions {
  int images = 512;
  int vit_images = 16;
  int repeats = 3;
  int matmul = 2048;
  bool no_vit = false;
  uint64_t seed = 1;
};

// A folder under the system temp dir, removed at the end.
struct ScopedTempDir {
  std::filesystem::path path_ =
      std::filesystem::temp_directory_path() / fmt::format("pcglab-bench-{}", ::getpid());
  ScopedTempDir() { std::filesystem::create_directories(path_); }
  ~ScopedTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
};

// Level-like 1024² images: black block rectangles on white.
std::vector<Image> level_images(int n, uint64_t seed) {
  std::vector<Image> out;
  Rng rng(seed);
  for (int i = 0; i < n; ++i) {
    Image im(1024, 1024, 1, 255);
    for (int b = 0; b < 15; ++b) {
      const int x0 = 100 + static_cast<int>(rng.below(700)), y0 = 100 + static_cast<int>(rng.below(700));
      for (int y = y0; y < y0 + 100; ++y)
        for (int x = x0; x < x0 + 60; ++x) *im.at(x, y) = 0;
    }
    out.push_back(std::move(im));
  }
  return out;
}

double median_rate(const birds::LetterClassifier& c, const std::vector<Image>& images, int repeats,
                   ThreadPool& pool) {
  if (images.empty() || repeats < 1)
    throw SetupError(
        fmt::format("{} images, {} repeats: at least 1 of each is needed", images.size(), repeats));
  c.classify({images.front()});  // warm-up
  std::vector<double> rates;
  for (int r = 0; r < repeats; ++r) {
    const auto start = std::chrono::steady_clock::now();
    c.classify(images, false, &pool);
    rates.push_back(images.size() /
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(rates.begin(), rates.end());
  return rates[rates.size() / 2];
}

int run_classifier_bench(const ClassifierBenchOptions& opt, const GlobalOptions& global) {
  nn::set_torch_threads(global.threads);
  const int threads = nn::torch_info().threads;
  const double peak = nn::matmul_gflops(opt.matmul, 5);
  Table t;
  t.columns = {"classifier",
               "threads",
               "images",
               "images_per_s",
               "gflop_per_image",
               "gflop_per_s",
               "fraction_of_matmul_peak"};
  const auto builtin = birds::open_letter_classifier("builtin");
  const auto images = level_images(opt.images, opt.seed);
  ThreadPool pool(global.threads);  // images are spread over --threads
  const double cnn_rate = median_rate(*builtin, images, opt.repeats, pool);
  constexpr double kCnnGflop = 0.0214;  // 21.4 MFLOP per 32×32 image (forward)
  t.add_row({"builtin-cnn", threads, opt.images, cnn_rate, kCnnGflop, cnn_rate * kCnnGflop,
             cnn_rate * kCnnGflop / peak});
  if (!opt.no_vit) {
    ScopedTempDir dir;
    nn::write_random_vit(dir.path(), nn::VitConfig{}, opt.seed);
    const auto vit = birds::open_letter_classifier(dir.path().string());
    const auto few = level_images(opt.vit_images, opt.seed + 1);
    const double vit_rate = median_rate(*vit, few, opt.repeats, pool);
    constexpr double kVitGflop = 17.6;
    t.add_row({"vit-b16 (random weights)", threads, opt.vit_images, vit_rate, kVitGflop, vit_rate * kVitGflop,
               vit_rate * kVitGflop / peak});
  }
  t.add_row({fmt::format("matmul {}x{} float32 (peak)", opt.matmul, opt.matmul), threads, Json(), Json(),
             Json(), peak, 1.0});
  print_table(t, global);
  return kExitOk;
}

Action setup_classifier_bench(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ClassifierBenchOptions>();
  cmd.add_option("--images", opt->images, "Images for the built-in CNN")
      ->check(number_in(1, 100000))
      ->capture_default_str();
  cmd.add_option("--vit-images", opt->vit_images, "Images for ViT-B/16")
      ->check(number_in(1, 10000))
      ->capture_default_str();
  cmd.add_option("--repeats", opt->repeats, "Repetitions (the median is reported)")
      ->check(number_in(1, 1000))
      ->capture_default_str();
  cmd.add_option("--matmul", opt->matmul, "Size n of the n×n float32 products that measure the peak")
      ->check(number_in(16, 16384))
      ->capture_default_str();
  cmd.add_flag("--no-vit", opt->no_vit,
               "Skip ViT-B/16 (it writes a 344 MB random checkpoint to a temp folder)");
  cmd.add_option("--seed", opt->seed, "Seed of the images and the random ViT")
      ->check(any_number<uint64_t>())
      ->capture_default_str();
  return [opt, &global] { return run_classifier_bench(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("bench", "classifier",
                        "Letter classifiers' images/s (built-in CNN, ViT-B/16) and matmul peak",
                        setup_classifier_bench);

}  // namespace pcglab::cli
