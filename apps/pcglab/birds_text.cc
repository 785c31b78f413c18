// `pcglab birds check-prompt | extract | convert`: the text half of the ChatGPT4PCG pipeline,
// exactly as the official scripts behave (see docs/birds.md).
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <array>

#include "birds/competition_layout.h"
#include "birds/converter.h"
#include "birds/extract.h"
#include "birds/prompt_check.h"
#include "birds/text_pipeline.h"
#include "command.h"
#include "core/files.h"
#include "core/json.h"
#include "core/log.h"
#include "core/progress.h"

namespace pcglab::cli {
namespace {
namespace fs = std::filesystem;
using namespace pcglab::birds;

// ---- check-prompt -------------------------------------------------------------------------

struct CheckPromptOptions {
  std::string file;
  std::string rules = "2023";
};

int run_check_prompt(const CheckPromptOptions& opt, const GlobalOptions& global) {
  const PromptRules rules = parse_prompt_rules(opt.rules);
  const PromptCheck check = check_prompt(read_file(opt.file), rules);
  Table t;
  t.columns = {"file", "rules", "words", "qualified", "check", "line", "column", "detail"};
  const auto row = [&](const std::string& name, Json line, Json column, const std::string& detail) {
    t.add_row({opt.file, std::string(prompt_rules_name(rules)), check.word_count, check.qualified, name,
               std::move(line), std::move(column), detail});
  };
  for (const PromptViolation& v : check.violations) {
    row(v.rule, v.line > 0 ? Json(v.line) : Json(), v.column > 0 ? Json(v.column) : Json(), v.message);
  }
  for (const std::string& note : check.notes) row("note", Json(), Json(), note);
  if (check.violations.empty() && check.notes.empty()) row("all", Json(), Json(), "every 2023 check passed");
  print_table(t, global);
  return check.qualified ? kExitOk : kExitItemsFailed;
}

Action setup_check_prompt(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<CheckPromptOptions>();
  cmd.add_option("file", opt->file, "Prompt file (UTF-8 text)")->required()->check(CLI::ExistingFile);
  cmd.add_option("--rules", opt->rules, "Competition year whose rules apply")->check(CLI::IsMember({"2023", "2024", "2025"}));
  return [opt, &global] { return run_check_prompt(*opt, global); };
}

// ---- extract --------------------------------------------------------------------------------

struct ExtractOptions {
  std::vector<std::string> responses;
  std::string function = "drop_block";
};

Json report_json(const std::string& file, const ExtractionReport& r) {
  Json dropped = Json::array();
  for (const auto& d : r.dropped) dropped.push_back({{"line", d.line}, {"call", d.text}, {"reason", d.reason}});
  Json loops = Json::array();
  for (const auto& l : r.loops) {
    loops.push_back({{"line", l.line}, {"header", l.header}, {"calls_in_body", l.calls_in_body},
                     {"iterations", l.iterations < 0 ? Json() : Json(l.iterations)},
                     {"note", "the official extraction keeps each call in the body once, not once per iteration"}});
  }
  return {{"file", file},
          {"code", r.code ? Json(*r.code) : Json()},
          {"accepted_calls", r.accepted_calls},
          {"fence_markers", r.fence_markers},
          {"blocks", r.blocks},
          {"dropped", dropped},
          {"loops", loops},
          {"calls_in_earlier_blocks", r.calls_in_earlier_blocks},
          {"calls_outside_blocks", r.calls_outside_blocks},
          {"no_code_reason", r.no_code_reason.empty() ? Json() : Json(r.no_code_reason)}};
}

int run_extract(const ExtractOptions& opt, const GlobalOptions& global) {
  validate_function_name(opt.function);
  const bool diagnostics = global.format == "json" || global.format == "jsonl";
  bool all_ok = true;
  Json reports = Json::array();
  for (const std::string& file : opt.responses) {
    const std::string text = read_file(file);
    if (!diagnostics) {
      const auto code = extract_code(text, opt.function);
      if (code) {
        std::fwrite(code->data(), 1, code->size(), stdout);
      } else {
        all_ok = false;
      }
      continue;
    }
    const ExtractionReport r = diagnose_extraction(text, opt.function);
    all_ok = all_ok && r.code.has_value();
    if (global.format == "jsonl") {
      std::puts(dump_json(report_json(file, r)).c_str());
    } else {
      reports.push_back(report_json(file, r));
    }
  }
  if (global.format == "json") std::puts(dump_json(reports, 2).c_str());
  std::fflush(stdout);
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_extract(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ExtractOptions>();
  cmd.add_option("responses", opt->responses, "Response files")->required()->check(CLI::ExistingFile);
  cmd.add_option("--function", opt->function, "Drop function name (2023: ab_drop)");
  cmd.footer(
      "Prints exactly what the official extractCode returns; nothing (and exit 1) where it returns null.\n"
      "--format json or jsonl prints diagnostics instead: dropped calls and why, loops, why no code.");
  return [opt, &global] { return run_extract(*opt, global); };
}

// ---- convert --------------------------------------------------------------------------------

struct ConvertCommandOptions {
  std::string input;
  std::string function = "drop_block";
  std::string converter = "1.4.1";
};

int convert_single_file(const ConvertCommandOptions& opt, const ConverterVersion version) {
  auto level = convert_program(read_file(opt.input), opt.function, opt.input, version);
  if (!level.ok()) {
    log_error("{}", level.error().describe());
    return kExitItemsFailed;
  }
  std::fwrite(level.value().xml.data(), 1, level.value().xml.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

int run_convert(const ConvertCommandOptions& opt, const GlobalOptions& global) {
  validate_function_name(opt.function);
  const ConverterVersion version = parse_converter_version(opt.converter);
  if (fs::is_regular_file(opt.input)) return convert_single_file(opt, version);
  ThreadPool pool(global.threads);
  size_t total = 0;
  for (const fs::path& team : find_team_folders(opt.input, "raw")) total += list_stage_files(team, "raw", ".txt").size();
  ProgressBar bar("convert", total);
  const auto results = convert_competition(opt.input, {opt.function, version}, pool, [&](const TrialConversion& t) {
    bar.advance(t.status == "ok");
  });
  bar.finish();
  // Summary per team, then every failure.
  std::map<std::string, std::array<int, 3>> per_team;  // ok, no code, other errors
  for (const auto& t : results) {
    auto& c = per_team[t.team];
    c[t.status == "ok" ? 0 : t.status == "no-code" ? 1 : 2]++;
  }
  Table summary;
  summary.columns = {"team", "trials", "levels", "no_code", "conversion_errors"};
  for (const auto& [team, c] : per_team) summary.add_row({team, c[0] + c[1] + c[2], c[0], c[1], c[2]});
  print_table(summary, global);
  bool all_ok = true;
  for (const auto& t : results) {
    if (t.status == "ok") continue;
    all_ok = false;
    log_warn("{}/{}: {}{}", t.team, t.stem, t.error, t.detail.empty() ? "" : " (" + t.detail + ")");
  }
  if (results.empty()) log_warn("{}: no responses found under <team>/raw/<C>/", opt.input);
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_convert(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ConvertCommandOptions>();
  cmd.add_option("input", opt->input, "Competition folder (<team>/raw/<C>/*.txt), a team folder, or one program file")
      ->required()
      ->check(CLI::ExistingPath);
  cmd.add_option("--function", opt->function, "Drop function name (2023: ab_drop)");
  cmd.add_option("--converter", opt->converter, "Official converter to reproduce: 1.4.1, or 2023-initial (before boundary errors)")
      ->check(CLI::IsMember({"1.4.1", "2023-initial"}));
  cmd.footer(
      "Writes <team>/intermediate/<C>/<name>.txt (extracted code) and <team>/levels/<C>/<name>.xml, as the\n"
      "official scripts do, plus <team>/logs/convert.json with each trial's outcome. Given one program file,\n"
      "prints its level XML.");
  return [opt, &global] { return run_convert(*opt, global); };
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "check-prompt", "Check a prompt against the competition's qualification rules",
                        setup_check_prompt);
PCGLAB_REGISTER_COMMAND("birds", "extract", "Extract drop calls from responses exactly as the official extractCode",
                        setup_extract);
PCGLAB_REGISTER_COMMAND("birds", "convert", "Convert responses to Science Birds levels as the official scripts do",
                        setup_convert);

}  // namespace pcglab::cli
