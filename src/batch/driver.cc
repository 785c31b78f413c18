#include "batch/driver.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <new>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "batch/merge.h"
#include "batch/stop.h"
#include "core/check.h"
#include "core/files.h"
#include "core/item_boundary.h"
#include "core/json.h"
#include "core/log.h"
#include "core/progress.h"
#include "store/run_lock.h"
#include "store/run_store.h"

namespace pcglab::batch {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kTempMarker = ".pcglab-tmp-";

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// A path as stored: relative to the root when under it (so a moved folder keeps its store).
// Compared as absolute paths, so a root given relative and an output given absolute (or the
// reverse) still store the relative path that the driver may later remove.
std::string stored_path(const fs::path& root, const fs::path& p) {
  std::error_code ec;
  const fs::path rel =
      fs::absolute(p, ec).lexically_normal().lexically_relative(fs::absolute(root, ec).lexically_normal());
  if (!rel.empty() && *rel.begin() != "..") return rel.generic_string();
  return fs::absolute(p, ec).lexically_normal().generic_string();  // outside: never removed by the driver
}

fs::path resolve(const fs::path& root, const std::string& stored) {
  const fs::path p(stored);
  return p.is_absolute() ? p : root / p;
}

// The first symbolic link on the way from `root` down `rel` (each component that exists; the last
// one only with `last`), or an empty path. `root` itself is the user's and may be a link.
fs::path symlink_on_the_way(const fs::path& root, const fs::path& rel, bool last = true) {
  fs::path at = root;
  const auto end = rel.end();
  for (auto it = rel.begin(); it != end; ++it) {
    at /= *it;
    if (!last && std::next(it) == end) break;
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(at, ec);
    if (ec || !fs::exists(st)) break;  // nothing further exists
    if (fs::is_symlink(st)) return at;
  }
  return {};
}

// A file the store says an item wrote, as a path the driver may delete: only a relative path
// without "..", under which no folder is a symbolic link, so a planted store never makes the
// driver delete outside the run folder. Empty otherwise (with a warning).
fs::path deletable(const fs::path& root, const std::string& stored, const std::string& key) {
  const fs::path p = fs::path(stored).lexically_normal();
  bool inside = p.has_filename() && p != "." && p.is_relative() && !p.has_root_name();
  for (const fs::path& part : p)
    if (part == "..") inside = false;
  if (inside && symlink_on_the_way(root, p, false).empty()) return root / p;
  log_warn("{}: item {} lists the file '{}', which is not inside the run folder; it is not removed",
           root.string(), key, stored);
  return {};
}

// Whether every file a stored outcome recorded (its row's "outputs", stored paths) still exists.
bool stored_outputs_exist(const fs::path& root, const std::string& outputs_json) {
  for (const Json& p : Json::parse(outputs_json))
    if (!fs::exists(resolve(root, p.get<std::string>()))) return false;
  return true;
}

// The item's files that exist now, as the stored paths of its row ("outputs", JSON).
std::string written_outputs(const fs::path& root, const Item& item) {
  Json written = Json::array();
  for (const fs::path& out : item.outputs) {
    std::error_code ec;
    if (fs::exists(out, ec)) written.push_back(stored_path(root, out));
  }
  return dump_json(written);
}

// Errors that the same inputs would give again: reused like ok outcomes. Others (a timeout, a
// crash, an I/O error, a bug) are tried again.
bool reusable(const ItemOutcome& o) {
  return o.ok() || o.kind == ErrorKind::kBadInput || o.kind == ErrorKind::kNoOutput ||
         o.kind == ErrorKind::kEvaluator;
}

// The error kind of the exception being handled: an InputError is the item's bad input (the same
// input fails again), running out of memory a limit, anything else a bug or an accident, worth
// running again. A SetupError is rethrown: it stops the batch.
ErrorKind kind_of_current_exception() {
  try {
    throw;
  } catch (const SetupError&) {
    throw;
  } catch (const ItemFailure& e) {
    return e.kind();
  } catch (const InputError&) {
    return ErrorKind::kBadInput;
  } catch (const std::bad_alloc&) {
    return ErrorKind::kLimit;
  } catch (...) {
    return ErrorKind::kInternal;
  }
}

// The outcome as it reads back from the store (doubles through their text), so fresh and reused
// outcomes are the same bytes in every log.
ItemOutcome normalized(const ItemOutcome& o) {
  return ItemOutcome::from_json(OrderedJson::parse(dump_json(o.to_json())));
}

// The file a temporary stands for: ".<name>.pcglab-tmp-<pid>-<n>" -> <name>, in the same folder.
fs::path target_of_temporary(const fs::path& tmp) {
  std::string name = tmp.filename().string();
  const size_t marker = name.find(kTempMarker);
  if (marker == std::string::npos) return {};
  name = name.substr(0, marker);
  if (!name.empty() && name[0] == '.') name = name.substr(1);
  return tmp.parent_path() / name;
}

// Refuses, naming it, a symbolic link at or above `file` under `root` (SetupError): the stores and
// locks of a run folder are written where they are, never where a planted link points.
void require_no_symlink(const fs::path& root, const fs::path& file) {
  const fs::path link = symlink_on_the_way(root, file.lexically_relative(root));
  if (link.empty()) return;
  throw SetupError(fmt::format(
      "{} is a symbolic link: a run folder's stores, locks and logs must be in it, and pcglab never "
      "follows a link out of a run folder (it would write or delete there); remove the link",
      link.string()));
}

// A store and the files SQLite keeps beside it.
void require_plain_store(const fs::path& root, const fs::path& store) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    require_no_symlink(root, fs::path(store.string() + suffix));
}

void remove_store_files(const fs::path& store) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(store.string() + suffix, ec);
}

}  // namespace

ContentHash& ContentHash::add(std::string_view part) {
  const std::string length = fmt::format("{}:", part.size());
  h_ = fnv1a64(length, h_);
  h_ = fnv1a64(part, h_);
  return *this;
}

std::string ContentHash::hex() const {
  return fmt::format("{:016x}", h_);
}

bool natural_less(std::string_view a, std::string_view b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      size_t ei = i, ej = j;
      while (ei < a.size() && is_digit(a[ei])) ++ei;
      while (ej < b.size() && is_digit(b[ej])) ++ej;
      std::string_view da = a.substr(i, ei - i), db = b.substr(j, ej - j);
      while (da.size() > 1 && da[0] == '0') da.remove_prefix(1);
      while (db.size() > 1 && db[0] == '0') db.remove_prefix(1);
      if (da.size() != db.size()) return da.size() < db.size();
      if (da != db) return da < db;
      if (ei - i != ej - j) return ei - i < ej - j;  // "01" after "1": still a strict order
      i = ei, j = ej;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i, ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

fs::path Driver::store_path(const fs::path& root, const Shard& shard) {
  if (shard.all()) return root / "logs" / "batch.sqlite";
  return root / "logs" / "shards" / (shard.file_label() + ".sqlite");
}

fs::path Driver::lock_path(const fs::path& root, const Shard& shard) {
  if (shard.all()) return root / "logs" / "batch.lock";
  return root / "logs" / "shards" / (shard.file_label() + ".lock");
}

std::vector<fs::path> Driver::shard_stores(const fs::path& root) {
  const fs::path folder = root / "logs" / "shards";
  require_no_symlink(root, folder);
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    if (e.path().extension() == ".sqlite" && !is_temporary_file(e.path())) {
      require_plain_store(root, e.path());
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Driver::Driver(fs::path root, ThreadPool& pool, DriverOptions options)
    : root_(std::move(root)), pool_(pool), options_(std::move(options)) {
  if (root_.empty()) {  // ephemeral: the item boundary, the pool and the progress bar only
    PCGLAB_CHECK(options_.shard.all()) << "a sharded batch needs a folder for its store";
    return;
  }
  require_no_symlink(root_, root_ / "logs" / "shards");
  // The folder's lock: exclusive for an unsharded run, shared by the shards (each of which also
  // holds its own shard's lock), so an unsharded run and a shard never run at once, in either order.
  const bool sharded = !options_.shard.all();
  const auto folder_mode = sharded ? store::RunLock::Mode::kShared : store::RunLock::Mode::kExclusive;
  folder_lock_ = std::make_unique<store::RunLock>(root_, lock_path(root_, Shard{}), folder_mode);
  if (sharded) lock_ = std::make_unique<store::RunLock>(root_, lock_path(root_, options_.shard));
  if (!sharded) absorb_shard_stores();
  require_plain_store(root_, store_path(root_, options_.shard));
  store_ = std::make_unique<store::RunStore>(store_path(root_, options_.shard));
  if (sharded && fs::exists(store_path(root_, Shard{}))) {
    require_plain_store(root_, store_path(root_, Shard{}));
    main_store_ = std::make_unique<store::RunStore>(store_path(root_, Shard{}));
  }
  if (!options_.run_name.empty()) store_->open_run(options_.run_name, options_.config, true);
}

Driver::~Driver() = default;

void Driver::absorb_shard_stores() {
  const auto shards = shard_stores(root_);
  if (shards.empty()) return;
  store::RunStore main(store_path(root_, Shard{}));
  for (const fs::path& file : shards) {
    fs::path lock_file = file;
    lock_file.replace_extension(".lock");
    require_no_symlink(root_, lock_file);  // else the message would say the shard is running
    std::unique_ptr<store::RunLock> shard_lock;
    try {
      shard_lock = std::make_unique<store::RunLock>(root_, lock_file);
    } catch (const SetupError& e) {
      throw SetupError(fmt::format("{}: shard {} is still running ({}); wait for it to finish, then merge",
                                   root_.string(), file.stem().string(), e.what()));
    }
    {
      store::RunStore shard(file);
      std::vector<store::StageOutcomeRow> rows = shard.outcomes();
      main.put_outcomes(rows);
      for (const auto& [name, config] : shard.runs()) main.open_run(name, config, true);
    }
    remove_store_files(file);
    shard_lock.reset();
    std::error_code ec;
    fs::remove(lock_file, ec);
  }
  std::error_code ec;
  fs::remove(root_ / "logs" / "shards", ec);  // only when empty
}

StageRun Driver::run(const StageSpec& spec, const std::function<ItemOutcome(size_t)>& work) {
  return run_stage(spec, 0, [&](const std::vector<size_t>& which) {
    PCGLAB_CHECK(which.size() == 1);
    return std::vector<ItemOutcome>{work(which[0])};
  });
}

StageRun Driver::run_chunked(const StageSpec& spec, size_t chunk, const ChunkWork& work) {
  PCGLAB_CHECK(chunk > 0) << "chunk size 0";
  return run_stage(spec, chunk, work);
}

StageRun Driver::run_stage(const StageSpec& spec, size_t chunk, const ChunkWork& work) {
  const auto start = std::chrono::steady_clock::now();
  StageRun run;
  run.stage = spec.name;
  const Shard& shard = options_.shard;

  // The shard's items, in key order; keys must be unique.
  std::vector<size_t> mine;
  std::set<std::string> keys;
  std::set<fs::path> owned_outputs, all_outputs;
  for (size_t i = 0; i < spec.items.size(); ++i) {
    const Item& item = spec.items[i];
    PCGLAB_CHECK(keys.insert(item.key).second) << "stage " << spec.name << ": two items named " << item.key;
    for (const fs::path& out : item.outputs) all_outputs.insert(out.lexically_normal());
    if (!shard.owns(item.key)) continue;
    mine.push_back(i);
    for (const fs::path& out : item.outputs) owned_outputs.insert(out.lexically_normal());
  }
  std::sort(mine.begin(), mine.end(),
            [&](size_t a, size_t b) { return natural_less(spec.items[a].key, spec.items[b].key); });

  // The stage writes its items' files in its output folders: one that is (or lies under) a symbolic
  // link inside the run folder would make it write, and sweep temporaries, elsewhere.
  for (const fs::path& dir : spec.output_dirs) {
    const fs::path rel = dir.lexically_relative(root_);
    if (!root_.empty() && !rel.empty() && *rel.begin() != "..") require_no_symlink(root_, dir);
  }

  // Temporaries of killed writers: all of them when unsharded (no shard may run meanwhile: the
  // absorb refused), else only those of this shard's files.
  for (const fs::path& dir : spec.output_dirs) {
    std::error_code ec;
    std::vector<fs::path> stale;
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (!it->is_regular_file(ec) || !is_temporary_file(it->path())) continue;
      if (shard.all() || owned_outputs.count(target_of_temporary(it->path()).lexically_normal()))
        stale.push_back(it->path());
    }
    for (const fs::path& p : stale)
      if (fs::remove(p, ec)) ++run.temporaries;
  }

  // The stage logs (logs/<stage>.json) and a track's summaries there are written atomically too:
  // the temporaries of their killed writers (a kill while a log was written) go as well.
  if (shard.all() && !root_.empty()) run.temporaries += remove_dead_writers_temporaries(root_ / "logs");

  // Items that no longer exist: their files (unless a current item writes the same file) and rows.
  auto remove_gone = [&](store::RunStore& from, bool remove_rows) {
    for (const auto& row : from.outcomes(spec.name)) {
      if (keys.count(row.key) || !shard.owns(row.key)) continue;
      try {
        for (const Json& p : Json::parse(row.outputs)) {
          const fs::path file = deletable(root_, p.get<std::string>(), row.key);
          std::error_code ec;
          if (!file.empty() && !all_outputs.count(file.lexically_normal())) fs::remove(file, ec);
        }
      } catch (const std::exception&) {  // a damaged row: its files cannot be known
      }
      if (remove_rows) from.remove_outcome(spec.name, row.key);
      ++run.removed;
    }
  };
  if (store_) remove_gone(*store_, true);
  if (main_store_) remove_gone(*main_store_, false);

  // Reuse what is stored and still true.
  std::vector<std::optional<ItemOutcome>> outcomes(spec.items.size());
  std::vector<size_t> to_run;
  for (size_t i : mine) {
    const Item& item = spec.items[i];
    std::optional<store::StageOutcomeRow> row;
    if (store_) {
      row = store_->outcome(spec.name, item.key);
      if (!row && main_store_) row = main_store_->outcome(spec.name, item.key);
    }
    bool reuse = row && !options_.force && !item.hash.empty() && row->hash == item.hash;
    // A merge keeps what a shard finished when the item's inputs cannot be read from here: a
    // readable result is never replaced by an error (pcglab merge from another folder, an input
    // moved after its shard ran).
    const bool kept = !reuse && row && !options_.force && item.hash.empty() && merge_in_progress();
    reuse = reuse || kept;
    if (reuse) {
      try {
        ItemOutcome o = ItemOutcome::from_json(OrderedJson::parse(row->outcome));
        if (!stored_outputs_exist(root_, row->outputs)) reuse = false;
        if (reuse && reusable(o)) {
          if (kept)
            log_warn("{}: the inputs of {} cannot be read from here; the result its shard finished is kept",
                     root_.string(), item.key);
          o.key = item.key;
          outcomes[i] = std::move(o);
          if (row->stage.empty()) row->stage = spec.name;
          if (main_store_ && !store_->outcome(spec.name, item.key)) store_->put_outcome(*row);
          ++run.reused;
          continue;
        }
      } catch (const std::exception&) {  // a damaged row: run the item again
      }
    }
    // Run again: the files its last run wrote that it no longer writes go (e.g. the colour views
    // of images after --raw was dropped), so its files are those of one fresh run.
    if (row) {
      try {
        for (const Json& p : Json::parse(row->outputs)) {
          const fs::path file = deletable(root_, p.get<std::string>(), item.key);
          std::error_code ec;
          if (!file.empty() && !all_outputs.count(file.lexically_normal())) fs::remove(file, ec);
        }
      } catch (const std::exception&) {  // a damaged row: its files cannot be known
      }
    }
    to_run.push_back(i);
  }

  // Run the rest.
  ProgressBar bar(shard.all() ? spec.name : spec.name + " " + shard.label(), to_run.size(),
                  options_.progress);
  std::mutex mutex;
  auto record = [&](size_t i, ItemOutcome o, double seconds) {
    const Item& item = spec.items[i];
    o.key = item.key;
    o = normalized(o);
    o.seconds = seconds;
    if (store_)
      store_->put_outcome(
          {spec.name, item.key, item.hash, written_outputs(root_, item), dump_json(o.to_stored_json())});
    bar.advance(o.ok());
    std::lock_guard lock(mutex);
    outcomes[i] = std::move(o);
  };
  // The item boundary (core/item_boundary.h): whatever the work throws, but a SetupError, is the
  // error of its item (of every item of a chunk).
  auto run_group = [&](const std::vector<size_t>& which) {
    const std::string name = which.size() == 1 ? spec.items[which[0]].key : spec.name + " batch";
    std::vector<ItemOutcome> results;
    const auto began = std::chrono::steady_clock::now();
    // Each item's share of the group's time (a chunk's items share its call).
    const auto seconds = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() /
             static_cast<double>(which.size());
    };
    try {
      results = work(which);
      PCGLAB_CHECK(results.size() == which.size())
          << "stage " << spec.name << ": " << results.size() << " outcomes for " << which.size() << " items";
    } catch (...) {
      const ErrorKind kind = kind_of_current_exception();  // rethrows a SetupError
      const ItemError error = item_error_from_current_exception(name);
      const double each = seconds();
      for (size_t i : which) record(i, ItemOutcome::from_error(spec.items[i].key, error, kind), each);
      return;
    }
    const double each = seconds();
    for (size_t k = 0; k < which.size(); ++k) record(which[k], std::move(results[k]), each);
  };
  // A stop request (SIGUSR1, batch/stop.h) lets the running items finish and starts no other.
  if (chunk == 0) {
    pool_.parallel_for(to_run.size(), [&](size_t k) {
      if (!stop_requested()) run_group({to_run[k]});
    });
  } else {
    for (size_t s = 0; s < to_run.size() && !stop_requested(); s += chunk)
      run_group(std::vector<size_t>(to_run.begin() + s, to_run.begin() + std::min(to_run.size(), s + chunk)));
  }
  bar.finish();
  if (stop_requested()) {
    size_t left = 0;
    for (size_t i : to_run) left += outcomes[i].has_value() ? 0 : 1;
    if (left > 0)
      throw BatchStopped(fmt::format(
          "stopped by SIGUSR1: stage {}{} recorded {} of {} items and left {}; rerun the same command (or "
          "`pcglab sweep resubmit`) to resume from its store",
          spec.name, shard.all() ? std::string() : " shard " + shard.label(), to_run.size() - left,
          to_run.size(), left));
  }
  run.ran = to_run.size();

  for (size_t i : mine) {
    PCGLAB_CHECK(outcomes[i].has_value())
        << "stage " << spec.name << ": no outcome for " << spec.items[i].key;
    if (!outcomes[i]->ok()) ++run.failed;
    run.outcomes.push_back(std::move(*outcomes[i]));
    run.item_index.push_back(i);
  }
  if (shard.all() && !root_.empty()) {
    if (spec.write_log) {
      spec.write_log(run.outcomes);
    } else {
      write_file_if_changed(root_ / "logs" / (spec.name + ".json"),
                            dump_json(stage_log(spec.name, run.outcomes), 2) + "\n");
    }
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

OrderedJson stage_log(const std::string& stage, const std::vector<ItemOutcome>& outcomes) {
  size_t failed = 0;
  OrderedJson list = OrderedJson::array();
  for (const ItemOutcome& o : outcomes) {
    failed += o.ok() ? 0 : 1;
    list.push_back(o.to_json());
  }
  return {{"stage", stage},
          {"items", outcomes.size()},
          {"ok", outcomes.size() - failed},
          {"failed", failed},
          {"outcomes", std::move(list)}};
}

Driver::Chain Driver::chain(std::string stage, uint64_t expected) {
  PCGLAB_CHECK(options_.shard.all()) << "stage " << stage << ": an ordered chain runs unsharded";
  return Chain(*this, std::move(stage), expected);
}

Driver::Chain::Chain(Driver& driver, std::string stage, uint64_t expected)
    : driver_(&driver),
      stage_(std::move(stage)),
      bar_(std::make_unique<ProgressBar>(stage_, expected, driver.options_.progress)) {}

Driver::Chain::~Chain() = default;
Driver::Chain::Chain(Chain&&) noexcept = default;

void Driver::Chain::finish() {
  bar_->finish();
}

ChainStep Driver::Chain::step(const Item& item,
                              const std::function<ItemOutcome(const std::optional<ItemOutcome>&)>& work) {
  Driver& d = *driver_;
  ChainStep result;
  std::optional<ItemOutcome> earlier;
  std::optional<store::StageOutcomeRow> row;
  if (d.store_) row = d.store_->outcome(stage_, item.key);
  if (row) {
    try {
      ItemOutcome o = ItemOutcome::from_json(OrderedJson::parse(row->outcome));
      const bool files = stored_outputs_exist(d.root_, row->outputs);
      if (o.ok() && files && !d.options_.force && !item.hash.empty() && row->hash == item.hash) {
        o.key = item.key;
        result.outcome = std::move(o);
        result.reused = true;
        bar_->advance(true);
        return result;
      }
      earlier = std::move(o);
    } catch (const std::exception&) {  // a damaged row: run the step again
    }
  }
  // A stop request (SIGUSR1, batch/stop.h): the step before finished and is recorded; start no other.
  if (stop_requested())
    throw BatchStopped(fmt::format(
        "stopped by SIGUSR1: chain {} stopped before step {}; rerun the same command (or `pcglab sweep "
        "resubmit`) to resume from its store",
        stage_, item.key));
  const auto began = std::chrono::steady_clock::now();
  ItemOutcome o;
  try {
    o = work(earlier);
  } catch (...) {
    const ErrorKind kind = kind_of_current_exception();  // rethrows a SetupError
    o = ItemOutcome::from_error(item.key, item_error_from_current_exception(item.key), kind);
  }
  o.key = item.key;
  o = normalized(o);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
  if (d.store_)
    d.store_->put_outcome(
        {stage_, item.key, item.hash, written_outputs(d.root_, item), dump_json(o.to_stored_json())});
  bar_->advance(o.ok());
  result.outcome = std::move(o);
  return result;
}

}  // namespace pcglab::batch
