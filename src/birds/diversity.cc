#include "birds/diversity.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "birds/competition_layout.h"
#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"

namespace pcglab::birds {
namespace fs = std::filesystem;

double cosine_distance(const std::vector<double>& u, const std::vector<double>& v) {
  PCGLAB_CHECK(u.size() == v.size()) << "vectors of " << u.size() << " and " << v.size() << " values";
  double dot = 0, uu = 0, vv = 0;
  for (size_t i = 0; i < u.size(); ++i) {
    dot += u[i] * v[i];
    uu += u[i] * u[i];
    vv += v[i] * v[i];
  }
  if (uu == 0 || vv == 0) return 0;
  return 1.0 - dot / (std::sqrt(uu) * std::sqrt(vv));
}

DiversityResult diversity_of(const std::vector<TrialVector>& trials, int configured_trials) {
  DiversityResult out;
  double sum = 0;
  for (size_t i = 0; i < trials.size(); ++i) {
    for (size_t j = i + 1; j < trials.size(); ++j) {
      const double d = cosine_distance(trials[i].vector, trials[j].vector);
      out.pairs.push_back({trials[i].id, trials[j].id, d});
      sum += d;
    }
  }
  const double n = configured_trials;
  const double denominator = n * (n + 1) / 2 - n;
  out.rate = denominator > 0 ? sum / denominator : 0;
  return out;
}

std::vector<TrialVector> read_vectors(const fs::path& file, DiversityVectors kind) {
  const Json sim = read_json_file(file);
  std::vector<TrialVector> out;
  for (const Json& s : json_field<Json>(sim, "similarities", file.string())) {
    TrialVector t{json_field<std::string>(s, "id", file.string()), {}};
    if (kind == DiversityVectors::kClsEmbedding) {
      t.vector = json_field<std::vector<double>>(s, "cls_embedding", file.string());
    } else {
      // The 26 softmax probabilities sorted by label.
      std::vector<std::pair<std::string, double>> raws;
      for (const Json& r : json_field<Json>(s, "raws", file.string())) {
        raws.emplace_back(json_field<std::string>(r, "label", file.string()),
                          json_field<double>(r, "softmax_prob", file.string()));
      }
      std::sort(raws.begin(), raws.end());
      for (const auto& [label, p] : raws) t.vector.push_back(p);
    }
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(), [](const TrialVector& a, const TrialVector& b) {
    return trial_number_of(a.id) != trial_number_of(b.id) ? trial_number_of(a.id) < trial_number_of(b.id)
                                                          : a.id < b.id;
  });
  return out;
}

namespace {

std::string diversity_json(const std::vector<TrialVector>& trials, const DiversityResult& r) {
  OrderedJson j;
  j["count"] = trials.size();
  j["diversityRate"] = r.rate;
  j["trials"] = OrderedJson::array();
  for (const auto& t : trials) j["trials"].push_back({{"id", t.id}, {"vector", t.vector}});
  j["diversities"] = OrderedJson::array();
  for (const auto& p : r.pairs) {
    j["diversities"].push_back(
        {{"pair", {{"trial1", p.trial1}, {"trial2", p.trial2}}}, {"distance", p.distance}});
  }
  return dump_json(j, 2) + "\n";
}

}  // namespace

std::pair<std::string, std::string> parse_diversity_key(const std::string& key) {
  const size_t slash = key.rfind('/');
  PCGLAB_CHECK(slash != std::string::npos) << "not a diversity key: " << key;
  return {key.substr(0, slash), key.substr(slash + 1)};
}

batch::StageRun diversity_stage(batch::Driver& driver, const std::vector<fs::path>& teams,
                                int configured_trials, DiversityVectors vectors) {
  PCGLAB_CHECK(driver.shard().all()) << "diversity needs every image of a character: run it unsharded";
  struct Work {
    fs::path team_dir, similarity_file, out;
  };
  std::vector<Work> work;
  std::map<std::string, fs::path> team_dirs;
  batch::StageSpec spec;
  spec.name = "diversity";
  const std::string settings = fmt::format("diversity {} {}", configured_trials, static_cast<int>(vectors));
  for (const fs::path& team : teams) {
    team_dirs[team_name_of(team)] = team;
    spec.output_dirs.push_back(team / "diversity");
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(team / "similarity", ec))
      if (f.path().extension() == ".json" && !is_temporary_file(f.path())) files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      batch::Item item;
      item.key = team_name_of(team) + "/" + f.stem().string();
      try {
        item.hash = batch::ContentHash().add(settings).add(read_file(f)).hex();
      } catch (const InputError&) {  // unreadable: always run (it fails, naming why)
      }
      item.outputs = {team / "diversity" / f.filename()};
      spec.items.push_back(std::move(item));
      work.push_back({team, f, team / "diversity" / f.filename()});
    }
  }
  spec.write_log = [&](const std::vector<ItemOutcome>& outcomes) {
    std::map<std::string, OrderedJson> logs;
    std::map<std::string, size_t> counts;
    for (const auto& [team, dir] : team_dirs) logs[team] = OrderedJson::array();
    for (const ItemOutcome& o : outcomes) {
      const auto [team, character] = parse_diversity_key(o.key);
      ++counts[team];
      if (!o.ok()) {
        logs[team].push_back({{"character", character},
                              {"file", (team_dirs[team] / "similarity" / (character + ".json")).string()},
                              {"error", o.message}});
      }
    }
    for (const auto& [team, dir] : team_dirs) {
      if (!fs::is_directory(dir / "similarity")) continue;
      write_file_if_changed(
          dir / "logs" / "diversity.json",
          dump_json(OrderedJson{{"characters", counts[team]}, {"failures", logs[team]}}, 2) + "\n");
    }
  };
  return driver.run(spec, [&](size_t i) {
    const Work& w = work[i];
    const Status s = run_item(w.similarity_file.string(), [&] {
      const auto trials = read_vectors(w.similarity_file, vectors);
      write_file_atomic(w.out, diversity_json(trials, diversity_of(trials, configured_trials)));
    });
    if (s.ok()) return ItemOutcome::success("");
    std::error_code ec;
    fs::remove(w.out, ec);  // a diversity of an earlier, different similarity file
    // The message of a read or parse error names the file already.
    const std::string& m = s.error().message;
    return ItemOutcome::failure(
        "", ErrorKind::kBadInput,
        m.find(w.similarity_file.string()) == std::string::npos ? s.error().describe() : m);
  });
}

}  // namespace pcglab::birds
