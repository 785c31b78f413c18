// pcglab's evaluator against the official Science Birds Evaluator's own outputs: 150 levels with
// the stability JSON and classifier images it committed (reference data outside the repository:
// shared/data/official-evaluator/README.md), and the sample stability.json that its earlier
// version (the "remaining objects" metric) wrote. Skipped when that data is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "birds/capture.h"
#include "birds/level_xml.h"
#include "birds/stability.h"
#include "core/image.h"
#include "core/json.h"
#include "core/thread_pool.h"
#include "testing/testing.h"

namespace pcglab::birds {
namespace {
namespace fs = std::filesystem;

struct OfficialLevel {
  std::string name;  // "v1/L/V1_L_1"
  fs::path level;
  fs::path image;
  int starting = 0;
  int moving = 0;
  float score = 0;
};

std::vector<OfficialLevel> official_levels(const fs::path& root) {
  std::vector<OfficialLevel> out;
  for (const char* v : {"v1", "v2", "v3", "v4", "v5"}) {
    for (const char* c : {"I", "L", "U"}) {
      const Json j = read_json_file(root / v / "stability" / (std::string(c) + ".json"));
      for (const Json& raw : j["raws"]) {
        const std::string tag = raw["tag"];  // competition\v1\levels\L\V1_L_1.xml
        const std::string file = tag.substr(tag.rfind('\\') + 1);
        const std::string stem = fs::path(file).stem().string();
        out.push_back({fmt::format("{}/{}/{}", v, c, stem), root / v / "levels" / c / file,
                       root / v / "images" / c / (stem + ".png"), raw["startingObjects"].get<int>(),
                       raw["movingObjects"].get<int>(), raw["score"].get<float>()});
      }
    }
  }
  return out;
}

struct Outcome {
  StabilityResult result;
  Image image;
};

// Every official level simulated and captured once, in parallel (deterministic on any thread count).
const std::vector<Outcome>& outcomes(const std::vector<OfficialLevel>& levels) {
  static const std::vector<Outcome> all = [&] {
    ThreadPool pool(2);
    return pool.map(levels.size(), 0, [&](size_t i, uint64_t) {
      Outcome o;
      o.result = evaluate_stability(read_level_file(levels[i].level));
      o.image = render_ocr_image(o.result.final_level);
      return o;
    });
  }();
  return all;
}

TEST(OfficialEvaluator, SameStabilityAsItsOwnOutputOn149Of150Levels) {
  PCGLAB_REQUIRE_SHARED_DATA(root, "official-evaluator");
  const auto levels = official_levels(root);
  ASSERT_EQ(levels.size(), 150u);
  const auto& got = outcomes(levels);
  std::vector<std::string> differ, best_of_three;
  for (size_t i = 0; i < levels.size(); ++i) {
    const OfficialLevel& off = levels[i];
    const StabilityResult& r = got[i].result;
    EXPECT_EQ(r.starting_objects, off.starting) << off.name;
    // The counts come from the evaluator's last run, the score is the best of its runs (3, stopping
    // at 1.0), stored as the float nearest to 1 - moving/total.
    const auto last_run_score = static_cast<float>(1.0 - static_cast<double>(off.moving) / off.starting);
    EXPECT_GE(off.score, last_run_score) << off.name;
    if (off.score != last_run_score) best_of_three.push_back(off.name);
    if (r.moving_objects == off.moving) {
      EXPECT_EQ(r.score, last_run_score) << off.name;  // to the bit
    } else {
      differ.push_back(
          fmt::format("{} (official {} moving, pcglab {})", off.name, off.moving, r.moving_objects));
    }
  }
  // The one known difference, V4_U_9: two blocks fall 3.6 onto a post and pcglab's post dies from
  // the two impacts (about 4 each against a life of 5); Unity's runs vary (see below).
  EXPECT_LE(differ.size(), 1u) << fmt::format("{}", fmt::join(differ, "; "));
  // Unity's runs of one level differ: V3_L_3's last run had 4 of 4 blocks moving (as pcglab has),
  // an earlier one 2 of 4 (its score, 0.5).
  EXPECT_EQ(best_of_three, std::vector<std::string>{"v3/L/V3_L_3"});
}

// Share of pixels darker than mid-grey in either image that are dark in both.
double dark_iou(const Image& a, const Image& b) {
  size_t both = 0, either = 0;
  for (int y = 0; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) {
      const bool da = a.at(x, y)[0] < 128, db = b.at(x, y)[0] < 128;
      both += da && db;
      either += da || db;
    }
  }
  return either == 0 ? 1.0 : static_cast<double>(both) / static_cast<double>(either);
}

double mean_abs_diff(const Image& a, const Image& b) {
  double sum = 0;
  for (int y = 0; y < a.height; ++y) {
    for (int x = 0; x < a.width; ++x) sum += std::abs(int(a.at(x, y)[0]) - int(b.at(x, y)[0]));
  }
  return sum / (static_cast<double>(a.width) * a.height);
}

TEST(OfficialEvaluator, ImagesMatchItsCaptures) {
  PCGLAB_REQUIRE_SHARED_DATA(root, "official-evaluator");
  const auto levels = official_levels(root);
  const auto& got = outcomes(levels);
  std::vector<double> ious;
  int still = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    const Image official = read_png(levels[i].image);
    ASSERT_EQ(official.width, 1024);
    ASSERT_EQ(official.height, 1024);
    const Image& mine = got[i].image;
    ASSERT_EQ(mine.width, 1024);
    const double iou = dark_iou(official, mine);
    ious.push_back(iou);
    if (levels[i].moving == 0) {
      // Nothing moved in the evaluator: the same blocks in the same frame, edges within a pixel
      // (measured: IoU >= 0.980, mean |difference| <= 0.29 grey levels out of 255).
      ++still;
      EXPECT_GE(iou, 0.97) << levels[i].name;
      EXPECT_LE(mean_abs_diff(official, mine), 0.5) << levels[i].name;
    }
  }
  EXPECT_EQ(still, 117);
  // Where blocks fall, the image comes from a second simulation in the evaluator (the similarity
  // scene), whose collapse can end differently; most still agree (measured: 137 of 150 >= 0.95).
  std::sort(ious.begin(), ious.end());
  EXPECT_GE(ious[ious.size() / 2], 0.99);
  EXPECT_GE(ious.end() - std::lower_bound(ious.begin(), ious.end(), 0.95), 135);
}

TEST(OfficialEvaluator, SampleStabilityJsonIsTheRemainingObjectsMetricOfItsVersion) {
  // shared/data/science-birds-levels/stability.json was written at cd8486e, whose score was
  // (objects still present after 10 s) / (objects at the start). pcglab's kRemaining reproduces
  // every score in it to the float; the moving metric of 84df32e onwards gives V1_L_1 and V1_L_5
  // the numbers that version itself wrote for them (v1/stability/L.json: 4 and 1 of 6 moving).
  PCGLAB_REQUIRE_SHARED_DATA(dir, "science-birds-levels");
  const Json j = read_json_file(dir / "stability.json");
  ASSERT_EQ(j["raws"].size(), 5u);
  StabilityConfig remaining;
  remaining.metric = StabilityMetric::kRemaining;
  float rate = 0;
  for (const Json& raw : j["raws"]) {
    const std::string tag = raw["tag"];
    const std::string file = tag.substr(tag.rfind('\\') + 1);
    const StabilityResult r = evaluate_stability(read_level_file(dir / file), remaining);
    EXPECT_EQ(r.score, raw["score"].get<float>()) << file;
    rate += r.score;
  }
  EXPECT_EQ(rate / 5.0f, j["rate"].get<float>());
  const StabilityResult v1 = evaluate_stability(read_level_file(dir / "V1_L_1.xml"), remaining);
  EXPECT_EQ(v1.remaining_objects, 4);  // "4 of 6 blocks still" there
  EXPECT_EQ(v1.moving_objects, 4);
  const StabilityResult v5 = evaluate_stability(read_level_file(dir / "V1_L_5.xml"));
  EXPECT_EQ(v5.moving_objects, 1);  // the floating b31 falls but survives
  EXPECT_EQ(v5.remaining_objects, 6);
}

}  // namespace
}  // namespace pcglab::birds
