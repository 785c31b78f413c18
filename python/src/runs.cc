// pcglab.runs: the item outcomes a batch run stored (batch/driver.h: <root>/logs/batch.sqlite and
// the shard stores <root>/logs/shards/*.sqlite, for DIR and each of its sub-folders, as
// `pcglab merge` finds them), finished or partial. Read through the run store, as the driver reads
// them; rows are dicts, turned into pcglab.runs.Outcomes by python/pcglab/runs.py.
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch/driver.h"
#include "batch/item_outcome.h"
#include "bindings.h"
#include "core/json.h"
#include "store/run_store.h"

namespace pcglab::python {
namespace {
namespace fs = std::filesystem;
using namespace pybind11::literals;

struct Row {
  std::string store, stage;
  ItemOutcome outcome;
};

// The stores under `dir` (and its sub-folders, never through a link), in a stable order.
std::vector<fs::path> stores_of(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw SetupError(fmt::format("{}: not a folder", dir.string()));
  std::vector<fs::path> roots{dir};
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (!e.is_symlink(ec) && e.is_directory(ec)) roots.push_back(e.path());
  std::sort(roots.begin() + 1, roots.end());
  std::vector<fs::path> stores;
  for (const fs::path& root : roots) {
    const fs::path unsharded = batch::Driver::store_path(root, batch::Shard{});
    if (fs::is_regular_file(fs::symlink_status(unsharded, ec))) stores.push_back(unsharded);
    for (const fs::path& f : batch::Driver::shard_stores(root)) stores.push_back(f);
  }
  if (stores.empty())
    throw SetupError(
        fmt::format("{}: no batch store (logs/batch.sqlite or logs/shards/*.sqlite) in it or "
                    "its sub-folders; give the folder a batch command wrote to (its --out)",
                    dir.string()));
  return stores;
}

std::vector<Row> read_rows(const fs::path& dir) {
  std::vector<Row> rows;
  for (const fs::path& file : stores_of(dir)) {
    store::RunStore store(file);
    const std::string name = fs::relative(file, dir).string();
    for (const store::StageOutcomeRow& r : store.outcomes()) {
      ItemOutcome o;
      try {
        o = ItemOutcome::from_json(OrderedJson::parse(r.outcome));
      } catch (const std::exception& e) {  // a damaged row is that row's error, not the table's
        o = ItemOutcome::failure(r.key, ErrorKind::kInternal,
                                 fmt::format("{}: stage {} item {}: unreadable outcome: {}", file.string(),
                                             r.stage, r.key, e.what()));
      }
      if (o.key.empty()) o.key = r.key;
      rows.push_back({name, r.stage, std::move(o)});
    }
  }
  return rows;
}

py::list outcomes(const fs::path& dir) {
  const std::vector<Row> rows = without_gil([&] { return read_rows(dir); });
  py::list out;
  for (const Row& r : rows) {
    const ItemOutcome& o = r.outcome;
    out.append(py::dict("store"_a = r.store, "stage"_a = r.stage, "key"_a = o.key,
                        "status"_a = status_name(o.status),
                        "kind"_a = o.ok() ? py::object(py::none()) : py::str(error_kind_name(o.kind)),
                        "message"_a = o.message, "requests"_a = o.requests, "seconds"_a = o.seconds,
                        "metadata"_a = o.metadata.dump()));
  }
  return out;
}

}  // namespace

void bind_runs(py::module_& m) {
  m.def("outcomes", &outcomes, "dir"_a,
        "Every stored item outcome under DIR: dicts with store, stage, key, status, kind, message, "
        "requests, seconds and metadata (JSON text).");
}

}  // namespace pcglab::python
