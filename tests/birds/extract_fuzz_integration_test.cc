// Random and hostile LLM responses through `pcglab birds convert` and `pcglab birds eval`: every
// batch completes (exit 0 or 1, never 2, never a crash) with one result per response, and no
// response meets an internal error. Seeded: PCGLAB_FUZZ_SEED=N reruns a failing case.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "birds/extract.h"
#include "core/files.h"
#include "core/json.h"
#include "core/rng.h"
#include "testing/testing.h"

namespace pcglab {
namespace {
namespace fs = std::filesystem;

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string fenced(const std::string& body) {
  return "```python\n" + body + "\n```";
}

// Responses that broke or could break a stage: huge numbers, nesting, NUL bytes, invalid UTF-8,
// giant ranges, unbalanced fences, sizes at and over the limit.
std::vector<std::string> hostile_responses() {
  std::string nested = "```\n" + repeat("drop_block(", 20000) + repeat("'b11', 1)", 50) + "\n```";
  std::string deep = "```\n";
  for (int d = 0; d < 500; ++d) deep += std::string(static_cast<size_t>(d), ' ') + "for i in range(3):\n";
  deep += std::string(500, ' ') + "drop_block('b11', 4)\n```";
  std::string over = fenced(repeat("drop_block('b11', 1)\n", birds::kMaxResponseBytes / 21 + 10));
  std::string at = fenced(repeat("x", birds::kMaxResponseBytes - 14));
  const std::string nul(1, '\0');
  return {
      fenced("for i in range(99999999999999999999):\n    drop_block('b11', 3)"),
      fenced("for i in range(-9000000000000000000, 9000000000000000000):\n    drop_block('b31', 9)"),
      fenced("for i in range(0, 10**100):\n    drop_block('b11', 1)"),
      fenced("for i in range(1, 2, 0):\n    drop_block('b11', 1)\nfor j in range(:\nfor k in range():\nfor l "
             "in range(,,,):"),
      fenced("for i in range(" + repeat("9", 5000) + "):\n  drop_block('b13', 2)"),
      fenced("drop_block('b11', 99999999999999999999999999)\ndrop_block('b11', -99999999999999999999)"),
      fenced("drop_block('b11', " + repeat("9", 200000) + ")"),
      nested,
      deep,
      over,
      at,
      "",
      "```\ndrop_block('b11', 1)" + nul + nul + "\ndrop_block('b13'," + nul + " 2)\n```" + nul,
      "\xff\xfe```\ndrop_block('b11', 1) \xc3\x28 \xed\xa0\x80 \xf4\x90\x80\x80\n```\xf0\x9f",
      "```\ndrop_block('b11', 1)\n",
      "``````",
      "```a```b```",
      repeat("`", 1000),
      repeat("```", 10000),
      repeat("```\ndrop_block('b11', 1)\n```\n", 5000),
      "```\r\ndrop_block('b11', 1)\r\ndrop_block('b31', 10)\r\n```\r\n",
      fenced("drop_block\xef\xbc\x88'b11', 1\xef\xbc\x89\ndrop_block('b|1', |)\ndrop_block('b33', )"),
      fenced(repeat("drop_block('b11', 5)\n", 60000)),
      fenced(repeat("drop_block('b31', 19)\n", 3) + "drop_block('B11', 1)\nDROP_BLOCK('b11', x_position=3)"),
      fenced(repeat("\t \t", 10000) + "for i in range(3):\n\tdrop_block('b11', 2)\n  \tdrop_block('b11', 3)"),
      fenced("while(True):\n" + repeat(" ", 100000) + "drop_block('b11', 7)"),
      fenced(repeat("\n", 200000) + "drop_block('b13', 18)"),
  };
}

const std::vector<std::string> kTokens = {"```",
                                          "```python\n",
                                          "drop_block(",
                                          "DROP_BLOCK(",
                                          "drop_block (",
                                          "'b11'",
                                          "\"b31\"",
                                          "'b13'",
                                          "'b33'",
                                          "'B11'",
                                          ", ",
                                          ",",
                                          " ",
                                          ")",
                                          "(",
                                          "\n",
                                          "\r\n",
                                          "\t",
                                          "    ",
                                          "for i in range(",
                                          "):\n",
                                          "while True:\n",
                                          "99999999999999999999",
                                          "-9000000000000000000",
                                          "9000000000000000000",
                                          "-1",
                                          "0",
                                          "19",
                                          "20",
                                          "x",
                                          "=",
                                          "`",
                                          std::string(1, '\0'),
                                          "\xff",
                                          "\xc3",
                                          "\xe2\x82",
                                          "\xc3\xa9",
                                          "#",
                                          "range(",
                                          "10**9",
                                          "1_000",
                                          "|",
                                          "\"",
                                          "'",
                                          "drop_block('b11', 3)\n",
                                          "drop_block('b31', 10)\n",
                                          "drop_block('b13', 7)\n"};

std::string random_response(Rng& rng) {
  std::string out;
  const auto n = rng.below(400);
  for (uint64_t i = 0; i < n; ++i) {
    if (rng.below(10) == 0) {
      out += static_cast<char>(rng.below(256));  // any byte
    } else {
      out += kTokens[rng.below(kTokens.size())];
    }
  }
  return out;
}

uint64_t fuzz_seed() {
  const char* env = std::getenv("PCGLAB_FUZZ_SEED");
  return env != nullptr ? std::strtoull(env, nullptr, 10) : 20240613;
}

TEST(BirdsFuzz, ConvertAndEvalCompleteEveryBatchWithPerItemResults) {
  const uint64_t seed = fuzz_seed();
  SCOPED_TRACE(fmt::format("seed {} (rerun with PCGLAB_FUZZ_SEED={})", seed, seed));
  Rng rng(seed);
  testing::TempDir dir;
  std::vector<std::string> responses = hostile_responses();
  while (responses.size() < 300) responses.push_back(random_response(rng));
  const std::vector<std::string> teams = {"alpha", "beta"};
  std::map<std::string, std::set<std::string>> written;  // team -> trial stems
  for (size_t i = 0; i < responses.size(); ++i) {
    const std::string& team = teams[i % 2];
    const char letter = static_cast<char>('A' + (i / 2) % 26);
    const size_t trial = i / 52 + 1;
    const std::string stem = fmt::format("{}_{}_{}", team, letter, trial);
    write_file_atomic(dir / team / "raw" / std::string(1, letter) / (stem + ".txt"), responses[i]);
    written[team].insert(stem);
  }
  const std::set<std::string> statuses = {"ok",         "no-code",     "conversion-error",
                                          "read-error", "write-error", "error"};
  auto check_logs = [&](const std::string& command) {
    for (const auto& [team, stems] : written) {
      const Json log = read_json_file(dir / team / "logs/convert.json");
      std::set<std::string> logged;
      for (const Json& entry : log) {
        const std::string stem = entry["trial"];
        logged.insert(stem);
        EXPECT_TRUE(statuses.count(entry["status"].get<std::string>()) > 0)
            << command << " " << stem << ": " << entry.dump();
      }
      EXPECT_EQ(logged, stems) << command << ": " << team << "/logs/convert.json has one entry per response";
    }
  };

  const auto convert = testing::run_pcglab({"birds", "convert", dir.path().string(), "--format", "json"});
  ASSERT_TRUE(convert.exit_code == 0 || convert.exit_code == 1) << "exit " << convert.exit_code << "\n"
                                                                << convert.err;
  EXPECT_EQ(convert.err.find("internal error"), std::string::npos) << convert.err;
  const Json summary = Json::parse(convert.out);
  ASSERT_EQ(summary.size(), 2u) << convert.out;
  int trials = 0;
  for (const Json& row : summary) trials += row["trials"].get<int>();
  EXPECT_EQ(trials, static_cast<int>(responses.size()));
  check_logs("convert");
  // The response over the limit failed alone, with the file and the limit named.
  const Json beta = read_json_file(dir / "beta/logs/convert.json");
  bool limit_named = false;
  for (const Json& entry : beta) {
    if (entry["trial"] == "beta_E_1") {
      EXPECT_EQ(entry["status"], "read-error") << entry.dump();
      limit_named = entry["error"].get<std::string>().find("beta_E_1.txt: ") != std::string::npos &&
                    entry["error"].get<std::string>().find("limit of 1048576 bytes") != std::string::npos;
    }
  }
  EXPECT_TRUE(limit_named) << beta.dump();

  const auto eval = testing::run_pcglab({"birds", "eval", dir.path().string(), "--format", "json"});
  ASSERT_TRUE(eval.exit_code == 0 || eval.exit_code == 1) << "exit " << eval.exit_code << "\n" << eval.err;
  EXPECT_EQ(eval.err.find("internal error"), std::string::npos) << eval.err;
  const Json ranking = Json::parse(eval.out);
  ASSERT_EQ(ranking.size(), 2u) << eval.out;
  EXPECT_TRUE(fs::exists(dir / "result/result.json"));
  check_logs("eval");
}

}  // namespace
}  // namespace pcglab
