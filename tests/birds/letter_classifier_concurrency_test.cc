// The built-in classifier shared by many threads (generator workers, birds classify): scores of an
// image depend only on that image, never on the other images of the call, their order, the pool's
// threads or libtorch's, and concurrent calls on one model give the same bits.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include "birds/letters/letter_classifier.h"
#include "core/rng.h"
#include "core/thread_pool.h"
#include "nn/torch_runtime.h"

namespace pcglab::birds {
using nn::set_torch_threads;
namespace {

// Level-like pictures: white, with dark blocks in random places (as `bench classifier` draws).
std::vector<Image> level_images(size_t n, uint64_t seed) {
  Rng rng(seed);
  std::vector<Image> out;
  for (size_t i = 0; i < n; ++i) {
    Image im(1024, 1024, 1, 255);
    const int blocks = 3 + static_cast<int>(rng.below(20));
    for (int b = 0; b < blocks; ++b) {
      const int x0 = 100 + static_cast<int>(rng.below(700)), y0 = 100 + static_cast<int>(rng.below(700));
      const int w = 20 + static_cast<int>(rng.below(120)), h = 20 + static_cast<int>(rng.below(120));
      for (int y = y0; y < std::min(y0 + h, 924); ++y) {
        for (int x = x0; x < std::min(x0 + w, 924); ++x) *im.at(x, y) = static_cast<uint8_t>(rng.below(60));
      }
    }
    out.push_back(std::move(im));
  }
  return out;
}

void expect_same_bits(const std::vector<LetterScores>& got, const std::vector<size_t>& which,
                      const std::vector<LetterScores>& alone, const std::string& what) {
  ASSERT_EQ(got.size(), which.size()) << what;
  for (size_t k = 0; k < which.size(); ++k) {
    ASSERT_FALSE(got[k].failure) << what << ": " << got[k].failure->what();
    // operator== on floats: bit-identical here (no NaN); a 1e-8 difference fails.
    ASSERT_EQ(got[k].probabilities, alone[which[k]].probabilities) << what << ", image " << which[k];
  }
}

TEST(LetterClassifierConcurrency, ScoresDoNotDependOnBatchOrThreads) {
  const auto classifier = open_letter_classifier("builtin");
  const auto images = level_images(64, 7);
  set_torch_threads(1);
  std::vector<LetterScores> alone;
  for (const Image& im : images) alone.push_back(classifier->classify({im}).at(0));
  for (const int torch_threads : {1, 2}) {
    set_torch_threads(torch_threads);
    for (const int pool_threads : {1, 2}) {
      ThreadPool pool(pool_threads);
      const std::string what = fmt::format("torch threads {}, pool threads {}", torch_threads, pool_threads);
      // Each image alone, in a batch of 7 (shuffled) and in the batch of all 64.
      std::vector<size_t> all(images.size());
      for (size_t i = 0; i < all.size(); ++i) all[i] = i;
      expect_same_bits(classifier->classify(images, false, &pool), all, alone, what + ", batch of 64");
      for (size_t start = 0; start + 7 <= images.size(); start += 9) {
        std::vector<size_t> seven;
        std::vector<Image> batch;
        for (size_t k = 0; k < 7; ++k) seven.push_back((start + k * 5) % images.size());
        for (size_t i : seven) batch.push_back(images[i]);
        expect_same_bits(classifier->classify(batch, false, &pool), seven, alone, what + ", batch of 7");
      }
      expect_same_bits(classifier->classify({images[41]}, false, &pool), {41}, alone, what + ", alone");
    }
  }
  set_torch_threads(0);
}

// Generator workers classify concurrently on one model, with the caller's pool from inside its own
// items (nested parallel_for). Under ThreadSanitizer this once raced on the model's eval flag and
// error field.
TEST(LetterClassifierConcurrency, ConcurrentCallsOnOneModelAgree) {
  const auto classifier = open_letter_classifier("builtin");
  const auto images = level_images(12, 8);
  set_torch_threads(2);
  const auto serial = classifier->classify(images);
  std::vector<size_t> all(images.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::vector<LetterScores>> from_threads(4);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < from_threads.size(); ++t) {
    threads.emplace_back([&, t] { from_threads[t] = classifier->classify(images); });
  }
  for (auto& t : threads) t.join();
  for (const auto& r : from_threads) expect_same_bits(r, all, serial, "std::thread");
  ThreadPool pool(3);
  std::vector<std::vector<LetterScores>> from_items(6);
  pool.parallel_for(from_items.size(),
                    [&](size_t i) { from_items[i] = classifier->classify(images, false, &pool); });
  for (const auto& r : from_items) expect_same_bits(r, all, serial, "nested in the pool");
  set_torch_threads(0);
}

// One image that cannot be classified is that item's error; the others are scored as alone.
TEST(LetterClassifierConcurrency, AFailingImageIsAnItemError) {
  const auto classifier = open_letter_classifier("builtin");
  const auto images = level_images(2, 9);
  const auto alone = classifier->classify(images);
  ThreadPool pool(2);
  const auto scores = classifier->classify({images[0], Image(), images[1]}, false, &pool);
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_EQ(scores[0].probabilities, alone[0].probabilities);
  EXPECT_EQ(scores[2].probabilities, alone[1].probabilities);
  ASSERT_TRUE(scores[1].failure);
  EXPECT_NE(std::string(scores[1].failure->what()).find("empty image"), std::string::npos)
      << scores[1].failure->what();
  EXPECT_EQ(scores[1].failure->kind(), ErrorKind::kInternal) << "a broken invariant (PCGLAB_CHECK): a bug";
  EXPECT_EQ(scores[1].probabilities, std::vector<float>(26, 0.0f));
}

}  // namespace
}  // namespace pcglab::birds
