#include "birds/diversity.h"

#include <algorithm>
#include <cmath>

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

namespace {

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

std::vector<CharacterDiversity> compute_competition_diversity(const fs::path& dir, int configured_trials,
                                                              DiversityVectors vectors, ThreadPool& pool) {
  std::vector<fs::path> teams = find_team_folders(dir, "similarity");
  std::vector<CharacterDiversity> work;
  std::vector<size_t> team_of;  // index into teams
  for (size_t t = 0; t < teams.size(); ++t) {
    std::error_code ec;
    std::vector<fs::path> files;
    for (const auto& f : fs::directory_iterator(teams[t] / "similarity", ec))
      if (f.path().extension() == ".json" && !is_temporary_file(f.path())) files.push_back(f.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) {
      work.push_back({team_name_of(teams[t]), f.stem().string(), f, false, {}});
      team_of.push_back(t);
    }
  }
  pool.parallel_for(work.size(), [&](size_t i) {
    CharacterDiversity& d = work[i];
    const fs::path out = teams[team_of[i]] / "diversity" / d.similarity_file.filename();
    const Status s = run_item(d.similarity_file.string(), [&] {
      const auto trials = read_vectors(d.similarity_file, vectors);
      write_file_atomic(out, diversity_json(trials, diversity_of(trials, configured_trials)));
    });
    d.ok = s.ok();
    if (!d.ok) {
      // The message of a read or parse error names the file already.
      const std::string& m = s.error().message;
      d.error = m.find(d.similarity_file.string()) == std::string::npos ? s.error().describe() : m;
      std::error_code ec;
      fs::remove(out, ec);  // a diversity of an earlier, different similarity file
    }
  });
  for (size_t t = 0; t < teams.size(); ++t) {
    OrderedJson log = {{"characters", 0}, {"failures", OrderedJson::array()}};
    size_t count = 0;
    for (size_t i = 0; i < work.size(); ++i) {
      if (team_of[i] != t) continue;
      ++count;
      if (!work[i].ok)
        log["failures"].push_back({{"character", work[i].character},
                                   {"file", work[i].similarity_file.string()},
                                   {"error", work[i].error}});
    }
    log["characters"] = count;
    write_json_file(teams[t] / "logs" / "diversity.json", log);
  }
  return work;
}

}  // namespace pcglab::birds
