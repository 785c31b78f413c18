// `pcglab birds check-prompt | extract | convert`: the text half of the ChatGPT4PCG pipeline,
// exactly as the official scripts behave (see docs/birds.md).
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>

#include "batch/driver.h"
#include "batch/merge.h"
#include "batch_options.h"
#include "birds/competition_layout.h"
#include "birds/converter.h"
#include "birds/extract.h"
#include "birds/prompt_check.h"
#include "birds/team_batches.h"
#include "birds/text_pipeline.h"
#include "command.h"
#include "core/files.h"
#include "core/item_boundary.h"
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
  cmd.add_option("--rules", opt->rules, "Competition year whose rules apply")
      ->check(CLI::IsMember({"2023", "2024", "2025"}));
  return [opt, &global] { return run_check_prompt(*opt, global); };
}

// ---- extract --------------------------------------------------------------------------------

struct ExtractOptions {
  std::vector<std::string> responses;
  std::string function = "drop_block";
};

Json report_json(const std::string& file, const ExtractionReport& r) {
  Json dropped = Json::array();
  for (const auto& d : r.dropped)
    dropped.push_back({{"line", d.line}, {"call", d.text}, {"reason", d.reason}});
  Json loops = Json::array();
  for (const auto& l : r.loops) {
    Json loop = {
        {"line", l.line},
        {"header", l.header},
        {"calls_in_body", l.calls_in_body},
        {"iterations", l.iterations ? Json(*l.iterations) : Json()},
        {"note", "the official extraction keeps each call in the body once, not once per iteration"}};
    if (l.iterations_saturated) loop["iterations_at_least"] = true;
    loops.push_back(std::move(loop));
  }
  return {{"file", file},
          {"code", r.code ? Json(*r.code) : Json()},
          {"accepted_calls", r.accepted_calls},
          {"fence_markers", r.fence_markers},
          {"blocks", r.blocks},
          {"dropped_calls", r.dropped_calls},
          {"dropped", dropped},
          {"loops_seen", r.loops_seen},
          {"loops", loops},
          {"calls_in_earlier_blocks", r.calls_in_earlier_blocks},
          {"calls_outside_blocks", r.calls_outside_blocks},
          {"no_code_reason", r.no_code ? Json(r.no_code->what()) : Json()}};
}

// One response: its diagnostics, or its error (unreadable, over kMaxResponseBytes, internal error).
Result<ExtractionReport> extract_one(const std::string& file, const std::string& function) {
  return run_item(file, [&]() -> Result<ExtractionReport> {
    auto text = read_response_file(file);
    if (!text.ok()) return text.error();
    return diagnose_extraction(text.value(), function);
  });
}

// Every response as an item of an ephemeral batch (batch/driver.h: the item boundary, the pool and
// the progress bar; nothing stored): its diagnostics, or its error (unreadable, over
// kMaxResponseBytes, internal error), in the order given.
std::vector<Result<ExtractionReport>> extract_all(const ExtractOptions& opt, const GlobalOptions& global) {
  batch::StageSpec spec;
  spec.name = "extract";
  for (size_t i = 0; i < opt.responses.size(); ++i)
    spec.items.push_back({fmt::format("{}/{}", i, opt.responses[i]), "", {}});
  std::vector<std::optional<Result<ExtractionReport>>> reports(opt.responses.size());
  ThreadPool pool(global.threads);
  batch::Driver driver({}, pool);
  driver.run(spec, [&](size_t i) {
    reports[i] = extract_one(opt.responses[i], opt.function);
    if (!reports[i]->ok()) return ItemOutcome::from_error("", reports[i]->error());
    if (const auto& no_code = reports[i]->value().no_code)
      return ItemOutcome::failure("", no_code->kind(), no_code->what());
    return ItemOutcome::success("");
  });
  std::vector<Result<ExtractionReport>> out;
  for (auto& r : reports) out.push_back(std::move(*r));
  return out;
}

// md: the official output as it is (several files: each after a "==> FILE <==" line, as head(1)
// does); csv: one row per response; json, jsonl: the diagnostics. A response with no code or an
// error is also reported on stderr, naming the file.
int run_extract(const ExtractOptions& opt, const GlobalOptions& global) {
  validate_function_name(opt.function);
  const OutputFormat format = global.output_format();
  const bool several = opt.responses.size() > 1;
  bool all_ok = true;
  Json reports = Json::array();
  Table table;
  table.columns = {"file", "status", "accepted_calls", "dropped_calls", "loops", "code", "detail"};
  const std::vector<Result<ExtractionReport>> results = extract_all(opt, global);
  for (size_t i = 0; i < opt.responses.size(); ++i) {
    const std::string& file = opt.responses[i];
    const Result<ExtractionReport>& r = results[i];
    if (!r.ok()) {
      all_ok = false;
      log_error("{}", r.error().describe());
      table.add_row({file, "error", Json(), Json(), Json(), Json(), r.error().message});
      reports.push_back({{"file", file}, {"error", r.error().message}});
      if (format == OutputFormat::kJsonl) std::puts(dump_json(reports.back()).c_str());
      continue;
    }
    const ExtractionReport& report = r.value();
    const std::string no_code = report.no_code ? report.no_code->what() : "";
    if (!report.code) {
      all_ok = false;
      log_warn("{}: no code: {}", file, no_code);
    }
    table.add_row({file, report.code ? "ok" : "no-code", report.accepted_calls, report.dropped_calls,
                   report.loops_seen, report.code ? Json(*report.code) : Json(), no_code});
    reports.push_back(report_json(file, report));
    if (format == OutputFormat::kJsonl) std::puts(dump_json(reports.back()).c_str());
    if (format == OutputFormat::kMd) {
      if (several) std::printf("%s==> %s <==\n", i > 0 ? "\n" : "", file.c_str());
      if (report.code) std::fwrite(report.code->data(), 1, report.code->size(), stdout);
    }
  }
  if (format == OutputFormat::kJson) std::puts(dump_json(reports, 2).c_str());
  if (format == OutputFormat::kCsv) print_table(table, global);
  std::fflush(stdout);
  return all_ok ? kExitOk : kExitItemsFailed;
}

Action setup_extract(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ExtractOptions>();
  cmd.add_option("responses", opt->responses, "Response files")->required()->check(CLI::ExistingFile);
  cmd.add_option("--function", opt->function, "Drop function name (2023: ab_drop)");
  cmd.footer(
      "Prints exactly what the official extractCode returns; nothing (and exit 1, with the reason on "
      "stderr)\n"
      "where it returns null. Several files: each output after a line \"==> FILE <==\".\n"
      "--format csv prints one row per response; json or jsonl print diagnostics: dropped calls and why,\n"
      "loops, why no code. Responses over 1 MiB are refused (that file's error).");
  return [opt, &global] { return run_extract(*opt, global); };
}

// ---- convert --------------------------------------------------------------------------------

struct ConvertCommandOptions {
  std::string input;
  std::string function = "drop_block";
  std::string converter = "1.4.1";
  std::string shard;
};

int convert_single_file(const ConvertCommandOptions& opt, const ConverterVersion version) {
  ConvertedLevel level;
  try {
    level = convert_program(read_file(opt.input), opt.function, version);
  } catch (const ItemFailure& e) {  // the file's item failure
    log_error("{}: {}", opt.input, e.what());
    return kExitItemsFailed;
  }
  std::fwrite(level.xml.data(), 1, level.xml.size(), stdout);
  std::fflush(stdout);
  return kExitOk;
}

// The settings `pcglab merge` needs to complete a sharded convert.
OrderedJson convert_config(const ConvertCommandOptions& opt) {
  return {{"function", opt.function}, {"converter", opt.converter}};
}

int convert_folder(const ConvertCommandOptions& opt, const GlobalOptions& global) {
  const ConverterVersion version = parse_converter_version(opt.converter);
  const batch::Shard shard = shard_of(opt.shard);
  ThreadPool pool(global.threads);
  const auto teams = find_team_folders(opt.input, "raw");
  batch::DriverOptions driver_options;
  driver_options.shard = shard;
  driver_options.run_name = "birds convert";
  driver_options.config = dump_json(convert_config(opt));
  const batch::StageRun run =
      run_per_team(teams, pool, driver_options, [&](batch::Driver& d, const fs::path& team) {
        return convert_stage(d, {team}, {opt.function, version});
      });
  // Summary per team (every team, even with no trials), then every failure.
  std::map<std::string, std::array<int, 3>> per_team;  // ok, no code, other errors
  for (const fs::path& team : teams) per_team[team_name_of(team)] = {0, 0, 0};
  for (const ItemOutcome& o : run.outcomes) {
    auto& c = per_team[parse_trial_key(o.key).team];
    c[o.ok() ? 0 : o.kind == ErrorKind::kNoOutput ? 1 : 2]++;
  }
  Table summary;
  summary.columns = {"team", "trials", "levels", "no_code", "conversion_errors"};
  for (const auto& [team, c] : per_team) summary.add_row({team, c[0] + c[1] + c[2], c[0], c[1], c[2]});
  print_table(summary, global);
  bool all_ok = true;
  for (const ItemOutcome& o : run.outcomes) {
    if (o.ok()) continue;
    all_ok = false;
    const TrialKey k = parse_trial_key(o.key);
    const std::string detail = o.metadata.value("detail", "");
    log_warn("{}/{}: {}{}", k.team, k.stem, o.metadata.value("official_error", o.message),
             detail.empty() ? "" : " (" + detail + ")");
  }
  log_info("convert{}: {} trials, {} converted, {} reused, {} removed",
           shard.all() ? "" : " " + shard.label(), run.outcomes.size(), run.ran, run.reused, run.removed);
  if (run.outcomes.empty() && shard.all())
    log_warn("{}: no responses found under <team>/raw/<C>/", opt.input);
  return all_ok ? kExitOk : kExitItemsFailed;
}

int run_convert(const ConvertCommandOptions& opt, const GlobalOptions& global) {
  validate_function_name(opt.function);
  const ConverterVersion version = parse_converter_version(opt.converter);
  if (fs::is_regular_file(opt.input)) return convert_single_file(opt, version);
  return convert_folder(opt, global);
}

Action setup_convert(CLI::App& cmd, const GlobalOptions& global) {
  auto opt = std::make_shared<ConvertCommandOptions>();
  cmd.add_option("input", opt->input,
                 "Competition folder (<team>/raw/<C>/*.txt), a team folder, or one program file")
      ->required()
      ->check(CLI::ExistingPath);
  cmd.add_option("--function", opt->function, "Drop function name (2023: ab_drop)");
  cmd.add_option("--converter", opt->converter,
                 "Official converter to reproduce: 1.4.1, or 2023-initial (before boundary errors)")
      ->check(CLI::IsMember({"1.4.1", "2023-initial"}));
  add_shard_option(cmd, opt->shard);
  cmd.footer(
      "Writes <team>/intermediate/<C>/<name>.txt (extracted code) and <team>/levels/<C>/<name>.xml, as the\n"
      "official scripts do, plus <team>/logs/convert.json with each trial's outcome. Given one program "
      "file,\n"
      "prints its level XML. A rerun converts only the responses that changed (logs/batch.sqlite).");
  return [opt, &global] { return run_convert(*opt, global); };
}

int merge_convert(const fs::path& dir, const Json& config, int) {
  ConvertCommandOptions opt;
  opt.input = dir.string();
  opt.function = config.value("function", opt.function);
  opt.converter = config.value("converter", opt.converter);
  return convert_folder(opt, merge_global_options());
}

}  // namespace

PCGLAB_REGISTER_COMMAND("birds", "check-prompt",
                        "Check a prompt against the competition's qualification rules", setup_check_prompt);
PCGLAB_REGISTER_COMMAND("birds", "extract",
                        "Extract drop calls from responses exactly as the official extractCode",
                        setup_extract);
PCGLAB_REGISTER_MERGER("birds convert", "the convert logs (<team>/logs/convert.json)", merge_convert);
PCGLAB_REGISTER_COMMAND("birds", "convert",
                        "Convert responses to Science Birds levels as the official scripts do",
                        setup_convert);

}  // namespace pcglab::cli
