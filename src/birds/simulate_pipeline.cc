#include "birds/simulate_pipeline.h"

#include <cmath>
#include <functional>
#include <map>
#include <string_view>
#include <unordered_map>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/level_xml.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

using Images = std::vector<std::pair<std::string, std::string>>;  // file suffix, PNG bytes

void write_images(const Images& images, const fs::path& dir, const std::string& stem) {
  for (const auto& [suffix, png] : images) write_file_atomic(dir / (stem + suffix), png);
}

// The item boundary of every level: `work` fills `out` and returns the level's expected failures;
// anything it throws (but a SetupError) is the level's error too. Errors name the file.
LevelSimulation as_level_item(const fs::path& path, LevelSimulation out,
                              const std::function<Status(LevelSimulation&)>& work) {
  const Status s = run_item(path.string(), [&] { return work(out); });
  out.ok = s.ok();
  if (!s.ok()) {
    const std::string& what = s.error().message;  // reader errors name the file already
    out.error = what.rfind(path.string(), 0) == 0 ? what : path.string() + ": " + what;
  }
  return out;
}

// A SetupError from writing a file (it names the file) as the level's error.
Status write_level_images(const Images& images, const fs::path& dir, const std::string& stem) {
  try {
    write_images(images, dir, stem);
  } catch (const SetupError& e) {
    return ItemError{"", e.what()};
  }
  return ok_status();
}

// Parses (from `bytes`, or the file when null), simulates and writes the images of one level
// (none when `image_dir` is empty); `images` receives their bytes for copies.
LevelSimulation simulate_one(const fs::path& path, const std::string* bytes, const fs::path& image_dir,
                             const SimulateOptions& options, Images* images) {
  LevelSimulation start;
  start.stem = path.stem().string();
  start.tag = path.string();
  return as_level_item(path, std::move(start), [&](LevelSimulation& out) -> Status {
    Level level;
    try {
      level = bytes != nullptr ? parse_level_xml(*bytes, path.string()) : read_level_file(path);
    } catch (const InputError& e) {  // unreadable or malformed: this level's error
      return ItemError{"", e.what()};
    }
    if (Status simulable = check_simulable(level); !simulable.ok()) return simulable;
    out.result = evaluate_stability(level, options.stability);
    if (image_dir.empty() || !options.write_images) return ok_status();
    Images encoded{{".png", encode_png(render_ocr_image(out.result.final_level), options.png_compression)}};
    if (options.write_raw_images) {
      encoded.emplace_back("_raw.png",
                           encode_png(render_colour_image(out.result.final_level), options.png_compression));
    }
    Status written = write_level_images(encoded, image_dir, out.stem);
    if (images != nullptr) *images = std::move(encoded);
    return written;
  });
}

}  // namespace

LevelSimulation simulate_level_file(const fs::path& path, const fs::path& image_dir,
                                    const SimulateOptions& options) {
  return simulate_one(path, nullptr, image_dir, options, nullptr);
}

std::string stability_json(const std::vector<const LevelSimulation*>& levels, StabilityMetric metric) {
  OrderedJson raws = OrderedJson::array();
  float rate = 0;
  for (const LevelSimulation* l : levels) {
    OrderedJson raw = {{"tag", l->tag}, {"score", static_cast<double>(l->result.score)}};
    if (metric == StabilityMetric::kMoving) {
      raw["startingObjects"] = l->result.starting_objects;
      raw["movingObjects"] = l->result.moving_objects;
    }
    raws.push_back(raw);
    rate += l->result.score;
  }
  OrderedJson j;
  j["dataCount"] = levels.size();
  j["rate"] = levels.empty() ? 0.0 : static_cast<double>(rate / static_cast<float>(levels.size()));
  j["raws"] = raws;
  return dump_json(j, 4) + "\n";
}

OrderedJson object_outcomes_json(const StabilityResult& result) {
  OrderedJson out = OrderedJson::array();
  for (const ObjectOutcome& o : result.objects) {
    out.push_back({{"kind", o.kind},
                   {"index", o.index},
                   {"type", o.type},
                   {"start", {o.start_x, o.start_y}},
                   {"end", {o.end_x, o.end_y, o.end_rotation}},
                   {"displacement", std::hypot(o.end_x - o.start_x, o.end_y - o.start_y)},
                   {"moved", o.moved},
                   {"destroyed", o.destroyed},
                   {"destroyedAt", o.destroyed ? Json(o.destroyed_time) : Json()},
                   {"removed", o.removed}});
  }
  return out;
}

std::vector<LevelSimulation> simulate_competition(
    const fs::path& dir, const SimulateOptions& options, ThreadPool& pool,
    const std::function<void(const LevelSimulation&)>& on_done) {
  struct Work {
    fs::path team_dir;
    TrialFile file;
  };
  std::vector<Work> work;
  for (const fs::path& team : find_team_folders(dir, "levels")) {
    for (TrialFile& f : list_stage_files(team, "levels", ".xml")) work.push_back({team, std::move(f)});
  }
  // Identical level files (models often repeat a level across trials) are simulated once: the
  // simulation is deterministic, so every copy gets the same result and the same image bytes.
  std::vector<std::string> bytes(work.size());
  std::vector<bool> readable(work.size(), false);
  std::vector<size_t> first(work.size());
  std::vector<bool> has_copies(work.size(), false);
  std::unordered_map<std::string_view, size_t> seen;
  for (size_t i = 0; i < work.size(); ++i) {
    first[i] = i;
    try {
      bytes[i] = read_file(work[i].file.path);
      readable[i] = true;
      first[i] = seen.emplace(bytes[i], i).first->second;
      if (first[i] != i) has_copies[first[i]] = true;
    } catch (const InputError&) {  // unreadable: simulate_one records why
    }
  }
  std::vector<size_t> unique;
  for (size_t i = 0; i < work.size(); ++i) {
    if (first[i] == i) unique.push_back(i);
  }
  std::vector<LevelSimulation> results(work.size());
  std::vector<Images> images(work.size());  // kept only for levels that have copies
  auto image_dir = [&](size_t i) { return work[i].team_dir / "images" / work[i].file.character; };
  auto finish = [&](size_t i, LevelSimulation r) {
    r.team = work[i].file.team;
    r.character = work[i].file.character;
    r.tag = fs::relative(work[i].file.path, dir).generic_string();
    results[i] = std::move(r);
    if (on_done) on_done(results[i]);
  };
  pool.parallel_for(unique.size(), [&](size_t k) {
    const size_t i = unique[k];
    finish(i, simulate_one(work[i].file.path, readable[i] ? &bytes[i] : nullptr, image_dir(i), options,
                           has_copies[i] ? &images[i] : nullptr));
  });
  for (size_t i = 0; i < work.size(); ++i) {
    if (first[i] == i) continue;
    const LevelSimulation& original = results[first[i]];
    if (!original.ok) {  // the error names the file: let this one say its own
      finish(i, simulate_one(work[i].file.path, &bytes[i], image_dir(i), options, nullptr));
      continue;
    }
    LevelSimulation copy = original;
    copy.stem = work[i].file.path.stem().string();
    copy = as_level_item(work[i].file.path, std::move(copy), [&](LevelSimulation& out) {
      return write_level_images(images[first[i]], image_dir(i), out.stem);
    });
    finish(i, std::move(copy));
  }
  // Per team and character: the stability JSON; per team: the log of every level.
  std::map<std::pair<std::string, std::string>, std::vector<const LevelSimulation*>> by_character;
  std::map<std::string, OrderedJson> logs;
  std::map<std::string, fs::path> team_dirs;
  for (size_t i = 0; i < work.size(); ++i) {
    const LevelSimulation& r = results[i];
    team_dirs[r.team] = work[i].team_dir;
    auto& list = by_character[{r.team, r.character}];
    if (r.ok) list.push_back(&r);
    OrderedJson entry = {{"character", r.character}, {"level", r.stem}, {"status", r.ok ? "ok" : "error"}};
    if (r.ok) {
      entry["score"] = static_cast<double>(r.result.score);
      entry["startingObjects"] = r.result.starting_objects;
      entry["movingObjects"] = r.result.moving_objects;
      entry["remainingObjects"] = r.result.remaining_objects;
      entry["steps"] = r.result.steps;
      entry["objects"] = object_outcomes_json(r.result);
    } else {
      entry["error"] = r.error;
    }
    logs[r.team].push_back(entry);
  }
  for (const auto& [key, list] : by_character) {
    write_file_atomic(team_dirs[key.first] / "stability" / (key.second + ".json"),
                      stability_json(list, options.stability.metric));
  }
  for (const auto& [team, entries] : logs)
    write_json_file(team_dirs[team] / "logs" / "simulate.json", entries);
  return results;
}

}  // namespace pcglab::birds
