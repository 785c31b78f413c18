#include "birds/simulate_pipeline.h"

#include <cmath>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "birds/level_xml.h"
#include "birds/text_pipeline.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"
#include "core/version.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

namespace {

using Images = std::vector<std::pair<std::string, std::string>>;  // file suffix, PNG bytes

// A simulated level's result and images, shared by identical level files.
struct Simulated {
  StabilityResult result;
  Images images;
};

std::string settings_of(const SimulateOptions& o) {
  const auto& s = o.stability;
  return fmt::format("simulate {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}", static_cast<int>(s.metric),
                     s.duration, s.step, s.velocity_iterations, s.position_iterations, s.movement_threshold,
                     s.early_stop, s.damage, s.destroy_delay, s.world_half_width, s.settle_time,
                     o.write_images, o.write_raw_images, o.png_compression, kVersion);
}

// The level's error: reader errors name the file already; others get it in front.
ItemOutcome level_failure(const fs::path& path, const std::string& what) {
  return ItemOutcome::failure("", ErrorKind::kBadInput,
                              what.rfind(path.string(), 0) == 0 ? what : path.string() + ": " + what);
}

// Parses (from `bytes`, or the file when null) and simulates one level, and encodes its images.
Result<Simulated> simulate_bytes(const fs::path& path, const std::string* bytes,
                                 const SimulateOptions& options, bool images) {
  Level level;
  try {
    level = bytes != nullptr ? parse_level_xml(*bytes, path.string()) : read_level_file(path);
  } catch (const InputError& e) {  // unreadable or malformed: this level's error
    return ItemError{"", e.what()};
  }
  check_simulable(level);  // ItemFailure: this level's error (run_item keeps its message)
  Simulated out;
  out.result = evaluate_stability(level, options.stability);
  if (images && options.write_images) {
    out.images.emplace_back(".png",
                            encode_png(render_ocr_image(out.result.final_level), options.png_compression));
    if (options.write_raw_images) {
      out.images.emplace_back(
          "_raw.png", encode_png(render_colour_image(out.result.final_level), options.png_compression));
    }
  }
  return out;
}

// Writes the images of a simulated level as <stem><suffix> in `dir`; the outcome of the level.
ItemOutcome finish_level(const fs::path& path, const Simulated& s, const fs::path& dir,
                         const std::string& stem) {
  try {
    for (const auto& [suffix, png] : s.images) write_file_atomic(dir / (stem + suffix), png);
  } catch (const SetupError& e) {  // names the file
    return ItemOutcome::failure("", ErrorKind::kIo, path.string() + ": " + e.what());
  }
  return ItemOutcome::success("", stability_metadata(s.result));
}

ItemOutcome simulate_one(const fs::path& path, const std::string* bytes, const fs::path& image_dir,
                         const SimulateOptions& options) {
  auto r = run_item(path.string(), [&] { return simulate_bytes(path, bytes, options, !image_dir.empty()); });
  if (!r.ok()) return level_failure(path, r.error().message);
  return finish_level(path, r.value(), image_dir, path.stem().string());
}

}  // namespace

OrderedJson stability_metadata(const StabilityResult& r) {
  return {{"score", static_cast<double>(r.score)},
          {"startingObjects", r.starting_objects},
          {"movingObjects", r.moving_objects},
          {"remainingObjects", r.remaining_objects},
          {"steps", r.steps},
          {"objects", object_outcomes_json(r)}};
}

ItemOutcome simulate_level_file(const fs::path& path, const fs::path& image_dir,
                                const SimulateOptions& options) {
  return simulate_one(path, nullptr, image_dir, options);
}

std::string stability_json(const std::vector<StabilityRaw>& levels, StabilityMetric metric) {
  OrderedJson raws = OrderedJson::array();
  float rate = 0;
  for (const StabilityRaw& l : levels) {
    OrderedJson raw = {{"tag", l.tag}, {"score", static_cast<double>(l.score)}};
    if (metric == StabilityMetric::kMoving) {
      raw["startingObjects"] = l.starting_objects;
      raw["movingObjects"] = l.moving_objects;
    }
    raws.push_back(raw);
    rate += l.score;
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

namespace {

// Per team and character: the official stability files (and no file for a character with no
// level left); per team: the log of every level.
void write_simulate_aggregates(const fs::path& root, const std::map<std::string, fs::path>& team_dirs,
                               const std::vector<ItemOutcome>& outcomes, StabilityMetric metric) {
  std::map<std::pair<std::string, std::string>, std::vector<StabilityRaw>> by_character;
  std::map<std::string, OrderedJson> logs;
  for (const auto& [team, dir] : team_dirs) logs[team] = OrderedJson::array();
  for (const ItemOutcome& o : outcomes) {
    const TrialKey k = parse_trial_key(o.key);
    const fs::path& team_dir = team_dirs.at(k.team);
    auto& list = by_character[{k.team, k.character}];
    OrderedJson entry = {{"character", k.character}, {"level", k.stem}, {"status", o.ok() ? "ok" : "error"}};
    if (o.ok()) {
      const fs::path level = stage_path(team_dir, "levels", k.character, k.stem, ".xml");
      std::error_code ec;
      const fs::path rel = fs::relative(level, root, ec);
      list.push_back({(ec ? level : rel).generic_string(),
                      static_cast<float>(o.metadata["score"].get<double>()),
                      o.metadata["startingObjects"].get<int>(), o.metadata["movingObjects"].get<int>()});
      for (const char* field :
           {"score", "startingObjects", "movingObjects", "remainingObjects", "steps", "objects"})
        entry[field] = o.metadata[field];
    } else {
      entry["error"] = o.message;
    }
    logs[k.team].push_back(entry);
  }
  for (const auto& [team, dir] : team_dirs) {
    std::set<std::string> written;
    for (const auto& [key, list] : by_character) {
      if (key.first != team) continue;
      write_file_if_changed(dir / "stability" / (key.second + ".json"), stability_json(list, metric));
      written.insert(key.second + ".json");
    }
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir / "stability", ec)) {
      const std::string name = e.path().filename().string();
      if (name.size() == 6 && name[0] >= 'A' && name[0] <= 'Z' && name.ends_with(".json") &&
          !written.count(name))
        fs::remove(e.path(), ec);
    }
    const fs::path log = dir / "logs" / "simulate.json";
    if (logs[team].empty()) {
      fs::remove(log, ec);
    } else {
      write_file_if_changed(log, dump_json(logs[team], 2) + "\n");
    }
  }
}

}  // namespace

batch::StageRun simulate_stage(batch::Driver& driver, const std::vector<fs::path>& teams,
                               const SimulateOptions& options, const fs::path& folder) {
  struct Work {
    fs::path team_dir;
    TrialFile file;
    std::optional<std::string> bytes;
  };
  std::vector<Work> work;
  std::map<std::string, fs::path> team_dirs;
  batch::StageSpec spec;
  spec.name = "simulate";
  const std::string settings = settings_of(options);
  std::map<std::string, int> copies;  // hash -> items of this shard with those bytes
  for (const fs::path& team : teams) {
    team_dirs[team_name_of(team)] = team;
    spec.output_dirs.push_back(team / "images");
    spec.output_dirs.push_back(team / "stability");
    for (TrialFile& f : list_stage_files(team, "levels", ".xml")) {
      batch::Item item;
      item.key = trial_key(f.team, f.character, f.stem);
      Work w{team, std::move(f), std::nullopt};
      if (driver.shard().owns(item.key)) {
        try {
          w.bytes = read_file(w.file.path);
          item.hash = batch::ContentHash().add(settings).add(*w.bytes).hex();
          ++copies[item.hash];
        } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
        }
      }
      const fs::path images = team / "images" / w.file.character;
      item.outputs = {images / (w.file.stem + ".png")};
      if (options.write_raw_images) item.outputs.push_back(images / (w.file.stem + "_raw.png"));
      spec.items.push_back(std::move(item));
      work.push_back(std::move(w));
    }
  }
  // Identical level files (models often repeat a level across trials) are simulated once: the
  // simulation is deterministic, so every copy gets the same result and the same image bytes.
  std::mutex mutex;
  std::map<std::string, std::shared_future<std::shared_ptr<const Simulated>>> simulated;
  auto shared_simulation = [&](size_t i) -> std::shared_ptr<const Simulated> {
    const std::string& hash = spec.items[i].hash;
    std::promise<std::shared_ptr<const Simulated>> promise;
    std::shared_future<std::shared_ptr<const Simulated>> earlier;
    {
      std::lock_guard lock(mutex);
      const auto it = simulated.find(hash);
      if (it != simulated.end()) {
        earlier = it->second;
      } else {
        simulated.emplace(hash, promise.get_future().share());
      }
    }
    if (earlier.valid()) return earlier.get();  // simulated (or being simulated) by another copy
    std::shared_ptr<const Simulated> value;
    try {
      auto r = simulate_bytes(work[i].file.path, &*work[i].bytes, options, true);
      if (r.ok()) value = std::make_shared<const Simulated>(std::move(r).value());
    } catch (...) {  // this item's error (run_item); copies simulate on their own
      promise.set_value(nullptr);
      throw;
    }
    promise.set_value(value);
    return value;
  };
  batch::StageRun run = driver.run(spec, [&](size_t i) {
    const Work& w = work[i];
    const fs::path image_dir = w.team_dir / "images" / w.file.character;
    if (w.bytes && copies[spec.items[i].hash] > 1) {
      if (auto s = shared_simulation(i)) return finish_level(w.file.path, *s, image_dir, w.file.stem);
      // The original failed: the error names the file, so let this one say its own.
    }
    return simulate_one(w.file.path, w.bytes ? &*w.bytes : nullptr, image_dir, options);
  });
  if (driver.shard().all())
    write_simulate_aggregates(folder, team_dirs, run.outcomes, options.stability.metric);
  return run;
}

}  // namespace pcglab::birds
