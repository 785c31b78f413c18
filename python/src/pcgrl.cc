// pcglab.pcgrl: PCGRLLM's dungeon environment as a batched vector environment with zero-copy
// observations, path-based accuracy, and LLM-style rewards run in a sandbox worker (never in this
// interpreter), calling the library functions the CLI's pcgrl verbs call.
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "bindings.h"
#include "core/thread_pool.h"
#include "pcgrl/accuracy.h"
#include "pcgrl/dungeon.h"
#include "pcgrl/llm_reward.h"

namespace pcglab::python {
namespace {
using namespace pcglab::pcgrl;
using namespace pybind11::literals;

// The most environments one DungeonVecEnv takes, as `pcglab bench pcgrl-env --envs` (memory is
// checked as well).
constexpr int kMaxEnvs = 1000000;

class DungeonVecEnv {
 public:
  DungeonVecEnv(int n_envs, uint64_t seed, int max_board_scans, bool builtin_reward, int threads)
      : seed_(seed) {
    if (n_envs < 1 || n_envs > kMaxEnvs)
      throw py::value_error(fmt::format("n_envs {} is not in 1..{}", n_envs, kMaxEnvs));
    if (max_board_scans < 1 || max_board_scans > kMaxBoardScans)
      throw py::value_error(
          fmt::format("max_board_scans {} is not in 1..{}", max_board_scans, kMaxBoardScans));
    if (threads < 1 || threads > 1024)
      throw py::value_error(fmt::format("threads {} is not in 1..1024", threads));
    config_.max_board_scans = max_board_scans;
    config_.builtin_reward = builtin_reward;
    check_fits_in_memory(BatchedDungeon::memory_bytes(n_envs), fmt::format("DungeonVecEnv({})", n_envs));
    envs_ = without_gil([&] { return std::make_shared<BatchedDungeon>(n_envs, seed, config_); });
    if (threads > 1) pool_ = std::make_unique<ThreadPool>(threads);
    actions_.resize(static_cast<size_t>(n_envs));
    dones_.resize(static_cast<size_t>(n_envs));
    rewards_.resize(static_cast<size_t>(n_envs));
    // The view keeps the environments (not this object) alive through a capsule: no reference
    // cycle, and a view outlives the env object safely.
    auto* owner = new std::shared_ptr<BatchedDungeon>(envs_);
    py::capsule base(owner, [](void* p) { delete static_cast<std::shared_ptr<BatchedDungeon>*>(p); });
    observations_ =
        py::array_t<uint8_t>({static_cast<py::ssize_t>(n_envs), py::ssize_t{kObsSize}, py::ssize_t{kObsSize}},
                             envs_->observations(), base);
    observations_.attr("setflags")("write"_a = false);
  }

  int size() const { return envs_->size(); }

  py::array reset(std::optional<uint64_t> seed) {
    if (seed) seed_ = *seed;
    without_gil([&] {
      for (int i = 0; i < envs_->size(); ++i) envs_->env(i).reset(seed_ + static_cast<uint64_t>(i));
      envs_->observe_all();
    });
    return observations_;
  }

  py::tuple step(const py::handle& actions) {
    read_actions(actions);
    without_gil([&] {
      float* rewards = rewards_.data();
      if (pool_) {
        envs_->step(*pool_, actions_.data(), dones_.data(), rewards);
      } else {
        envs_->step(actions_.data(), dones_.data(), rewards);
      }
    });
    const auto n = static_cast<py::ssize_t>(size());
    py::array_t<float> rewards(n);
    std::memcpy(rewards.mutable_data(), rewards_.data(), rewards_.size() * sizeof(float));
    py::array_t<bool> terminated(n), truncated(n);
    std::memset(terminated.mutable_data(), 0, static_cast<size_t>(n));
    static_assert(sizeof(bool) == 1);
    std::memcpy(truncated.mutable_data(), dones_.data(), dones_.size());
    py::dict infos;
    if (std::any_of(dones_.begin(), dones_.end(), [](uint8_t d) { return d != 0; })) {
      // As Gymnasium's final_observation: the levels the ended episodes built (the environments
      // have reset themselves), and which entries hold one.
      py::array_t<uint8_t> final_maps({n, py::ssize_t{kMapSize}, py::ssize_t{kMapSize}});
      for (int i = 0; i < size(); ++i) {
        std::memcpy(final_maps.mutable_data(i), envs_->env(i).last_episode_map().data(), kCells);
      }
      infos["final_map"] = final_maps;
      infos["_final_map"] = truncated;
    }
    return py::make_tuple(observations_, rewards, terminated, truncated, infos);
  }

  // The environments' current maps (a copy): (n_envs, 16, 16) tiles 0..8.
  py::array_t<uint8_t> maps() const {
    py::array_t<uint8_t> out(
        {static_cast<py::ssize_t>(size()), py::ssize_t{kMapSize}, py::ssize_t{kMapSize}});
    for (int i = 0; i < size(); ++i) std::memcpy(out.mutable_data(i), envs_->env(i).map().data(), kCells);
    return out;
  }

  py::array observations() const { return observations_; }

 private:
  // One integer action in 0..5 per environment: a sequence or an integer array of shape (n_envs,).
  void read_actions(const py::handle& object) {
    auto array = py::array::ensure(object);
    if (!array) throw py::type_error("actions: not an array or a sequence of integers");
    if (array.size() > 0 && array.dtype().kind() != 'i' && array.dtype().kind() != 'u')
      throw py::type_error(fmt::format("actions: dtype {} is not an integer type",
                                       py::str(array.dtype()).cast<std::string>()));
    if (array.ndim() != 1 || array.shape(0) != size())
      throw py::value_error(fmt::format("actions: shape {} is not ({},)",
                                        py::str(py::tuple(array.attr("shape"))).cast<std::string>(), size()));
    const auto ints = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
    if (!ints) throw py::error_already_set();
    const int64_t* a = ints.data();
    for (size_t i = 0; i < actions_.size(); ++i) {
      if (a[i] < 0 || a[i] >= kActions)
        throw py::value_error(fmt::format("actions[{}] = {} is not an action 0..{}", i, a[i], kActions - 1));
      actions_[i] = static_cast<int>(a[i]);
    }
  }

  EnvConfig config_;
  uint64_t seed_ = 0;
  std::shared_ptr<BatchedDungeon> envs_;
  std::unique_ptr<ThreadPool> pool_;
  std::vector<int> actions_;
  std::vector<uint8_t> dones_;
  std::vector<float> rewards_;
  py::array_t<uint8_t> observations_;
};

// Levels: a level file's text (as `pcglab pcgrl eval` reads it) or an integer array of shape
// (16, 16) or (n, 16, 16) with tiles 0..8.
std::vector<Map> levels_of(const py::handle& object, const char* what) {
  if (py::isinstance<py::str>(object)) {
    const std::string text = object.cast<std::string>();
    return without_gil([&] { return parse_levels(text, what); });
  }
  auto array = py::array::ensure(object);
  if (!array) throw py::type_error(fmt::format("{}: not a level file's text or an array of levels", what));
  if (array.size() > 0 && array.dtype().kind() != 'i' && array.dtype().kind() != 'u')
    throw py::type_error(
        fmt::format("{}: dtype {} is not an integer type", what, py::str(array.dtype()).cast<std::string>()));
  const bool one = array.ndim() == 2;
  if ((array.ndim() != 2 && array.ndim() != 3) || array.shape(array.ndim() - 1) != kMapSize ||
      array.shape(array.ndim() - 2) != kMapSize)
    throw py::value_error(fmt::format("{}: shape {} is not (16, 16) or (n, 16, 16)", what,
                                      py::str(py::tuple(array.attr("shape"))).cast<std::string>()));
  const auto tiles = py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!tiles) throw py::error_already_set();
  const size_t n = one ? 1 : static_cast<size_t>(array.shape(0));
  std::vector<Map> maps(n);
  const int64_t* t = tiles.data();
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < kCells; ++c) {
      const int64_t v = t[i * kCells + static_cast<size_t>(c)];
      if (v < 0 || v >= kTileTypes)
        throw py::value_error(fmt::format("{}: level {} row {} column {}: tile {} is not 0..8", what, i,
                                          c / kMapSize, c % kMapSize, v));
      maps[i][static_cast<size_t>(c)] = static_cast<uint8_t>(v);
    }
  }
  return maps;
}

double accuracy(const py::handle& levels, const std::string& scenario) {
  const auto enemies = parse_argument([&] { return parse_scenario(scenario); });
  const std::vector<Map> maps = levels_of(levels, "levels");
  if (maps.empty()) throw py::value_error("levels: no level");
  return without_gil([&] { return mean_accuracy(maps, enemies); });
}

py::list evaluate(const py::handle& levels, const std::string& scenario) {
  const auto enemies = parse_argument([&] { return parse_scenario(scenario); });
  const std::vector<Map> maps = levels_of(levels, "levels");
  const auto evaluations = without_gil([&] {
    std::vector<LevelEvaluation> out;
    for (const Map& m : maps) out.push_back(evaluate_level(m, enemies));
    return out;
  });
  py::list out;
  for (const LevelEvaluation& e : evaluations) {
    out.append(py::dict("accuracy"_a = e.accuracy, "solutions"_a = e.solutions, "playable"_a = e.playable,
                        "solvable"_a = e.solvable, "path_length"_a = e.path_length,
                        "encountered"_a = std::vector<int>(e.encountered.begin(), e.encountered.end())));
  }
  return out;
}

py::array_t<float> reward(const std::string& code, const py::handle& prev, const py::handle& curr,
                          double timeout) {
  if (!(timeout >= 0.01 && timeout <= 86400))
    throw py::value_error(fmt::format("timeout {} is not in 0.01..86400 seconds", timeout));
  const std::vector<Map> before = levels_of(prev, "prev"), after = levels_of(curr, "curr");
  if (before.size() != after.size())
    throw py::value_error(fmt::format("prev holds {} levels but curr holds {}: pair i is (prev[i], curr[i])",
                                      before.size(), after.size()));
  if (before.empty()) throw py::value_error("prev: no level");
  const std::vector<float> rewards = without_gil([&] {
    sandbox::WorkerConfig worker = default_reward_worker_config();
    worker.limits.call_timeout_s = timeout;
    SandboxReward sandboxed(code, worker);
    return sandboxed.compute(before, after);
  });
  py::array_t<float> out(static_cast<py::ssize_t>(rewards.size()));
  std::memcpy(out.mutable_data(), rewards.data(), rewards.size() * sizeof(float));
  return out;
}

py::array_t<float> expand(const py::handle& object) {
  const auto obs = py::array_t<uint8_t, py::array::c_style | py::array::forcecast>::ensure(object);
  if (!obs || obs.ndim() < 2 || obs.shape(obs.ndim() - 1) != kObsSize ||
      obs.shape(obs.ndim() - 2) != kObsSize)
    throw py::value_error("observations: not a uint8 array of shape (..., 31, 31)");
  std::vector<py::ssize_t> shape(obs.shape(), obs.shape() + obs.ndim());
  shape.push_back(kObsChannels);
  py::array_t<float> out(shape);
  const size_t n = static_cast<size_t>(obs.size()) / kCompactObsBytes;
  const uint8_t* in = obs.data();
  float* o = out.mutable_data();
  without_gil([&] {
    for (size_t i = 0; i < n; ++i)
      expand_observation(in + i * kCompactObsBytes, o + i * kCompactObsBytes * kObsChannels);
  });
  return out;
}

}  // namespace

void bind_pcgrl(py::module_& m) {
  py::class_<DungeonVecEnv>(m, "DungeonVecEnv")
      .def(py::init<int, uint64_t, int, bool, int>(), "n_envs"_a, "seed"_a = 0, "max_board_scans"_a = 3,
           "builtin_reward"_a = true, "threads"_a = 1)
      .def_property_readonly("num_envs", &DungeonVecEnv::size)
      .def("reset", &DungeonVecEnv::reset, "seed"_a = py::none())
      .def("step", &DungeonVecEnv::step, "actions"_a)
      .def_property_readonly("observations", &DungeonVecEnv::observations)
      .def("maps", &DungeonVecEnv::maps);
  m.def("accuracy", &accuracy, "levels"_a, "scenario"_a);
  m.def("evaluate", &evaluate, "levels"_a, "scenario"_a);
  m.def("reward", &reward, "code"_a, "prev"_a, "curr"_a, "timeout"_a = 5.0);
  m.def("expand_observations", &expand, "observations"_a);
  m.attr("OBS_SIZE") = kObsSize;
  m.attr("OBS_CHANNELS") = kObsChannels;
  m.attr("ACTIONS") = kActions;
  m.attr("TILE_TYPES") = kTileTypes;
  m.attr("MAP_SIZE") = kMapSize;
}

}  // namespace pcglab::python
