// `birds generate` on the item kernel (batch/driver.h): each letter (its trials are chosen
// together) is an item of the team folder's batch, so a run killed with SIGKILL resumes without
// generating its finished letters again, and shards merged by `pcglab merge` write the same files
// as one unsharded run.
#include <signal.h>
#include <sys/wait.h>

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/files.h"
#include "core/json.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

const std::vector<std::string> kSettings{"--letters", "AKTH", "--trials", "3", "--candidates", "4"};

testing::CliRun generate(const fs::path& out, std::vector<std::string> extra = {}) {
  std::vector<std::string> args{"--threads", "1",          "birds",    "generate",
                                "-o",        out.string(), "--format", "json"};
  args.insert(args.end(), kSettings.begin(), kSettings.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return testing::run_pcglab(args);
}

// Every file under `dir` (relative path -> bytes) but the batch stores and locks (run history).
std::map<std::string, std::string> snapshot(const fs::path& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    if (name.find(".sqlite") != std::string::npos || name.ends_with(".lock")) continue;
    out[fs::relative(e.path(), dir).generic_string()] = read_file(e.path());
  }
  return out;
}

void expect_same_files(const fs::path& fresh, const fs::path& other) {
  const auto a = snapshot(fresh), b = snapshot(other);
  EXPECT_EQ(a.size(), b.size());
  for (const auto& [name, bytes] : a) {
    const auto it = b.find(name);
    if (it == b.end()) {
      ADD_FAILURE() << name << " missing";
      continue;
    }
    EXPECT_TRUE(it->second == bytes) << name << " differs";
  }
}

size_t raw_files(const fs::path& team) {
  size_t n = 0;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(team / "raw", ec), end; !ec && it != end; it.increment(ec))
    n += it->path().extension() == ".txt";
  return n;
}

TEST(BirdsGenerateKernel, AKilledRunResumesReusingItsFinishedLetters) {
  testing::TempDir dir;
  const auto fresh = generate(dir / "fresh");
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  EXPECT_NE(fresh.err.find("generate: 4 letters, 4 generated, 0 reused"), std::string::npos) << fresh.err;

  // SIGKILL once four responses are written: with one thread, the first letter's outcome is then in
  // the store (a letter's three files are written, then its outcome committed, then the next letter
  // starts).
  std::vector<std::string> args{"--threads", "1", "birds", "generate", "-o", (dir / "killed").string()};
  args.insert(args.end(), kSettings.begin(), kSettings.end());
  const pid_t pid = testing::spawn_pcglab(args);
  ASSERT_TRUE(testing::wait_for([&] { return raw_files(dir / "killed/pcglab-generator") >= 4; }));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  const auto resumed = generate(dir / "killed");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const size_t at = resumed.err.find("generate: 4 letters, ");
  ASSERT_NE(at, std::string::npos) << resumed.err;
  const size_t generated = std::stoul(resumed.err.substr(at + 21));
  EXPECT_LT(generated, 4u) << "the finished letters are reused, not generated again\n" << resumed.err;
  EXPECT_NE(resumed.err.find(fmt::format("{} generated, {} reused", generated, 4 - generated)),
            std::string::npos)
      << resumed.err;
  EXPECT_EQ(parse_json(resumed.out, "stdout"), parse_json(fresh.out, "stdout"));
  expect_same_files(dir / "fresh", dir / "killed");

  // Nothing left to do; other settings generate every trial again.
  const auto again = generate(dir / "killed");
  EXPECT_NE(again.err.find("generate: 4 letters, 0 generated, 4 reused"), std::string::npos) << again.err;
  const auto reseeded = generate(dir / "killed", {"--seed", "2"});
  EXPECT_NE(reseeded.err.find("generate: 4 letters, 4 generated, 0 reused"), std::string::npos)
      << reseeded.err;
}

TEST(BirdsGenerateKernel, ShardsMergedWriteTheSameFilesAsOneRun) {
  testing::TempDir dir;
  const auto fresh = generate(dir / "fresh");
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  size_t generated = 0;
  for (const char* shard : {"1/2", "2/2"}) {
    const auto r = generate(dir / "sharded", {"--shard", shard});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string tag = fmt::format("generate {}: ", shard);
    const size_t at = r.err.find(tag);
    ASSERT_NE(at, std::string::npos) << r.err;
    generated += std::stoul(r.err.substr(at + tag.size()));
  }
  EXPECT_EQ(generated, 4u) << "each letter in one shard";
  const fs::path team = dir / "sharded/pcglab-generator";
  EXPECT_FALSE(fs::exists(team / "logs/generate.json")) << "the log needs every trial: merge writes it";
  EXPECT_FALSE(fs::exists(team / "run.json"));
  const auto merged = testing::run_pcglab({"merge", (dir / "sharded").string(), "--format", "json"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.err.find("generate: 4 letters, 0 generated, 4 reused"), std::string::npos) << merged.err;
  EXPECT_FALSE(fs::exists(team / "logs/shards"));
  EXPECT_EQ(parse_json(merged.out, "stdout"), parse_json(fresh.out, "stdout"));
  expect_same_files(dir / "fresh", dir / "sharded");
}

// `--grid-faces FILE` replaces the built-in table, and the table is in each letter's hash: a rerun
// with another table (or none) generates every letter again instead of reusing the letters the
// other table's candidates gave; the same table again reuses them.
TEST(BirdsGenerateKernel, AnotherGridFaceTableGeneratesEveryLetterAgain) {
  testing::TempDir dir;
  const fs::path table = dir / "faces.txt";
  write_file_atomic(table, "// pcglab test faces\nK block\n##.\n###\n###\n\nT post\n###\n.#.\n.#.\n");
  const auto builtin = generate(dir / "run");
  ASSERT_EQ(builtin.exit_code, 0) << builtin.err;
  const auto given = generate(dir / "run", {"--grid-faces", table.string()});
  ASSERT_EQ(given.exit_code, 0) << given.err;
  EXPECT_NE(given.err.find("generate: 4 letters, 4 generated, 0 reused"), std::string::npos) << given.err;
  const auto again = generate(dir / "run", {"--grid-faces", table.string()});
  EXPECT_NE(again.err.find("generate: 4 letters, 0 generated, 4 reused"), std::string::npos) << again.err;
  const auto none = generate(dir / "run", {"--grid-faces", "none"});
  ASSERT_EQ(none.exit_code, 0) << none.err;
  EXPECT_NE(none.err.find("generate: 4 letters, 4 generated, 0 reused"), std::string::npos) << none.err;

  // The table's faces are K's and T's candidates (beside the drawn ones), and no other letter's.
  const Json with = parse_json(given.out, "stdout"), without = parse_json(none.out, "stdout");
  ASSERT_EQ(with.size(), 4u);
  ASSERT_EQ(without.size(), 4u);
  for (size_t i = 0; i < with.size(); ++i) {
    const std::string letter = with[i]["letter"];
    const int extra = with[i]["candidates"].get<int>() - without[i]["candidates"].get<int>();
    if (letter == "K" || letter == "T")
      EXPECT_GT(extra, 0) << letter;
    else
      EXPECT_EQ(extra, 0) << letter;
  }
  const Json run = parse_json(read_file(dir / "run/pcglab-generator/run.json"), "run.json");
  EXPECT_EQ(run["generator"]["grid_faces"]["faces"], 0)
      << "none: the last run's table is empty, not built-in";
}

TEST(BirdsGenerateKernel, ARecordedTableOfGridFacesIsMergedWithItsShards) {
  testing::TempDir dir;
  const fs::path table = dir / "faces.txt";
  write_file_atomic(table, "H wide\n##.##\n#####\n##.##\n");
  const std::vector<std::string> faces{"--grid-faces", table.string()};
  const auto fresh = generate(dir / "fresh", faces);
  ASSERT_EQ(fresh.exit_code, 0) << fresh.err;
  for (const char* shard : {"1/2", "2/2"}) {
    auto extra = faces;
    extra.insert(extra.end(), {"--shard", shard});
    const auto r = generate(dir / "sharded", extra);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  write_file_atomic(table, "H other\n#.#\n###\n#.#\n");  // merge uses the table the shards recorded
  const auto merged = testing::run_pcglab({"merge", (dir / "sharded").string(), "--format", "json"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_NE(merged.err.find("generate: 4 letters, 0 generated, 4 reused"), std::string::npos) << merged.err;
  EXPECT_EQ(parse_json(merged.out, "stdout"), parse_json(fresh.out, "stdout"));
  expect_same_files(dir / "fresh", dir / "sharded");
  const Json run = parse_json(read_file(dir / "sharded/pcglab-generator/run.json"), "run.json");
  EXPECT_EQ(run["generator"]["grid_faces"]["faces"], 1);
}

// A bad table is bad setup: exit 2 before any letter runs, naming the file and the cause.
TEST(BirdsGenerateKernel, ABadTableOfGridFacesIsRefusedNamingTheFileAndTheCause) {
  testing::TempDir dir;
  const auto refused = [&](const std::string& name, const std::string& text, const std::string& cause) {
    const fs::path file = dir / name;
    if (!text.empty()) write_file_atomic(file, text);
    const auto r = generate(dir / "out", {"--grid-faces", file.string()});
    EXPECT_EQ(r.exit_code, 2) << name << "\n" << r.err;
    EXPECT_NE(r.err.find("--grid-faces " + file.string() + ": " + cause), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "out/pcglab-generator/raw")) << name;
  };
  refused("missing.txt", "", "cannot read it");
  refused("uneven.txt", "K a\n##\n#\n", "grid faces line 3: rows of unequal width");
  refused("header.txt", "k a\n##\n", "grid faces line 1: a header is");
  refused("style.txt", "K a`b\n##\n", "face \"K a`b\": a style is");
  refused("wide.txt", "K a\n" + std::string(19, '#') + "\n", "face \"K a\" is 1 rows × 19 columns");
  refused("empty.txt", "K a\n..\n", "face \"K a\" has no cell");
  refused("huge.txt", std::string((1u << 20) + 1, '\n'),
          "1048577 bytes; a table of grid faces is at most 1 MiB");
}

}  // namespace
}  // namespace pcglab
